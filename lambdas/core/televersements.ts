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
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import * as v from 'valibot';
import type { Dependances } from './dependances';
import * as comptes from './depots/comptes';
import { verifierDimensions } from './dimensions';
import { ErreurApi } from './erreurs';
import { detecterFormat, MAX_OCTETS_IMAGE, type FormatImage } from './images';
import { lireCorpsJson } from './json';
import { CATALOGUE } from './outils';
import { parPaquets } from './paquets';
import { cleTeleversement } from './cles-s3';
import { RETENTION_TELEVERSEMENTS_JOURS, UTILISATION_TELEVERSEMENT_MINUTES, VALIDITE_URL_TELEVERSEMENT_SECONDES } from './retention';
import { RequeteTeleversements, TYPES_TELEVERSEMENT } from './schemas';
import { cles, JOURS, OUVERTS, ttlDans } from './depots/table';
import { avecReessais } from './depots/transactions';

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

/**
 * `attendu`: announced, its job not started (or started by a one-image job whose claim is the job
 * itself: the sweeper then marks it `utilise`). `expire`: unused past its time, being removed.
 * `efface`: its job was erased while its URL may still put a file; removed with whatever was put.
 */
export type StatutTeleversement = 'attendu' | 'utilise' | 'expire' | 'efface';

export interface EnregistrementTeleversement {
  id: string;
  compte: string;
  /** S3 key: televersements/<account>/<id>. */
  cle: string;
  nom: string | null;
  /** The Content-Type and size announced, and signed into the URL. */
  type_contenu: string;
  taille: number;
  statut: StatutTeleversement;
  cree_le: string;
  /** After this, the upload cannot start a job any more; the sweeper removes it MARGE_RETRAIT_MS later. */
  utilisable_jusqua: string;
}

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

type Deps = Pick<Dependances, 'ddb' | 'table' | 'objets' | 'horloge'>;

/** In the sweeper's `ouverts` index until it is done with the upload, ordered by when that is due. */
const indexRetrait = (id: string, du: string) => ({ gsi3pk: OUVERTS.televersements, gsi3sk: `${du}#${id}` });

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

/** Why the account refused an announcement: no balance for a job, or too many uploads outstanding. */
const refusAnnonce = (compte: { credits?: number; televersements_ouverts?: number } | undefined, nombre: number): ErreurApi => {
  if (!compte) return new ErreurApi('unauthorized', 'The account of this key no longer exists.');
  const credits = Number(compte.credits ?? 0);
  if (credits < CREDITS_MIN_TELEVERSEMENT) {
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
  d: Deps,
  compte: string,
  contentType: string | undefined,
  corps: Buffer,
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
  try {
    await avecReessais(d, {
      TransactItems: [
        // Counted by the write that creates them: a burst of announcements cannot pass the cap together.
        comptes.elementAnnonceTeleversements(d.table, compte, {
          nombre: fichiers.length,
          creditsMin: CREDITS_MIN_TELEVERSEMENT,
          max: MAX_TELEVERSEMENTS_OUVERTS,
        }),
        ...enregistrements.map((t) => ({
          Put: {
            TableName: d.table,
            // gsi1: an account's erasure finds its uploads, used or not (core/effacement.ts).
            Item: {
              ...cles.televersement(t.id),
              type: 'televersement',
              ...t,
              gsi1pk: `COMPTE#${compte}`,
              gsi1sk: `TELEVERSEMENT#${t.cree_le}#${t.id}`,
              ...indexRetrait(t.id, t.utilisable_jusqua),
              expire_a: ttlDans(maintenant, RETENTION_TELEVERSEMENTS_JOURS * JOURS),
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        })),
      ],
    });
  } catch (erreur) {
    const raison = erreur instanceof TransactionCanceledException ? erreur.CancellationReasons?.[0] : undefined;
    if (raison?.Code !== 'ConditionalCheckFailed') throw erreur;
    // Cancellation reasons come back in DynamoDB's wire format: the document client does not convert them.
    throw refusAnnonce(raison.Item ? (unmarshall(raison.Item) as { credits?: number; televersements_ouverts?: number }) : undefined, fichiers.length);
  }
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
  // The record, and the item that marks the upload's use (see above).
  const lire = async (cle: { pk: string; sk: string }) => (await d.ddb.send(new GetCommand({ TableName: d.table, Key: cle, ConsistentRead: true }))).Item;
  const parId = new Map<string, { t?: EnregistrementTeleversement; utilise: boolean }>();
  await parPaquets(ids, 10, async (id) => {
    const [t, usage] = await Promise.all([lire(cles.televersement(id)), lire(cles.travail(id))]);
    parId.set(id, { t: t as EnregistrementTeleversement | undefined, utilise: usage !== undefined });
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
      illisibles.push({ index, message: debut.taille === 0 ? 'The uploaded file is empty.' : 'The uploaded file is not a JPEG, PNG or WebP image.' });
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
 * The debit's transaction item that uses an upload of a listing job, once: the claim TRAVAIL#<upload
 * id>, which fails if a job or another claim holds it. It lives as long as the job and goes with it.
 */
export const elementUtilisation = (table: string, compte: string, televersement: string, travail: string, expire_a: number) => ({
  Put: {
    TableName: table,
    Item: { ...cles.travail(televersement), type: 'utilisation', compte, televersement, travail, expire_a },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

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
  return {
    Put: {
      TableName: table,
      Item: {
        ...cles.televersement(id),
        type: 'televersement',
        id,
        compte,
        cle: cleTeleversement(compte, id),
        statut: 'efface' satisfies StatutTeleversement,
        // Due now when its URL is long dead; the sweeper waits MARGE_RETRAIT_MS past this.
        utilisable_jusqua: du,
        ...indexRetrait(id, du),
        expire_a: ttlDans(maintenant, RETENTION_TELEVERSEMENTS_JOURS * JOURS),
      },
    },
  };
};

export type IssueRetrait = 'retire' | 'utilise' | 'pas_encore' | 'absent';

const siCondition = (e: unknown): void => {
  if ((e as Error).name !== 'ConditionalCheckFailedException') throw e;
};

/**
 * The sweeper's part, and an account's erasure's: an upload no job used goes once it cannot be used any
 * more, uncounted from the account in the same transaction that marks it `expire` (or, for an erasure,
 * `efface`); then its object, then its record. An `efface` record, whose URL may still put a file,
 * has its object deleted at once and again once its URL is dead, and only then goes. An upload a job
 * used leaves the index as `utilise` (its job's erasure takes it). A removal cut short is finished by
 * the next call: `expire` and `efface` records stay in the index until they are gone.
 * `effacer`: the account is being erased, so an unused upload goes now, whatever its time.
 */
export const retirerTeleversement = async (d: Deps, id: string, options: { effacer?: boolean } = {}): Promise<IssueRetrait> => {
  const { Item } = await d.ddb.send(new GetCommand({ TableName: d.table, Key: cles.televersement(id), ConsistentRead: true }));
  let t = Item as EnregistrementTeleversement | undefined;
  if (!t) return 'absent';
  const maintenant = d.horloge();
  const du = (jusqua: string) => Date.parse(jusqua) + MARGE_RETRAIT_MS <= maintenant.getTime();
  if (t.statut === 'attendu') {
    if (!options.effacer && !du(t.utilisable_jusqua)) return 'pas_encore';
    // Erased: kept, nameless, until its URL is dead (it was signed at its announcement).
    const fin = options.effacer
      ? new Date(Math.max(Date.parse(t.cree_le) + VALIDITE_URL_TELEVERSEMENT_SECONDES * 1000, maintenant.getTime())).toISOString()
      : t.utilisable_jusqua;
    const statut: StatutTeleversement = options.effacer ? 'efface' : 'expire';
    const marquer = {
      TableName: d.table,
      Key: cles.televersement(id),
      UpdateExpression: 'SET statut = :statut, utilisable_jusqua = :fin, gsi3pk = :p, gsi3sk = :sk REMOVE nom',
      ConditionExpression: 'statut = :attendu',
      ExpressionAttributeValues: { ':statut': statut, ':attendu': 'attendu', ':fin': fin, ':p': OUVERTS.televersements, ':sk': indexRetrait(id, fin).gsi3sk },
    };
    try {
      await avecReessais(d, {
        TransactItems: [
          { Update: marquer },
          // Not used: no job, no claim holds it.
          { ConditionCheck: { TableName: d.table, Key: cles.travail(id), ConditionExpression: 'attribute_not_exists(pk)' } },
          comptes.elementRetraitTeleversement(d.table, t.compte),
        ],
      });
    } catch (erreur) {
      if (!(erreur instanceof TransactionCanceledException)) throw erreur;
      const [record, usage, compte] = erreur.CancellationReasons ?? [];
      if (usage?.Code === 'ConditionalCheckFailed') {
        // Used by a job, which counted it off in its debit: it leaves the index, its job's erasure takes it.
        await d.ddb
          .send(
            new UpdateCommand({
              TableName: d.table,
              Key: cles.televersement(id),
              UpdateExpression: 'SET statut = :utilise REMOVE gsi3pk, gsi3sk',
              ConditionExpression: 'statut = :attendu',
              ExpressionAttributeValues: { ':utilise': 'utilise', ':attendu': 'attendu' },
            }),
          )
          .catch(siCondition);
        return 'utilise';
      }
      // Changed meanwhile (another sweep, an erasure): read again on the next pass.
      if (record?.Code === 'ConditionalCheckFailed') return 'pas_encore';
      // An account without the counter (made before it) or erased: the upload goes all the same.
      if (compte?.Code !== 'ConditionalCheckFailed') throw erreur;
      await d.ddb.send(new UpdateCommand(marquer)).catch(siCondition);
    }
    t = { ...t, statut, utilisable_jusqua: fin };
  } else if (t.statut === 'utilise') {
    return 'utilise';
  }
  // Files first, records last: a removal cut short here is finished by the next pass.
  await d.objets.supprimer([t.cle]);
  if (t.statut === 'efface' && !du(t.utilisable_jusqua)) return 'pas_encore';
  await d.ddb
    .send(
      new DeleteCommand({
        TableName: d.table,
        Key: cles.televersement(id),
        ConditionExpression: 'statut IN (:expire, :efface)',
        ExpressionAttributeValues: { ':expire': 'expire', ':efface': 'efface' },
      }),
    )
    .catch(siCondition);
  return 'retire';
};

/** For tests and the admin CLI: an upload record as stored. */
export const lireTeleversement = async (d: Pick<Dependances, 'ddb' | 'table'>, id: string): Promise<EnregistrementTeleversement | undefined> =>
  (await d.ddb.send(new GetCommand({ TableName: d.table, Key: cles.televersement(id), ConsistentRead: true }))).Item as EnregistrementTeleversement | undefined;
