/**
 * Uploads (TELEVERSEMENT#<id>): one record per announced file, listed under its account (gsi1) so an
 * account's erasure finds them, and in the sweeper's `ouverts` index, ordered by when it is due, until
 * the sweeper is done with it; gone through TTL a day later at the latest. The account counts its
 * outstanding uploads (depots/comptes.ts): announcing and removing one move that count in the same
 * transaction. An upload's single use is a job's or a claim's item, TRAVAIL#<upload id>
 * (depots/travaux.ts). The checks and the rules are core/domaine/televersements.ts's.
 */
import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { cleTeleversement } from '../modele/cles-s3';
import { RETENTION_TELEVERSEMENTS_JOURS } from '../modele/retention';
import * as comptes from './comptes';
import { idsOuverts, INDEX, JOURS, OUVERTS, PREFIXES_TABLE, toutInterroger, ttlDans, type DepsTable } from './table';
import { avecReessais, raisonsAnnulation, estConditionEchouee } from './transactions';
import * as travaux from './travaux';

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

export const cleItem = (id: string) => ({ pk: `${PREFIXES_TABLE.televersement}${id}`, sk: 'TELEVERSEMENT' });

/** In the sweeper's `ouverts` index until it is done with the upload, ordered by when that is due. */
const indexRetrait = (id: string, du: string) => ({ gsi3pk: OUVERTS.televersements, gsi3sk: `${du}#${id}` });

const expireA = (maintenant: Date) => ttlDans(maintenant, RETENTION_TELEVERSEMENTS_JOURS * JOURS);

/** What the account was when it refused an announcement (undefined: no such account). */
export type CompteRefusant = { credits?: number; televersements_ouverts?: number } | undefined;

/**
 * Writes the announced uploads' records and counts them on the account, in one transaction, under the
 * account's conditions (depots/comptes.ts): refused, with the account as it was, when they failed.
 */
export const annoncer = async (
  d: DepsTable,
  compte: string,
  enregistrements: EnregistrementTeleversement[],
  limites: { creditsMin: number; max: number },
  maintenant: Date,
): Promise<{ refuse: false } | { refuse: true; compte: CompteRefusant }> => {
  try {
    await avecReessais(d, {
      TransactItems: [
        comptes.elementAnnonceTeleversements(d.table, compte, { nombre: enregistrements.length, ...limites }),
        ...enregistrements.map((t) => ({
          Put: {
            TableName: d.table,
            // gsi1: an account's erasure finds its uploads, used or not (core/domaine/effacement/).
            Item: {
              ...cleItem(t.id),
              type: 'televersement',
              ...t,
              gsi1pk: `COMPTE#${compte}`,
              gsi1sk: `TELEVERSEMENT#${t.cree_le}#${t.id}`,
              ...indexRetrait(t.id, t.utilisable_jusqua),
              expire_a: expireA(maintenant),
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        })),
      ],
    });
    return { refuse: false };
  } catch (erreur) {
    // The account is the first item: its condition is the only one a new record's can meet.
    const raison = raisonsAnnulation(erreur)?.[0];
    if (raison?.Code !== 'ConditionalCheckFailed') throw erreur;
    return { refuse: true, compte: raison.Item as CompteRefusant };
  }
};

export const lire = async (d: DepsTable, id: string): Promise<EnregistrementTeleversement | undefined> =>
  (await d.ddb.send(new GetCommand({ TableName: d.table, Key: cleItem(id), ConsistentRead: true }))).Item as EnregistrementTeleversement | undefined;

/** Every upload record of an account, used or not, all pages. */
export const duCompte = (d: DepsTable, compte: string): Promise<EnregistrementTeleversement[]> =>
  toutInterroger<EnregistrementTeleversement>(d, {
    IndexName: INDEX.parCompte,
    KeyConditionExpression: 'gsi1pk = :pk AND begins_with(gsi1sk, :prefixe)',
    ExpressionAttributeValues: { ':pk': `COMPTE#${compte}`, ':prefixe': 'TELEVERSEMENT#' },
  });

/**
 * The transaction item that leaves of an upload a record with no name, `efface`, in the sweeper's
 * index from `du` (when its URL can put no file any more), so that a file PUT with it is removed too.
 */
export const elementEfface = (table: string, compte: string, id: string, du: string, maintenant: Date) => ({
  Put: {
    TableName: table,
    Item: {
      ...cleItem(id),
      type: 'televersement',
      id,
      compte,
      cle: cleTeleversement(compte, id),
      statut: 'efface' satisfies StatutTeleversement,
      // Due now when its URL is long dead; the sweeper waits MARGE_RETRAIT_MS past this.
      utilisable_jusqua: du,
      ...indexRetrait(id, du),
      expire_a: expireA(maintenant),
    },
  },
});

const siCondition = (e: unknown): void => {
  if (!estConditionEchouee(e)) throw e;
};

/**
 * Marks an `attendu` upload `statut` (`expire`, or `efface` for an account's erasure), due `fin` in the
 * sweeper's index, and uncounts it from its account, in one transaction that holds only while no job
 * and no claim uses it. `utilise`: a job used it (it counted it off in its debit): the record is marked
 * so and leaves the index. `change`: the record changed meanwhile (another sweep, an erasure).
 */
export const marquerRetrait = async (
  d: DepsTable,
  t: Pick<EnregistrementTeleversement, 'id' | 'compte'>,
  statut: 'expire' | 'efface',
  fin: string,
): Promise<'marque' | 'utilise' | 'change'> => {
  const marquer = {
    TableName: d.table,
    Key: cleItem(t.id),
    UpdateExpression: 'SET statut = :statut, utilisable_jusqua = :fin, gsi3pk = :p, gsi3sk = :sk REMOVE nom',
    ConditionExpression: 'statut = :attendu',
    ExpressionAttributeValues: { ':statut': statut, ':attendu': 'attendu', ':fin': fin, ':p': OUVERTS.televersements, ':sk': indexRetrait(t.id, fin).gsi3sk },
  };
  try {
    await avecReessais(d, {
      // Not used: no job, no claim holds it.
      TransactItems: [{ Update: marquer }, travaux.elementNonUtilise(d.table, t.id), comptes.elementRetraitTeleversement(d.table, t.compte)],
    });
  } catch (erreur) {
    const raisons = raisonsAnnulation(erreur);
    if (!raisons) throw erreur;
    const [record, usage, compte] = raisons;
    if (usage?.Code === 'ConditionalCheckFailed') {
      // Used by a job, which counted it off in its debit: it leaves the index, its job's erasure takes it.
      await d.ddb
        .send(
          new UpdateCommand({
            TableName: d.table,
            Key: cleItem(t.id),
            UpdateExpression: 'SET statut = :utilise REMOVE gsi3pk, gsi3sk',
            ConditionExpression: 'statut = :attendu',
            ExpressionAttributeValues: { ':utilise': 'utilise', ':attendu': 'attendu' },
          }),
        )
        .catch(siCondition);
      return 'utilise';
    }
    if (record?.Code === 'ConditionalCheckFailed') return 'change';
    // An account without the counter (made before it) or erased: the upload goes all the same.
    if (compte?.Code !== 'ConditionalCheckFailed') throw erreur;
    await d.ddb.send(new UpdateCommand(marquer)).catch(siCondition);
  }
  return 'marque';
};

/** The record of a removed upload, last: only once it is `expire` or `efface`. */
export const supprimer = async (d: DepsTable, id: string): Promise<void> => {
  await d.ddb
    .send(
      new DeleteCommand({
        TableName: d.table,
        Key: cleItem(id),
        ConditionExpression: 'statut IN (:expire, :efface)',
        ExpressionAttributeValues: { ':expire': 'expire', ':efface': 'efface' },
      }),
    )
    .catch(siCondition);
};

/** Ids of uploads in `ouverts` due before `avant`, soonest first, at most `max`. */
export const ouverts = (d: DepsTable, avant: Date, max: number): AsyncGenerator<string> => idsOuverts(d, OUVERTS.televersements, avant, max);
