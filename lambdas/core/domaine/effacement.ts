/**
 * Erasure on request (GDPR Art. 17; our extension): a job (`DELETE /travaux/{id}`), a batch
 * (`DELETE /lots/{id}`), or all of an account's work (the admin CLI's `erase-account`).
 *
 * What goes: a job's inputs (sent with the request, fetched from a URL or uploaded), its results, the
 * ZIP of its batch, its record, its uploads' records and the stored answer of its request
 * (`Idempotency-Key`). What stays: the account, its balance (an erasure neither refunds nor charges)
 * and the hashes of its keys.
 *
 * The order holds under any crash or race:
 *   1. the request is recorded (`EFFACEMENT#<id>`, in the sweeper's `ouverts` index): whatever stops
 *      the erasure after this, the sweeper finishes it;
 *   2. a job of a batch takes the batch's claim (core/depots/lots.ts), as a ZIP writer would: no ZIP
 *      is written from its jobs while their files go, and a ZIP writer that took the claim over
 *      (ours expired) skips the jobs whose erasure is recorded (core/domaine/lots.ts);
 *   3. files;
 *   4. records last, in one transaction that also releases the claim: an erasure cut short leaves
 *      records that still name what is left, and the same call, repeated, finishes it.
 * A job that has not ended, or a batch whose ZIP is being written, cannot be erased at once (its step
 * would write files after us): the recorded request waits, and the sweeper does it once the work has
 * ended. The request's `Idempotency-Key` outlives the erasure, without its stored answer
 * (core/domaine/idempotence.ts): a replay within its 24 hours starts and charges nothing. An upload's record
 * becomes a nameless tombstone until its URL is dead, so that a file PUT with it afterwards goes too.
 */
import { cleEntree, cleTexte, cleZip, idTeleversement, prefixesDuCompte, resultatsDuTravail } from '../modele/cles-s3';
import type { Dependances } from '../infra/dependances';
import * as effacements from '../depots/effacements';
import * as idempotence from '../depots/idempotence';
import * as lots from '../depots/lots';
import { duCompte as televersementsDuCompte } from '../depots/televersements';
import { ecrire, raisonsAnnulation, type ElementTransaction } from '../depots/transactions';
import {
  duCompte as travauxDuCompte,
  elementEffacer as elementEffacerTravail,
  elementEffacerFini as elementEffacerTravailFini,
  lire as lireTravail,
  lirePlusieurs as lireTravaux,
} from '../depots/travaux';
import { EXTENSIONS, type FormatImage } from '../modele/images';
import type { EnregistrementLot, EnregistrementTravail } from '../modele/enregistrements';
import { parPaquets } from '../infra/paquets';
import { elementTeleversementEfface, retirerTeleversement } from './televersements';

export type DepsEffacement = Pick<Dependances, 'ddb' | 'table' | 'objets' | 'horloge'>;

/** What an erasure did: the answer of `DELETE /travaux/{id}` and `DELETE /lots/{id}` (our extension). */
export interface Effacement {
  efface_le: string;
  /** Jobs erased: files, records, uploads, the request's stored answer. */
  travaux: string[];
  /** Batches erased whole (their record and ZIP). */
  lots: string[];
  /** Batches that keep other jobs: their ZIP was deleted and is written again without the erased jobs. */
  zips_refaits: string[];
  /** Stored files deleted, as recorded: inputs, uploads, results, ZIPs. */
  fichiers: number;
}

export type Issue =
  | { statut: 'efface'; effacement: Effacement }
  /** Not yet possible (a job running, a ZIP being written): to record and do at the work's end. */
  | { statut: 'differe'; raison: string }
  /** Nothing to erase any more (already erased, maybe by a concurrent call). */
  | { statut: 'absent' };

const FORMATS = Object.keys(EXTENSIONS) as FormatImage[];

const estOuvert = (t: Pick<EnregistrementTravail, 'statut'>): boolean => t.statut === 'en_attente' || t.statut === 'en_cours';

/**
 * A job's files: those its record names, and every key a step may have written without the record
 * knowing it — an input fetched from a URL (its format is only known to the Preparer step), a result
 * written by a tool step whose job then failed. Deleting a key that is not there costs one request,
 * and keeps the API roles from ever listing the bucket.
 */
export const fichiersDuTravail = (t: EnregistrementTravail): { enregistres: string[]; tous: string[] } => {
  const enregistres = [...t.entrees.flatMap((e) => (e.type === 's3' ? [e.cle] : [])), ...t.resultats.map((r) => r.cle)];
  const possibles = [
    ...t.entrees.flatMap((_, rang) => FORMATS.map((f) => cleEntree(t.compte, t.id, rang, f))),
    ...(t.outil === 'annonce' ? [cleTexte(t.compte, t.id)] : resultatsDuTravail(t, FORMATS).map((r) => r.cle)),
  ];
  return { enregistres, tous: [...new Set([...enregistres, ...possibles])] };
};

/** The uploads a job used: their ids. */
const televersementsDuTravail = (t: EnregistrementTravail): string[] => [
  ...new Set(
    t.entrees.flatMap((e) => {
      const id = e.type === 's3' ? idTeleversement(t.compte, e.cle) : undefined;
      return id ? [id] : [];
    }),
  ),
];

/**
 * The records that go with a job's, as transaction items: its claims on uploads (a listing job's), its
 * uploads' records turned into tombstones, its recorded erasure.
 */
const elementsLies = (d: DepsEffacement, t: EnregistrementTravail, maintenant: Date): ElementTransaction[] => {
  const televersements = televersementsDuTravail(t);
  return [
    ...televersements.filter((id) => id !== t.id).map((id) => elementEffacerTravail(d.table, id)),
    ...televersements.map((id) => elementTeleversementEfface(d.table, t.compte, id, t.cree_le, maintenant)),
    effacements.elementSupprimer(d.table, t.id),
  ];
};

/** Another erasure of the same batch holds it for milliseconds: wait a little, with jitter, rather than defer. */
const patienter = (essai: number) => new Promise((r) => setTimeout(r, Math.random() * Math.min(1000, 25 * 2 ** essai)));
const ESSAIS_EFFACEMENT = 8;

/**
 * Erases one ended job. In a batch, the job leaves the batch in the same transaction (its counters
 * drop by one) that releases the batch's claim, taken before any file went. An ended batch's ZIP is
 * deleted and written again without the job by the sweeper; a batch left with no job is erased with it.
 */
export const effacerTravailEnregistre = async (d: DepsEffacement, travail: EnregistrementTravail): Promise<Issue> => {
  await demanderEffacement(d, 'travail', travail.id, travail.compte);
  if (estOuvert(travail)) return { statut: 'differe', raison: 'it has not ended' };
  const fichiers = fichiersDuTravail(travail);
  const moi = lots.effaceur(travail.id);
  for (let essai = 0; essai < ESSAIS_EFFACEMENT; essai++) {
    const maintenant = d.horloge();
    let lot = travail.lot ? await lots.lire(d, travail.lot) : undefined;
    if (lot && lot.travaux.includes(travail.id)) {
      const prise = await lots.reclamerPourEffacer(d, lot.id, moi, d.horloge().getTime());
      if (!prise) {
        lot = undefined; // the batch was erased meanwhile: the job goes alone (or is gone too)
      } else if ('tenu_par' in prise) {
        if (!lots.estEffaceur(prise.tenu_par)) return { statut: 'differe', raison: `the ZIP of its batch ${travail.lot} is being written` };
        await patienter(essai);
        continue;
      } else {
        lot = prise.lot;
      }
    }
    const position = lot ? lot.travaux.indexOf(travail.id) : -1;
    const dernier = lot !== undefined && position >= 0 && lot.travaux.length === 1;
    const zip = lot && (lot.statut !== 'en_cours' || dernier) ? [cleZip(lot.compte, lot.id)] : [];
    await d.objets.supprimer([...fichiers.tous, ...zip]);
    if (travail.idempotence !== undefined) await idempotence.marquerEfface(d, travail.compte, travail.idempotence, maintenant);

    const items: ElementTransaction[] = [elementEffacerTravailFini(d.table, travail.id), ...elementsLies(d, travail, maintenant)];
    // The batch's item holds only while this erasure holds its claim (a ZIP writer that took it over is
    // writing from its list) and its list is as read (depots/lots.ts); it releases the claim.
    if (lot && position >= 0) {
      const garde = { id: travail.id, taille: lot.travaux.length, qui: moi };
      items.push(
        dernier
          ? lots.elementEffacerAvecDernier(d.table, lot.id, garde)
          : lots.elementRetirerTravail(d.table, lot, { ...garde, position, termine: travail.statut === 'termine', maintenant }),
      );
    }
    try {
      await ecrire(d, items);
    } catch (erreur) {
      const raisons = raisonsAnnulation(erreur);
      if (!raisons) throw erreur;
      // The job is gone: another erasure did it. The batch moved under us (another job erased, its
      // claim released by another eraser or taken over by a ZIP writer): read it again.
      if (raisons[0]?.Code === 'ConditionalCheckFailed') return { statut: 'absent' };
      if (raisons.some((r) => r.Code === 'TransactionConflict' || r.Code === 'ConditionalCheckFailed')) continue;
      throw erreur;
    }
    return {
      statut: 'efface',
      effacement: {
        efface_le: maintenant.toISOString(),
        travaux: [travail.id],
        lots: dernier && lot ? [lot.id] : [],
        zips_refaits: lot && !dernier && position >= 0 && lot.statut !== 'en_cours' ? [lot.id] : [],
        fichiers: fichiers.enregistres.length + (lot?.zip_cle ? 1 : 0),
      },
    };
  }
  return { statut: 'differe', raison: `other erasures of its batch ${travail.lot} are under way` };
};

/**
 * Erases an ended batch and all its jobs. The eraser claims the batch first, as a ZIP writer would,
 * so no ZIP can be written from jobs being erased; the batch record goes last.
 */
export const effacerLotEnregistre = async (d: DepsEffacement, lot: EnregistrementLot): Promise<Issue> => {
  await demanderEffacement(d, 'lot', lot.id, lot.compte);
  if (lot.statut === 'en_cours') return { statut: 'differe', raison: 'some of its jobs have not ended' };
  const maintenant = d.horloge();
  let actuel: EnregistrementLot;
  for (let essai = 0; ; essai++) {
    const prise = await lots.reclamerPourEffacer(d, lot.id, lots.effaceur(lot.id), d.horloge().getTime());
    if (!prise) return { statut: 'absent' };
    if ('lot' in prise) {
      // As it is now: erasures of its jobs may have taken some out.
      actuel = prise.lot;
      break;
    }
    // An erasure of one of its jobs holds it for milliseconds; a ZIP writer for longer.
    if (!lots.estEffaceur(prise.tenu_par) || essai >= ESSAIS_EFFACEMENT) {
      return { statut: 'differe', raison: lots.estEffaceur(prise.tenu_par) ? 'erasures of its jobs are under way' : 'its ZIP is being written' };
    }
    await patienter(essai);
  }
  const travaux = (await lireTravaux(d, actuel.travaux)).sort((a, b) => a.index - b.index);
  const parTravail = travaux.map((t) => fichiersDuTravail(t));
  await d.objets.supprimer([...new Set([...parTravail.flatMap((f) => f.tous), cleZip(lot.compte, lot.id)])]);
  // Every job of a batch came from one request: one Idempotency-Key.
  for (const cle of new Set(travaux.flatMap((t) => (t.idempotence !== undefined ? [t.idempotence] : []))))
    await idempotence.marquerEfface(d, lot.compte, cle, maintenant);
  await parPaquets(travaux, 8, async (t) => {
    await ecrire(d, [elementEffacerTravail(d.table, t.id), ...elementsLies(d, t, maintenant)]);
  });
  try {
    await ecrire(d, [lots.elementEffacer(d.table, lot.id, lots.effaceur(lot.id)), effacements.elementSupprimer(d.table, lot.id)]);
  } catch (erreur) {
    // Another eraser took the batch over (ours was slow past the claim) and finished it.
    if (!raisonsAnnulation(erreur)) throw erreur;
    return { statut: 'absent' };
  }
  return {
    statut: 'efface',
    effacement: {
      efface_le: maintenant.toISOString(),
      travaux: travaux.map((t) => t.id),
      lots: [lot.id],
      zips_refaits: [],
      fichiers: parTravail.reduce((n, f) => n + f.enregistres.length, 0) + (lot.zip_cle ? 1 : 0),
    },
  };
};

/** Records an erasure to do when its job or batch has ended (the sweeper reads `ouverts`). */
export const demanderEffacement = (d: DepsEffacement, quoi: 'travail' | 'lot', id: string, compte: string): Promise<void> =>
  effacements.demander(d, { quoi, id, compte, demande_le: d.horloge().toISOString() });

/**
 * The sweeper's part: an erasure recorded earlier, done once its work has ended. `demande_le`: when it was
 * asked, so the sweeper can tell one that waits longer than the work it waits for may last.
 */
export const traiterDemandeEffacement = async (d: DepsEffacement, id: string): Promise<Issue & { demande_le?: string }> => {
  const demande = await effacements.lire(d, id);
  if (!demande) return { statut: 'absent' };
  const cible = demande.quoi === 'lot' ? await lots.lire(d, id) : await lireTravail(d, id);
  const issue: Issue = !cible
    ? { statut: 'absent' }
    : demande.quoi === 'lot'
      ? await effacerLotEnregistre(d, cible as EnregistrementLot)
      : await effacerTravailEnregistre(d, cible as EnregistrementTravail);
  if (issue.statut === 'absent') await effacements.supprimer(d, id);
  return { ...issue, demande_le: demande.demande_le };
};

export interface EffacementCompte {
  compte: string;
  efface_le: string;
  travaux: number;
  lots: number;
  televersements: number;
  fichiers: number;
  /** Jobs and batches still running: recorded, erased by the sweeper when they end. */
  differes: string[];
}

/**
 * All of an account's work (the admin CLI): its batches, its jobs, its uploads, used or not, and,
 * when the caller may list the bucket (`lister`: an operator's credentials; the API's roles may not),
 * any file left under the account's prefixes. Work still running is recorded for the sweeper and its
 * files are left to it.
 */
export const effacerCompte = async (d: DepsEffacement, compte: string, lister?: (prefixe: string) => Promise<string[]>): Promise<EffacementCompte> => {
  const bilan: EffacementCompte = { compte, efface_le: d.horloge().toISOString(), travaux: 0, lots: 0, televersements: 0, fichiers: 0, differes: [] };
  const travaux = await travauxDuCompte(d, compte);
  // What work still running needs: its files, named or under its job's or batch's id.
  const retenus = new Set<string>();
  const proteges = new Set<string>();
  const compter = (issue: Issue, id: string, garder: EnregistrementTravail[]) => {
    if (issue.statut === 'efface') {
      bilan.travaux += issue.effacement.travaux.length;
      bilan.lots += issue.effacement.lots.length;
      bilan.fichiers += issue.effacement.fichiers;
    } else if (issue.statut === 'differe') {
      // Recorded by the erasure itself: the sweeper does it once the work has ended.
      bilan.differes.push(id);
      proteges.add(id);
      for (const t of garder) {
        proteges.add(t.id);
        for (const cle of fichiersDuTravail(t).tous) retenus.add(cle);
      }
    }
  };
  for (const lotId of new Set(travaux.flatMap((t) => (t.lot ? [t.lot] : [])))) {
    const lot = await lots.lire(d, lotId);
    if (!lot) continue;
    compter(
      await effacerLotEnregistre(d, lot),
      lotId,
      travaux.filter((t) => t.lot === lotId),
    );
  }
  for (const t of travaux.filter((t) => !t.lot)) compter(await effacerTravailEnregistre(d, t), t.id, [t]);

  // Uploads no running job uses: unused ones uncounted from the account; every object goes now, and a
  // record whose URL may still put a file stays, nameless, until the sweeper removes that too.
  const televersements = await televersementsDuCompte(d, compte);
  const libres = televersements.filter((t) => !retenus.has(t.cle));
  await parPaquets(libres, 8, async (t) => {
    if ((await retirerTeleversement(d, t.id, { effacer: true })) === 'utilise') {
      // Its job is gone already (an erasure before this record was a tombstone): the same end.
      await ecrire(d, [elementTeleversementEfface(d.table, compte, t.id, t.cree_le, d.horloge())]);
      await retirerTeleversement(d, t.id);
    }
  });
  bilan.televersements = libres.length;

  if (lister) {
    const protege = (cle: string) => retenus.has(cle) || [...proteges].some((id) => cle.includes(`/${id}`));
    for (const prefixe of prefixesDuCompte(compte)) {
      const restes = (await lister(prefixe)).filter((cle) => !protege(cle));
      await d.objets.supprimer(restes);
      bilan.fichiers += restes.length;
    }
  }
  return bilan;
};
