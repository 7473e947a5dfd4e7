/**
 * Records kept in DynamoDB and the shapes the API answers with (`Travail`, `Lot`, `Lancement`).
 * Records keep S3 keys, never links: links are signed afresh on every read (liens.ts).
 */
import type { CodeTravail } from './erreurs';
import { PREFIXES, RETENTION_ENTREES_JOURS, RETENTION_TELEVERSEMENTS_JOURS } from './retention';
import type { IdOutil, Langue } from './outils';
import type { ControleStructure, Floutage, Redaction } from './sorties';

export type StatutTravail = 'en_attente' | 'en_cours' | 'termine' | 'echec';
export type StatutLot = 'en_cours' | 'termine' | 'partiel' | 'echec';
export type Source = 'web' | 'api' | 'mcp';

/**
 * Where a job's input image is: in S3 (sent with the request, or a direct upload) or to fetch from an
 * https URL. A direct upload's object can be PUT again while its signed URL lives, so its entry pins
 * the ETag of the object that POST /travaux checked: the tool step decodes that object or nothing.
 */
export type Entree = { type: 's3'; cle: string; etag?: string } | { type: 'url'; url: string };

export interface Resultat {
  /** S3 key of the result file. */
  cle: string;
  /** File name offered to the person downloading it (also its name inside the batch ZIP). */
  fichier: string;
}

export interface ErreurDuTravail {
  code: CodeTravail;
  message: string;
}

export interface EnregistrementTravail {
  id: string;
  compte: string;
  outil: IdOutil;
  statut: StatutTravail;
  cout: number;
  /** With defaults applied, as the job shows them. */
  valeurs: Record<string, string>;
  /**
   * The settings the request itself gave, by name (contrat/demande.ts): the engine weighs a room the agent
   * named, not a default, against its detectors' guesses (moteurs/commun/zones.ts). Kept off the API's view.
   * Absent on a job recorded before it was kept: the tool step then counts none as named
   * (pipeline/service-outil.ts).
   */
  valeurs_nommees?: string[];
  lot: string | null;
  /** Position of the image in its request (0-based); orders the jobs of a batch and its ZIP. */
  index: number;
  nom: string | null;
  source: Source;
  cree_le: string;
  commence_le: string | null;
  termine_le: string | null;
  entrees: Entree[];
  resultats: Resultat[];
  texte: string | null;
  erreur: ErreurDuTravail | null;
  rembourse: boolean;
  /** Seed given to the engine, so a job can be reproduced. */
  graine: number | null;
  /** Which execution runs the job: 1, or 2 once the sweeper ran it again (executions.ts names them). */
  tentative?: number;
  /** Who wrote the listing text (annonce). */
  redaction?: Redaction | null;
  /** The structure check of an image result (moteurs/controle.ts). */
  structure?: ControleStructure | null;
  /** What the blur of faces and plates found and blurred, when the job asked for one (moteurs/commun/floutage.ts). */
  floutage?: Floutage | null;
  /** The request's Idempotency-Key: erasing the job erases that request's replay (core/domaine/effacement/). */
  idempotence?: string;
  /**
   * Started with a test key (core/domaine/comptes.ts): free, always on the local preview engine, listed
   * and read only with test keys. Absent on a live job.
   */
  test?: true;
  /**
   * Run on the preview engine (test jobs, and every job of a stage deployed with it): said at creation from
   * the stage's engine, then by the tool step from the engine that actually ran. Absent: the production engine.
   */
  apercu?: boolean;
  /** The request's language (Accept-Language), in which the preview writes its mark; English when absent. */
  langue_apercu?: Langue;
}

export interface EnregistrementLot {
  id: string;
  compte: string;
  outil: IdOutil;
  total: number;
  termines: number;
  echecs: number;
  /** Jobs not yet `termine` or `echec`: total - termines - echecs, kept as its own counter so that a
   * condition expression can ask "is this batch over?" (DynamoDB conditions have no arithmetic). */
  restants: number;
  statut: StatutLot;
  /** Job ids, in the order of the request's images. */
  travaux: string[];
  zip_cle: string | null;
  cree_le: string;
  termine_le: string | null;
  /** When a job of the batch last ended: the sweeper leaves a fresh end to the batch's own ZIP step. */
  derniere_fin?: string;
  /** Who builds the ZIP, and until when (epoch ms) that claim holds: a dead claimant's claim expires. */
  finaliseur?: string;
  reclame_jusqua?: number;
  /** A job of this ended batch was erased: its ZIP was deleted and is written again without it (core/domaine/effacement/). */
  zip_a_refaire?: boolean;
  /** A batch started with a test key, as its jobs are. */
  test?: true;
}

/** A signed link, valid 24 hours: a batch's ZIP, and the base of a result's links. */
export interface Lien {
  /** Downloads the file: its answer carries `Content-Disposition: attachment` with the file's name. */
  url: string;
  expire_le: string;
}

/** A result file's links: `url` downloads it (as a ZIP's does), `url_affichage` shows it. */
export interface LienResultat extends Lien {
  /**
   * Our extension: the same file without the attachment header, to show it (an <img>, a browser tab):
   * the studio's before/after slider. Signed with the same validity.
   */
  url_affichage: string;
  /**
   * Our extension: the photo the result was made from, by a display link, while it is kept (sent or fetched:
   * 7 days; uploaded: 1 day, core/modele/retention.ts); `null` after, and for a job of several photos. The
   * history's before/after slider (issue 41, point 2).
   */
  avant_affichage: string | null;
}

export interface Travail {
  id: string;
  outil: IdOutil;
  statut: StatutTravail;
  cout: number;
  valeurs: Record<string, string>;
  lot: string | null;
  nom: string | null;
  source: Source;
  cree_le: string;
  commence_le: string | null;
  termine_le: string | null;
  resultats: LienResultat[];
  texte: string | null;
  erreur: ErreurDuTravail | null;
  rembourse: boolean;
  /**
   * Our extension: for a listing text, that it was machine-written and by which model (null
   * otherwise), so a platform can say so to its readers.
   */
  redaction: Redaction | null;
  /**
   * Our extension: for an image result, how well the room's or building's fixed lines (walls,
   * windows, doors, outline) were kept — the score, the threshold it passed, the runs it took; null
   * for a listing text and until the job is done.
   */
  structure: ControleStructure | null;
  /**
   * Our extension: for an image result whose job asked to blur faces or plates, how many of each were
   * found and blurred (0 when none was found: then nothing was blurred, and the manifest says no blur);
   * null when no blur was asked, for a listing text, and until the job is done.
   */
  floutage: Floutage | null;
  /**
   * Our extension: true on a job started with a test key (free, on the preview engine), false on a live
   * one — always present, so that a platform's webhook receiver can branch on it.
   */
  test: boolean;
  /**
   * Our extension: true when the job runs (or ran) on the preview engine, which has no trained generative
   * model and marks every result image visibly as a preview; false on the production engine. Always present.
   */
  apercu: boolean;
}

export interface Lot {
  id: string;
  outil: IdOutil;
  statut: StatutLot;
  total: number;
  termines: number;
  echecs: number;
  en_cours: number;
  zip: Lien | null;
  travaux: Travail[];
  /** Our extension: true on a batch started with a test key, false on a live one, as on its jobs. */
  test: boolean;
}

export interface EchecImage {
  index: number;
  code: string;
  message: string;
}

export interface Lancement {
  lot: string | null;
  outil: IdOutil;
  cout_total: number;
  travaux: Travail[];
  echecs: EchecImage[];
}

/**
 * Signs a stored file's key into a link valid 24 hours. With `telechargement` (a file name), the link
 * downloads the file under that name (its answer carries `Content-Disposition: attachment`, RFC 6266,
 * core/modele/disposition.ts); without, it serves the file to be shown.
 */
export type SignerLien = (cle: string, telechargement?: string) => Lien;

/**
 * The name a result downloads under: its file's name (position, the photo's own name, the tool, as in
 * the batch's ZIP) when the photo had a name, else `<job id>-<tool>.<extension>`, which tells one
 * result from another where `01-ciel.jpg` would not.
 */
export const nomTelechargement = (e: Pick<EnregistrementTravail, 'id' | 'outil' | 'nom'>, r: Resultat): string => {
  if (e.nom) return r.fichier;
  const extension = /\.[A-Za-z0-9]{1,5}$/.exec(r.fichier)?.[0] ?? '';
  return `${e.id}-${e.outil}${extension}`;
};

/**
 * The name a batch's ZIP downloads under: one a person recognises in a downloads folder, the batch's
 * day (UTC) and tool, with the start of its id so two batches of one day and tool never share a name
 * (`retouche-2026-11-23-ciel-7c1e9b42.zip`).
 */
export const nomZip = (lot: Pick<EnregistrementLot, 'id' | 'outil' | 'cree_le'>): string =>
  `retouche-${lot.cree_le.slice(0, 10)}-${lot.outil}-${lot.id.slice(0, 8)}.zip`;

/**
 * The key of the one photo a job was made from, while the bucket still keeps it (its lifecycle rule deletes
 * it that many days after it was written, never sooner), else undefined.
 */
const cleAvant = (e: EnregistrementTravail, maintenant: number): string | undefined => {
  const [entree, ...autres] = e.entrees;
  if (entree?.type !== 's3' || autres.length > 0) return undefined;
  const jours = entree.cle.startsWith(PREFIXES.televersements) ? RETENTION_TELEVERSEMENTS_JOURS : RETENTION_ENTREES_JOURS;
  return maintenant < Date.parse(e.cree_le) + jours * 24 * 3600 * 1000 ? entree.cle : undefined;
};

const lienResultat = (e: EnregistrementTravail, r: Resultat, signer: SignerLien, avant: string | undefined): LienResultat => {
  const telechargement = signer(r.cle, nomTelechargement(e, r));
  // Signed second, so it expires no sooner than the `expire_le` given for both.
  return {
    url: telechargement.url,
    url_affichage: signer(r.cle).url,
    avant_affichage: avant === undefined ? null : signer(avant).url,
    expire_le: telechargement.expire_le,
  };
};

/**
 * Whether a record (job, batch, webhook endpoint) is of this kind of work: test (made with a test key)
 * or live. Each kind sees only its own; the other answers as if it did not exist.
 */
export const memeMonde = (e: { test?: boolean }, test: boolean | undefined): boolean => (e.test === true) === (test === true);

/** A job as the API answers it, with its results' links (signed for a `termine` job only). */
const versTravailAvec = (e: EnregistrementTravail, resultats: LienResultat[]): Travail => ({
  id: e.id,
  outil: e.outil,
  statut: e.statut,
  cout: e.cout,
  valeurs: e.valeurs,
  lot: e.lot,
  nom: e.nom,
  source: e.source,
  cree_le: e.cree_le,
  commence_le: e.commence_le,
  termine_le: e.termine_le,
  resultats,
  texte: e.texte,
  erreur: e.erreur,
  rembourse: e.rembourse,
  redaction: e.statut === 'termine' ? (e.redaction ?? null) : null,
  structure: e.statut === 'termine' ? (e.structure ?? null) : null,
  floutage: e.statut === 'termine' ? (e.floutage ?? null) : null,
  test: e.test === true,
  // A test job runs the preview whatever the stage (pipeline/outil.ts), including records made before `apercu` was.
  apercu: e.apercu === true || e.test === true,
});

export const versTravail = (e: EnregistrementTravail, signer: SignerLien): Travail =>
  // Links only once done: a job's files are complete only when it is `termine`.
  versTravailAvec(e, e.statut === 'termine' ? e.resultats.map((r) => lienResultat(e, r, signer, cleAvant(e, Date.now()))) : []);

/** A job just created (POST /travaux's answer): not ended, so it has no link, and needs no signer. */
export const versTravailNouveau = (e: EnregistrementTravail & { statut: 'en_attente' }): Travail => versTravailAvec(e, []);

/** A batch is over once every job is `termine` or `echec`; its state then says how it went. */
export const statutFinalLot = (termines: number, echecs: number): StatutLot => (echecs === 0 ? 'termine' : termines === 0 ? 'echec' : 'partiel');

export const versLot = (e: EnregistrementLot, travaux: EnregistrementTravail[], signer: SignerLien): Lot => {
  const parId = new Map(travaux.map((t) => [t.id, t]));
  return {
    id: e.id,
    outil: e.outil,
    statut: e.statut,
    total: e.total,
    termines: e.termines,
    echecs: e.echecs,
    en_cours: e.total - e.termines - e.echecs,
    zip: e.statut !== 'en_cours' && e.zip_cle ? signer(e.zip_cle, nomZip(e)) : null,
    travaux: e.travaux.flatMap((id) => {
      const t = parId.get(id);
      return t ? [versTravail(t, signer)] : [];
    }),
    test: e.test === true,
  };
};

/**
 * Which run of a job a record or an execution's input names: 1 when it names none (a job never run again,
 * an execution started before runs were numbered). The one reading of an absent `tentative`.
 */
export const numeroTentative = (t: { tentative?: number | undefined }): number => t.tentative ?? 1;

/** Whether run `tentative` (an execution's) is the one the job's record says runs it now. */
export const estSaTentative = (travail: Pick<EnregistrementTravail, 'tentative'>, tentative: number | undefined): boolean =>
  numeroTentative(travail) === numeroTentative({ tentative });
