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
 * local/s3-verifiant.ts); what is used is checked again anyway from the object itself (its size, and its first bytes for the format and
 * the pixel dimensions). An upload is used by one job at most, decided by the debit's transaction
 * (facturation.ts), so two requests racing for it cannot both win: a one-image job takes the upload's
 * id as its own, and a job id is written once; an `annonce` job (up to 6 photos) marks each upload
 * used under the condition that it was not. (One item per upload in the transaction would not fit
 * DynamoDB's 100 actions for a batch of 50.)
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { Dependances } from './dependances';
import { verifierDimensions } from './dimensions';
import { ErreurApi } from './erreurs';
import { detecterFormat, MAX_OCTETS_IMAGE, type FormatImage } from './images';
import { lireCorpsJson } from './json';
import { parPaquets } from './paquets';
import { cleTeleversement } from './cles-s3';
import { RETENTION_TELEVERSEMENTS_JOURS, UTILISATION_TELEVERSEMENT_HEURES, VALIDITE_URL_TELEVERSEMENT_SECONDES } from './retention';
import { RequeteTeleversements, TYPES_TELEVERSEMENT } from './schemas';
import { cles, JOURS, ttlDans } from './table';

export interface EnregistrementTeleversement {
  id: string;
  compte: string;
  /** S3 key: televersements/<account>/<id>. */
  cle: string;
  nom: string | null;
  /** The Content-Type and size announced, and signed into the URL. */
  type_contenu: string;
  taille: number;
  statut: 'attendu' | 'utilise';
  cree_le: string;
  /** After this, the upload cannot start a job any more (its object is deleted a day later). */
  utilisable_jusqua: string;
  /** The job that used it. */
  travail?: string;
}

export interface Televersement {
  id: string;
  url: string;
  methode: 'PUT';
  entetes: { 'Content-Type': string };
  expire_le: string;
}

/** Enough to read any JPEG's frame header behind its EXIF and thumbnail, PNG's or WebP's. */
export const OCTETS_ENTETE = 512 * 1024;


type Deps = Pick<Dependances, 'ddb' | 'table' | 'objets' | 'horloge'>;

const lireAnnonce = async (contentType: string | undefined, corps: Buffer) => {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json' && !type.endsWith('+json')) {
    throw new ErreurApi('unsupported_media_type', `Content-Type must be application/json${type ? `, not ${type}` : ''}.`);
  }
  const resultat = v.safeParse(RequeteTeleversements, lireCorpsJson(corps));
  // The wording (messages.ts) is imported when a body is refused, not at every cold start.
  if (!resultat.success) throw (await import('./messages')).refusTeleversements(resultat.issues, TYPES_TELEVERSEMENT);
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

/** `POST /televersements`: one record and one signed PUT URL per announced file, in order. */
export const creerTeleversements = async (d: Deps, compte: string, contentType: string | undefined, corps: Buffer): Promise<{ televersements: Televersement[] }> => {
  const fichiers = await lireAnnonce(contentType, corps);
  const maintenant = d.horloge();
  const expire_le = new Date(maintenant.getTime() + VALIDITE_URL_TELEVERSEMENT_SECONDES * 1000).toISOString();
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
      utilisable_jusqua: new Date(maintenant.getTime() + UTILISATION_TELEVERSEMENT_HEURES * 3600_000).toISOString(),
    };
  });
  await d.ddb.send(
    new TransactWriteCommand({
      TransactItems: enregistrements.map((t) => ({
        Put: {
          TableName: d.table,
          // gsi1: an account's erasure finds its uploads, used or not (core/effacement.ts).
          Item: { ...cles.televersement(t.id), type: 'televersement', ...t, gsi1pk: `COMPTE#${compte}`, gsi1sk: `TELEVERSEMENT#${t.cree_le}#${t.id}`, expire_a: ttlDans(maintenant, RETENTION_TELEVERSEMENTS_JOURS * JOURS) },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      })),
    }),
  );
  const televersements = await Promise.all(
    enregistrements.map(async (t): Promise<Televersement> => ({
      id: t.id,
      // Content-Type and Content-Length signed: the URL accepts exactly the announced file.
      url: await d.objets.urlDepot(t.cle, t.type_contenu, t.taille, VALIDITE_URL_TELEVERSEMENT_SECONDES),
      methode: 'PUT',
      entetes: { 'Content-Type': t.type_contenu },
      expire_le,
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
}

const refuse = (index: number, id: string, raison: string, message: string) =>
  new ErreurApi('invalid_image', `Image ${index}: ${message}`, { index, televersement: id, raison });

/**
 * Checks the uploads a request names: the caller's own (another account's is answered like an
 * unknown one), arrived, unused, still usable, at most 15 MB and 50 MP. A problem is a 422 naming
 * the image and the reason, before anything is charged. Bytes that are no image are that image's
 * failure (listed in `echecs`, like inline bytes). The debit then marks them used, atomically.
 */
export const verifierTeleversements = async (
  d: Deps,
  compte: string,
  demandes: { index: number; id: string; nom: string | null }[],
): Promise<{ verifies: TeleversementVerifie[]; illisibles: { index: number; message: string }[] }> => {
  if (demandes.length === 0) return { verifies: [], illisibles: [] };
  const ids = [...new Set(demandes.map((t) => t.id))];
  if (ids.length < demandes.length) {
    const double = demandes.find((t, i) => demandes.findIndex((u) => u.id === t.id) !== i)!;
    throw refuse(double.index, double.id, 'deja_utilise', `the upload ${double.id} is given twice; an upload starts one job.`);
  }
  // The record, and the job that may already carry the upload's id (see above).
  const lire = async (cle: { pk: string; sk: string }) => (await d.ddb.send(new GetCommand({ TableName: d.table, Key: cle, ConsistentRead: true }))).Item;
  const parId = new Map<string, { t?: EnregistrementTeleversement; travail: boolean }>();
  await parPaquets(ids, 10, async (id) => {
    const [t, travail] = await Promise.all([lire(cles.televersement(id)), lire(cles.travail(id))]);
    parId.set(id, { t: t as EnregistrementTeleversement | undefined, travail: travail !== undefined });
  });
  const maintenant = d.horloge().toISOString();
  const verifies: TeleversementVerifie[] = [];
  const illisibles: { index: number; message: string }[] = [];
  for (const { index, id, nom } of demandes) {
    const { t, travail } = parId.get(id) ?? { travail: false };
    if (!t || t.compte !== compte) throw refuse(index, id, 'inconnu', `no upload ${id} for this account.`);
    if (t.statut === 'utilise' || travail) throw refuse(index, id, 'deja_utilise', `the upload ${id} was already used by a job; upload the file again.`);
    if (t.utilisable_jusqua < maintenant) throw refuse(index, id, 'expire', `the upload ${id} has expired (usable ${UTILISATION_TELEVERSEMENT_HEURES} hours); upload the file again.`);
    const debut = await d.objets.lireDebut(t.cle, OCTETS_ENTETE);
    if (!debut) throw refuse(index, id, 'non_recu', `the file of upload ${id} has not arrived: PUT it to the upload's url first.`);
    if (debut.taille > MAX_OCTETS_IMAGE) {
      throw new ErreurApi('image_too_large', `Image ${index}: the upload is larger than 15 MB.`, { index, televersement: id, max_octets: MAX_OCTETS_IMAGE });
    }
    const format = detecterFormat(debut.octets);
    if (!format) {
      illisibles.push({ index, message: debut.taille === 0 ? 'The uploaded file is empty.' : 'The uploaded file is not a JPEG, PNG or WebP image.' });
      continue;
    }
    verifierDimensions(debut.octets, index);
    verifies.push({ index, id, cle: t.cle, nom: nom ?? t.nom, format });
  }
  return { verifies, illisibles };
};

/** The debit's transaction item that uses an upload of an `annonce` job, once: it fails if the upload was used meanwhile. */
export const elementUtilisation = (table: string, compte: string, id: string, travail: string, maintenant: Date) => ({
  Update: {
    TableName: table,
    Key: cles.televersement(id),
    UpdateExpression: 'SET statut = :utilise, travail = :travail, utilise_le = :maintenant',
    ConditionExpression: 'statut = :attendu AND compte = :compte',
    ExpressionAttributeValues: { ':utilise': 'utilise', ':attendu': 'attendu', ':compte': compte, ':travail': travail, ':maintenant': maintenant.toISOString() },
  },
});
