/**
 * Direct uploads (our extension): full-size photos go straight to S3, never through API Gateway
 * (10 MB) or a Lambda payload (6 MB).
 *
 *   POST /televersements {fichiers: [{nom, type, taille}]}  → one record and one signed PUT URL per file
 *   PUT <url> with that Content-Type and exactly that many bytes  → the object under the account's prefix
 *   POST /travaux with an image {"televersement": "<id>"}     → checked here, used once by the debit
 *
 * The URL signs the key, the Content-Type and the Content-Length, and lives 15 minutes: it can put
 * that one file and nothing else. S3 enforces those (and the local stack's front of s3rver,
 * local/s3-verifiant.ts); what is used is checked again anyway from the object itself (its size, and
 * its first bytes for the format and the pixel dimensions), and the job reads that very object (its
 * ETag, pipeline/outil.ts), not one PUT again over it afterwards.
 *
 * Uploads are not free storage. Announcing them needs a balance that pays for a job, and an account
 * has at most MAX_TELEVERSEMENTS_OUVERTS outstanding (announced, not yet used, not yet removed): the
 * account's `televersements_ouverts` counts them, moved in the same transaction as what announces,
 * uses or removes one, so it stays exact under races and retries. An upload not used within
 * UTILISATION_TELEVERSEMENT_MINUTES is removed, object and record, by the sweeper (`retirer`).
 *
 * One upload, one job: the item TRAVAIL#<upload id> is the upload's single use. A one-image job takes
 * the upload's id as its own; a listing job (up to 6 photos, one job) writes a claim at that key for
 * each of its uploads. Either is a Put that fails when the item exists, in the debit's transaction
 * (facturation.ts): two requests racing for one upload, whatever their tools, cannot both win. (An
 * update of the upload's own record as well would not fit DynamoDB's 100 actions for a batch of 50.)
 */
import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import type { AvecObjets, AvecTable } from '../infra/dependances';
import * as depot from '../depots/televersements';
import type { CompteRefusant, EnregistrementTeleversement } from '../depots/televersements';
import * as travaux from '../depots/travaux';
import { verifierDimensions } from '../modele/dimensions';
import { ErreurApi, soldeNegatif } from '../modele/erreurs';
import { detecterFormat, MAX_OCTETS_IMAGE, messageIllisible, type FormatImage } from '../modele/images';
import { lireCorpsDeTypeJson } from '../contrat/json';
import { CATALOGUE } from '../modele/outils';
import { parPaquets } from '../infra/paquets';
import { cleTeleversement } from '../modele/cles-s3';
import { UTILISATION_TELEVERSEMENT_MINUTES, VALIDITE_URL_TELEVERSEMENT_SECONDES } from '../modele/retention';
import { RequeteTeleversements, TYPES_TELEVERSEMENT } from '../contrat/schemas';

/** Outstanding uploads an account may have (announced, not yet used or removed). */
export const MAX_TELEVERSEMENTS_OUVERTS = 100;
/** What a client told "too many outstanding uploads" should wait: uploads are used or expire meanwhile. */
const ATTENTE_TELEVERSEMENTS_SECONDES = 60;
/** The balance an account needs to announce uploads: what its cheapest job costs. */
export const CREDITS_MIN_TELEVERSEMENT = Math.min(...Object.values(CATALOGUE).map((o) => o.cout));
/**
 * The sweeper removes an upload this long after it stopped being usable: longer than a POST /travaux
 * that checked it in time can take to commit its debit (API Gateway gives up at 29 s, and the debit is
 * never sent past the request's deadline: facturation.ts), so no job can start from a removed upload.
 */
export const MARGE_RETRAIT_MS = 2 * 60_000;

export interface Televersement {
  id: string;
  url: string;
  methode: 'PUT';
  entetes: { 'Content-Type': string };
  expire_le: string;
  /** Our answer's addition: the last moment a POST /travaux can name this upload. */
  utilisable_jusqua: string;
}

/** Enough to read any JPEG's frame header behind its EXIF and thumbnail, PNG's or WebP's. */
export const OCTETS_ENTETE = 512 * 1024;

/** Uploads: their records, and their objects (presigned PUTs, first bytes read, deletes). */
export type DepsTeleversements = AvecTable & AvecObjets;

const lireAnnonce = async (contentType: string | undefined, corps: Buffer) => {
  const resultat = v.safeParse(RequeteTeleversements, lireCorpsDeTypeJson(contentType, corps));
  // The wording (contrat/messages/televersements.ts) is imported when a body is refused, not at every cold start.
  if (!resultat.success) throw (await import('../contrat/messages/televersements')).refusTeleversements(resultat.issues, TYPES_TELEVERSEMENT);
  const fichiers = resultat.output.fichiers;
  fichiers.forEach((f, index) => {
    if (f.taille > MAX_OCTETS_IMAGE) {
      const chemin = `fichiers[${index}].taille`;
      const message = `${chemin} is ${f.taille} bytes; an image is at most 15 MB (${MAX_OCTETS_IMAGE} bytes)`;
      throw new ErreurApi('image_too_large', message, { index, taille: f.taille, max_octets: MAX_OCTETS_IMAGE, details: [{ chemin, message }] });
    }
  });
  return fichiers;
};

/** Why the account refused an announcement: no balance for a job, or too many uploads outstanding. */
const refusAnnonce = (compte: CompteRefusant, nombre: number, creditsMin: number): ErreurApi => {
  if (!compte) return new ErreurApi('unauthorized', 'The account of this key no longer exists.');
  const credits = Number(compte.credits ?? 0);
  // Below zero, even a test key's uploads are refused (its condition is credits >= 0): not a matter of price.
  if (credits < 0) {
    return new ErreurApi('insufficient_credits', `Uploads are for jobs, and the balance is ${soldeNegatif(credits)}`, { credits, requis: creditsMin });
  }
  if (credits < creditsMin) {
    return new ErreurApi(
      'insufficient_credits',
      `Uploads are for jobs, and the balance is ${credits} credits: the cheapest job costs ${CREDITS_MIN_TELEVERSEMENT}. Buy credits before uploading.`,
      { credits, requis: CREDITS_MIN_TELEVERSEMENT },
    );
  }
  const ouverts = Number(compte.televersements_ouverts ?? 0);
  return new ErreurApi(
    'too_many_pending_uploads',
    `At most ${MAX_TELEVERSEMENTS_OUVERTS} uploads may wait to be used per account; ${ouverts} are waiting and this request announces ${nombre}. ` +
      `Start jobs with them, or let unused ones expire (${UTILISATION_TELEVERSEMENT_MINUTES} minutes after they were announced).`,
    { televersements_ouverts: ouverts, max: MAX_TELEVERSEMENTS_OUVERTS, retry_after: ATTENTE_TELEVERSEMENTS_SECONDES },
    { 'Retry-After': String(ATTENTE_TELEVERSEMENTS_SECONDES) },
  );
};

/** `POST /televersements`: one record and one signed PUT URL per announced file, in order. */
export const creerTeleversements = async (
  d: DepsTeleversements,
  compte: string,
  contentType: string | undefined,
  corps: Buffer,
  options: { test?: boolean } = {},
): Promise<{ televersements: Televersement[] }> => {
  const fichiers = await lireAnnonce(contentType, corps);
  const maintenant = d.horloge();
  const expire_le = new Date(maintenant.getTime() + VALIDITE_URL_TELEVERSEMENT_SECONDES * 1000).toISOString();
  const utilisable_jusqua = new Date(maintenant.getTime() + UTILISATION_TELEVERSEMENT_MINUTES * 60_000).toISOString();
  const enregistrements: EnregistrementTeleversement[] = fichiers.map((f) => {
    const id = randomUUID();
    return {
      id,
      compte,
      cle: cleTeleversement(compte, id),
      nom: f.nom ?? null,
      type_contenu: f.type,
      taille: f.taille,
      statut: 'attendu',
      cree_le: maintenant.toISOString(),
      utilisable_jusqua,
    };
  });
  // A test key's jobs are free: its uploads need no balance (the cap of outstanding uploads still holds).
  const creditsMin = options.test ? 0 : CREDITS_MIN_TELEVERSEMENT;
  const annonce = await depot.annoncer(d, compte, enregistrements, { creditsMin, max: MAX_TELEVERSEMENTS_OUVERTS }, maintenant);
  if (annonce.refuse) throw refusAnnonce(annonce.compte, fichiers.length, creditsMin);
  const televersements = await Promise.all(
    enregistrements.map(async (t): Promise<Televersement> => ({
      id: t.id,
      // Content-Type and Content-Length signed: the URL accepts exactly the announced file.
      url: await d.objets.urlDepot(t.cle, t.type_contenu, t.taille, VALIDITE_URL_TELEVERSEMENT_SECONDES),
      methode: 'PUT',
      entetes: { 'Content-Type': t.type_contenu },
      expire_le,
      utilisable_jusqua,
    })),
  );
  return { televersements };
};

export interface TeleversementVerifie {
  index: number;
  id: string;
  cle: string;
  nom: string | null;
  format: FormatImage;
  /** Of the object whose first bytes were checked here. */
  etag: string;
}

const refuse = (index: number, id: string, raison: string, message: string) =>
  new ErreurApi('invalid_image', `Image ${index}: ${message}`, { index, televersement: id, raison });

/**
 * Checks the uploads a request names: the caller's own (another account's is answered like an
 * unknown one), arrived, unused, still usable, at most 15 MB and 50 MP. A problem is a 422 naming
 * the image and the reason, before anything is charged. Bytes that are no image are that image's
 * failure (listed in `echecs`, like inline bytes). The debit then uses them, atomically.
 */
export const verifierTeleversements = async (
  d: DepsTeleversements,
  compte: string,
  demandes: { index: number; id: string; nom: string | null }[],
): Promise<{ verifies: TeleversementVerifie[]; illisibles: { index: number; message: string }[] }> => {
  if (demandes.length === 0) return { verifies: [], illisibles: [] };
  const ids = [...new Set(demandes.map((t) => t.id))];
  if (ids.length < demandes.length) {
    const double = demandes.find((t, i) => demandes.findIndex((u) => u.id === t.id) !== i)!;
    throw refuse(double.index, double.id, 'deja_utilise', `the upload ${double.id} is given twice; an upload starts one job.`);
  }
  // The record, and the item that marks the upload's use (see above).
  const parId = new Map<string, { t?: EnregistrementTeleversement; utilise: boolean }>();
  await parPaquets(ids, 10, async (id) => {
    const [t, utilise] = await Promise.all([depot.lire(d, id), travaux.estUtilise(d, id)]);
    parId.set(id, { t, utilise });
  });
  const maintenant = d.horloge().toISOString();
  const verifies: TeleversementVerifie[] = [];
  const illisibles: { index: number; message: string }[] = [];
  for (const { index, id, nom } of demandes) {
    const { t, utilise } = parId.get(id) ?? { utilise: false };
    if (!t || t.compte !== compte || t.statut === 'efface') throw refuse(index, id, 'inconnu', `no upload ${id} for this account.`);
    if (t.statut === 'utilise' || utilise) throw refuse(index, id, 'deja_utilise', `the upload ${id} was already used by a job; upload the file again.`);
    if (t.statut === 'expire' || t.utilisable_jusqua < maintenant) {
      throw refuse(
        index,
        id,
        'expire',
        `the upload ${id} has expired (an upload starts a job within ${UTILISATION_TELEVERSEMENT_MINUTES} minutes of its announcement); upload the file again.`,
      );
    }
    const debut = await d.objets.lireDebut(t.cle, OCTETS_ENTETE);
    if (!debut) throw refuse(index, id, 'non_recu', `the file of upload ${id} has not arrived: PUT it to the upload's url first.`);
    if (debut.taille > MAX_OCTETS_IMAGE) {
      throw new ErreurApi('image_too_large', `Image ${index}: the upload is larger than 15 MB.`, { index, televersement: id, max_octets: MAX_OCTETS_IMAGE });
    }
    const format = detecterFormat(debut.octets);
    if (!format) {
      // An empty object has no first bytes: messageIllisible says it is empty.
      illisibles.push({ index, message: messageIllisible(debut.octets, 'The uploaded file') });
      continue;
    }
    verifierDimensions(debut.octets, index);
    // S3 always answers an ETag; without one, what the job will read could not be tied to what was checked.
    if (!debut.etag) throw new Error(`no ETag for upload ${id}`);
    verifies.push({ index, id, cle: t.cle, nom: nom ?? t.nom, format, etag: debut.etag });
  }
  return { verifies, illisibles };
};

/**
 * What an erasure leaves of an upload its job used: a record with no name, in the sweeper's index
 * until the upload's URL can put no file any more, so that a file PUT with it after the erasure is
 * removed too. Its URL expired at the latest VALIDITE_URL after the job's creation (the upload was
 * announced before the job).
 */
export const elementTeleversementEfface = (table: string, compte: string, id: string, apres: string, maintenant: Date) => {
  // `apres`: the job's creation, or the upload's own announcement: its URL was signed no later.
  const urlMorte = new Date(Date.parse(apres) + VALIDITE_URL_TELEVERSEMENT_SECONDES * 1000);
  const du = new Date(Math.max(urlMorte.getTime(), maintenant.getTime())).toISOString();
  return depot.elementEfface(table, compte, id, du, maintenant);
};

export type IssueRetrait = 'retire' | 'utilise' | 'pas_encore' | 'absent';

/**
 * The sweeper's part, and an account's erasure's: an upload no job used goes once it cannot be used any
 * more, uncounted from the account in the same transaction that marks it `expire` (or, for an erasure,
 * `efface`); then its object, then its record. An `efface` record, whose URL may still put a file,
 * has its object deleted at once and again once its URL is dead, and only then goes. An upload a job
 * used leaves the index as `utilise` (its job's erasure takes it). A removal cut short is finished by
 * the next call: `expire` and `efface` records stay in the index until they are gone.
 * `effacer`: the account is being erased, so an unused upload goes now, whatever its time.
 */
export const retirerTeleversement = async (d: DepsTeleversements, id: string, options: { effacer?: boolean } = {}): Promise<IssueRetrait> => {
  let t = await depot.lire(d, id);
  if (!t) return 'absent';
  const maintenant = d.horloge();
  const du = (jusqua: string) => Date.parse(jusqua) + MARGE_RETRAIT_MS <= maintenant.getTime();
  if (t.statut === 'attendu') {
    if (!options.effacer && !du(t.utilisable_jusqua)) return 'pas_encore';
    // Erased: kept, nameless, until its URL is dead (it was signed at its announcement).
    const fin = options.effacer
      ? new Date(Math.max(Date.parse(t.cree_le) + VALIDITE_URL_TELEVERSEMENT_SECONDES * 1000, maintenant.getTime())).toISOString()
      : t.utilisable_jusqua;
    const statut = options.effacer ? 'efface' : 'expire';
    const marque = await depot.marquerRetrait(d, t, statut, fin);
    if (marque === 'utilise') return 'utilise';
    // Changed meanwhile (another sweep, an erasure): read again on the next pass.
    if (marque === 'change') return 'pas_encore';
    t = { ...t, statut, utilisable_jusqua: fin };
  } else if (t.statut === 'utilise') {
    return 'utilise';
  }
  // Files first, records last: a removal cut short here is finished by the next pass.
  await d.objets.supprimer([t.cle]);
  if (t.statut === 'efface' && !du(t.utilisable_jusqua)) return 'pas_encore';
  await depot.supprimer(d, id);
  return 'retire';
};
