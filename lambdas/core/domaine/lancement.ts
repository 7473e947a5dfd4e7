/**
 * `POST /travaux`: from the raw request to started jobs, in four concerns, one module each:
 *
 *   read and check the request (demande.ts) → answer a repeated Idempotency-Key (idempotence.ts) →
 *   store inputs in S3 → debit the whole cost and write every job in ONE transaction (facturation.ts)
 *   → start one execution per job (executions.ts).
 *
 * Nothing is charged unless the transaction commits. After it commits, the answer always goes out:
 * an execution that cannot start (or not in time) leaves its job `en_attente`, and the sweeper
 * (balayage.ts) starts it; nothing here refunds or closes a batch.
 */
import { randomUUID } from 'node:crypto';
import * as comptes from '../depots/comptes';
import * as lots from '../depots/lots';
import { nouveau as nouveauTravail, type TravailNouveau } from '../depots/travaux';
import { auMoinsUneImage, estTeleversee, lireDemande, type Demande, type ImagePrete } from '../contrat/demande';
import type { AvecExecutions, AvecObjets, AvecTable } from '../infra/dependances';
import { ErreurApi } from '../modele/erreurs';
import { demarrerExecutions } from '../infra/executions';
import { debiter, verifierSolde } from './facturation';
import { reponseDejaDonnee, verifierCleIdempotence, type RequeteIdempotente } from './idempotence';
import { TYPES_MIME } from '../modele/images';
import { cleEntree } from '../modele/cles-s3';
import type { EnregistrementLot, Entree, Lancement } from '../modele/enregistrements';
import { versTravailNouveau } from '../modele/enregistrements';
import { CATALOGUE, sansModele, type IdOutil, type Langue } from '../modele/outils';
import { parPaquets } from '../infra/paquets';
import { signaler } from '../infra/signalement';
import { verifierTeleversements } from './televersements';
import type { EchecImage, Source } from '../modele/enregistrements';

export interface RequeteLancement extends RequeteIdempotente {
  /** Epoch ms by which the answer must be sent (the handler's remaining time, less a margin). */
  echeance?: number;
  /** The tools this stage offers (outils.ts, outilsOfferts); all when absent. */
  outils?: readonly IdOutil[];
  /** Where the jobs come from: the caller's credential says (comptes.ts authentifier); `api` when absent. */
  source?: Source;
  /** This stage's live jobs run the preview engine (outils.ts, apercuDeLaPile); a test key's always do. */
  apercu?: boolean;
  /** This stage's prices (outils.ts, coutsDeLaPile); the catalogue's when absent. */
  couts?: Readonly<Record<IdOutil, number>>;
  /** The request's language (contrat/langue.ts), for the preview's mark on its results. */
  langue?: Langue;
}

/** Without a deadline from the caller (tests, scripts), the gateway's 29 s less a margin. */
const ECHEANCE_PAR_DEFAUT_MS = 25_000;

/** What launching needs: the table, S3 for the inputs (without the S3 client), Step Functions to start the jobs. */
export type DepsLancement = AvecTable & AvecObjets & AvecExecutions;

export const lancer = async (d: DepsLancement, requete: RequeteLancement): Promise<Lancement> => {
  const echeance = requete.echeance ?? Date.now() + ECHEANCE_PAR_DEFAUT_MS;
  verifierCleIdempotence(requete.cleIdempotence);
  const deja = await reponseDejaDonnee(d, requete);
  if (deja) return deja;
  const lue = await lireDemande(requete.contentType, requete.corps);
  const { demande } = lue;
  if (requete.outils && !requete.outils.includes(demande.outil)) {
    throw new ErreurApi('invalid_tool', `This stage does not offer the tool ${demande.outil}; it offers ${requete.outils.join(', ')} (GET /outils).`);
  }
  const { pretes, echecs } = await resoudreTeleversements(d, requete.compte, lue.pretes, lue.echecs);
  auMoinsUneImage(demande.outil, pretes, echecs);
  const outil = CATALOGUE[demande.outil];

  // One job per image for batch tools; one job over all images for annonce.
  const groupes: ImagePrete[][] = outil.images.par_lot ? pretes.map((p) => [p]) : [pretes];
  // A test key's jobs cost nothing; the pending limit holds for them too, on their own count.
  const test = requete.test === true;
  const prix = requete.couts?.[demande.outil] ?? outil.cout;
  const cout_total = groupes.length * (test ? 0 : prix);
  const maintenant = d.horloge().toISOString();

  // A first, non-binding look at the balance spares uploading inputs for a request that must fail;
  // the transaction is what decides.
  const compte = await comptes.lire(d, requete.compte);
  if (!compte) throw new ErreurApi('unauthorized', 'The account of this key no longer exists.');
  verifierSolde(compte.credits, test ? compte.travaux_ouverts_test : compte.travaux_ouverts, cout_total, groupes.length);

  const { travaux, lot } = nouveauxTravaux(requete, demande, groupes, maintenant, prix);
  const deposees = await deposerEntrees(d, travaux, groupes);

  // Uploads of a listing job are claimed by the debit, each under its own condition (televersements.ts).
  const utilisations = travaux.flatMap((travail, i) =>
    groupes[i]!.flatMap((image) =>
      estTeleversee(image.entree) && image.entree.televersement !== travail.id ? [{ televersement: image.entree.televersement, travail: travail.id }] : [],
    ),
  );
  // Just created, so nothing to link to yet: no link is signed here.
  const reponse: Lancement = { lot: lot ? lot.id : null, outil: demande.outil, cout_total, travaux: travaux.map(versTravailNouveau), echecs };
  try {
    const televersees = pretes.filter((p) => estTeleversee(p.entree)).length;
    await debiter(d, { requete, travaux, lot, cout: cout_total, reponse, echeance, utilisations, televersements: televersees });
  } catch (erreur) {
    if (!(erreur instanceof ErreurApi && erreur.code === 'service_unavailable')) await supprimerEntrees(d, deposees);
    if (erreur instanceof ErreurApi && erreur.code === 'idempotency_key_reused') {
      // A concurrent request with the same key won the race: answer what it answered.
      const gagnante = await reponseDejaDonnee(d, requete);
      if (gagnante) return gagnante;
    }
    throw erreur;
  }

  await demarrerExecutions(d, travaux, echeance);
  return reponse;
};

/** The request's jobs, one per group of images (`maintenant`: their creation time), and their batch if they make one. */
const nouveauxTravaux = (
  requete: RequeteLancement,
  demande: Demande,
  groupes: ImagePrete[][],
  maintenant: string,
  prix: number,
): { travaux: TravailNouveau[]; lot: EnregistrementLot | null } => {
  const outil = CATALOGUE[demande.outil];
  const test = requete.test === true;
  // A tool no model makes (fusion) is the real result on the preview engine too; a test key's, free, is marked all the same.
  const apercu = test || (requete.apercu === true && !sansModele(demande.outil));
  const lotId = outil.images.par_lot && demande.images.length > 1 ? randomUUID() : null;
  const travaux = groupes.map((groupe) => {
    // A one-image job from an upload takes the upload's id: a job is written once, so an upload is used once.
    const seule = groupe.length === 1 ? groupe[0]!.entree : undefined;
    const id = estTeleversee(seule) ? seule.televersement : randomUUID();
    const entrees: Entree[] = groupe.map((image, rang) => {
      if ('url' in image.entree) return { type: 'url', url: image.entree.url };
      // An upload is already in S3, checked: the job reads it where it is.
      if (estTeleversee(image.entree)) return { type: 's3', cle: image.entree.cle, etag: image.entree.etag };
      if ('octets' in image.entree) return { type: 's3', cle: cleEntree(requete.compte, id, rang, image.entree.format) };
      throw new Error(`upload ${image.entree.televersement} was not checked`);
    });
    return nouveauTravail({
      id,
      compte: requete.compte,
      outil: demande.outil,
      cout: test ? 0 : prix,
      valeurs: demande.valeurs,
      valeurs_nommees: demande.nommees,
      lot: lotId,
      index: groupe[0]?.index ?? 0,
      // A photo is named after its input; fusion's after its first exposure, as a photographer's series is.
      nom: demande.outil !== 'annonce' ? (groupe[0]?.nom ?? null) : null,
      source: requete.source ?? 'api',
      cree_le: maintenant,
      entrees,
      ...(test ? { test: true as const } : {}),
      ...(apercu ? { apercu, ...(requete.langue ? { langue_apercu: requete.langue } : {}) } : {}),
    });
  });
  const lot = lotId
    ? lots.nouveau({
        id: lotId,
        compte: requete.compte,
        outil: demande.outil,
        travaux: travaux.map((t) => t.id),
        cree_le: maintenant,
        ...(test ? { test: true as const } : {}),
      })
    : null;
  return { travaux, lot };
};

/**
 * Writes the images the request carried (not URLs, nor uploads: already in S3) where their jobs read
 * them (`groupes`: each job's images, in the jobs' order); answers their keys.
 */
const deposerEntrees = async (d: AvecObjets, travaux: readonly TravailNouveau[], groupes: ImagePrete[][]): Promise<string[]> => {
  const televersements = travaux.flatMap((travail, i) =>
    groupes[i]!.flatMap((image, rang) => {
      const entree = travail.entrees[rang];
      return 'octets' in image.entree && entree?.type === 's3' ? [{ cle: entree.cle, octets: image.entree.octets, format: image.entree.format }] : [];
    }),
  );
  await parPaquets(televersements, 8, async (t) => {
    await d.objets.deposer(t.cle, t.octets, TYPES_MIME[t.format]);
  });
  return televersements.map((t) => t.cle);
};

/** Uploads named by the request, checked against their records and S3 (televersements.ts). */
const resoudreTeleversements = async (
  d: DepsLancement,
  compte: string,
  pretes: ImagePrete[],
  echecs: EchecImage[],
): Promise<{ pretes: ImagePrete[]; echecs: EchecImage[] }> => {
  const nommes = pretes.flatMap((p) =>
    'televersement' in p.entree && !estTeleversee(p.entree) ? [{ index: p.index, id: p.entree.televersement, nom: p.nom }] : [],
  );
  if (nommes.length === 0) return { pretes, echecs };
  const { verifies, illisibles } = await verifierTeleversements(d, compte, nommes);
  const parIndex = new Map(verifies.map((t) => [t.index, t]));
  return {
    pretes: pretes.flatMap((p) => {
      if (!('televersement' in p.entree)) return [p];
      const t = parIndex.get(p.index);
      return t ? [{ index: p.index, nom: t.nom, entree: { cle: t.cle, format: t.format, televersement: t.id, etag: t.etag } }] : [];
    }),
    echecs: [...echecs, ...illisibles.map((i) => ({ index: i.index, code: 'invalid_image', message: i.message }))].sort((a, b) => a.index - b.index),
  };
};

const supprimerEntrees = async (d: AvecObjets, cles_: string[]): Promise<void> => {
  if (cles_.length === 0) return;
  try {
    await d.objets.supprimer(cles_);
  } catch (erreur) {
    // The inputs' lifecycle rule removes what is left here; the request itself already failed cleanly.
    await signaler('warn', 'could not delete inputs of a refused request', { erreur });
  }
};
