/**
 * Idempotency records (IDEM#<account>#<key>): the hash of the request a key was first used with and
 * the answer given, written only in the debit's transaction (core/domaine/facturation.ts), gone through TTL
 * after 24 hours. Hashing and replay are core/domaine/idempotence.ts's.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { CONSERVATION_IDEMPOTENCE_HEURES } from '../modele/retention';
import { PREFIXES_TABLE, ttlDans, type DepsTable } from './table';
import { estConditionEchouee } from './transactions';

/** How long an `Idempotency-Key` is remembered. */
export const DUREE_IDEMPOTENCE_SECONDES = CONSERVATION_IDEMPOTENCE_HEURES * 3600;

export interface EnregistrementIdempotence {
  empreinte: string;
  /** The answer given; gone once the work was erased. */
  reponse?: string;
  efface_le?: string;
}

export const cleItem = (compte: string, cleIdempotence: string) => ({ pk: `${PREFIXES_TABLE.idempotence}${compte}#${cleIdempotence}`, sk: 'IDEM' });

export const lire = async (d: DepsTable, compte: string, cleIdempotence: string): Promise<EnregistrementIdempotence | undefined> => {
  const { Item } = await d.ddb.send(new GetCommand({ TableName: d.table, Key: cleItem(compte, cleIdempotence), ConsistentRead: true }));
  return Item as EnregistrementIdempotence | undefined;
};

/**
 * The key of erased work: its answer goes, the key and the request's hash stay until they expire.
 * Never creates a record: an expired key stays expired.
 */
export const marquerEfface = async (d: DepsTable, compte: string, cleIdempotence: string, effaceLe: Date): Promise<void> => {
  try {
    await d.ddb.send(
      new UpdateCommand({
        TableName: d.table,
        Key: cleItem(compte, cleIdempotence),
        UpdateExpression: 'SET efface_le = if_not_exists(efface_le, :maintenant) REMOVE reponse',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':maintenant': effaceLe.toISOString() },
      }),
    );
  } catch (erreur) {
    if (!estConditionEchouee(erreur)) throw erreur;
  }
};

/** The transaction item that remembers an answer, once: a second request with the key fails it. */
export const elementCreer = (table: string, compte: string, cleIdempotence: string, trace: { empreinte: string; reponse: string }, maintenant: Date) => ({
  Put: {
    TableName: table,
    Item: {
      ...cleItem(compte, cleIdempotence),
      type: 'idempotence',
      empreinte: trace.empreinte,
      reponse: trace.reponse,
      expire_a: ttlDans(maintenant, DUREE_IDEMPOTENCE_SECONDES),
    },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});
