/**
 * Rate windows (CADENCE#<key hash>#<minute>): one counter per API key and calendar minute, gone through
 * TTL once the minute is long past. The limit itself is core/domaine/cadence.ts's. Beside them, per
 * key, the minute it was last used (CADENCE#<key hash> / UTILISATION), written by the first request of
 * each minute only: the key listing's "last used" costs at most one write a minute, and needs no
 * function that authenticates to write keys.
 */
import { BatchGetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { CONSERVATION_FENETRE_CADENCE_SECONDES } from '../modele/retention';
import { PREFIXES_TABLE, ttlDans, type DepsTable } from './table';
import { estConditionEchouee } from './transactions';

export const cleItem = (empreinte: string, minute: number) => ({ pk: `${PREFIXES_TABLE.cadence}${empreinte}#${minute}`, sk: 'CADENCE' });

const cleUtilisation = (empreinte: string) => ({ pk: `${PREFIXES_TABLE.cadence}${empreinte}`, sk: 'UTILISATION' });

/**
 * Counts one request in its key's window of `minute`, only while the window holds fewer than `max`:
 * the window's count with it, or undefined, counting nothing, when it is full. A refused request does not count.
 */
export const compter = async (d: DepsTable, empreinte: string, minute: number, max: number, maintenant: Date): Promise<number | undefined> => {
  try {
    const { Attributes } = await d.ddb.send(
      new UpdateCommand({
        TableName: d.table,
        Key: cleItem(empreinte, minute),
        UpdateExpression: 'ADD n :un SET expire_a = :ttl',
        ConditionExpression: 'attribute_not_exists(n) OR n < :max',
        ExpressionAttributeValues: { ':un': 1, ':max': max, ':ttl': ttlDans(maintenant, CONSERVATION_FENETRE_CADENCE_SECONDES) },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(Attributes?.n);
  } catch (erreur) {
    if (!estConditionEchouee(erreur)) throw erreur;
    return undefined;
  }
};

/** The key was used at `maintenant` (never moves back: a late writer of an older minute changes nothing). */
export const noterUtilisation = async (d: DepsTable, empreinte: string, maintenant: Date): Promise<void> => {
  try {
    await d.ddb.send(
      new UpdateCommand({
        TableName: d.table,
        Key: cleUtilisation(empreinte),
        UpdateExpression: 'SET utilisee_le = :t',
        ConditionExpression: 'attribute_not_exists(utilisee_le) OR utilisee_le < :t',
        ExpressionAttributeValues: { ':t': maintenant.toISOString() },
      }),
    );
  } catch (erreur) {
    if (!estConditionEchouee(erreur)) throw erreur;
  }
};

/** When each of these keys was last used (absent: never, or not since this was recorded). At most 100 keys. */
export const lireUtilisations = async (d: DepsTable, empreintes: readonly string[]): Promise<Map<string, string>> => {
  const resultat = new Map<string, string>();
  let cles: Record<string, unknown>[] = empreintes.map(cleUtilisation);
  while (cles.length > 0) {
    const { Responses, UnprocessedKeys } = await d.ddb.send(new BatchGetCommand({ RequestItems: { [d.table]: { Keys: cles } } }));
    for (const item of Responses?.[d.table] ?? []) {
      resultat.set(String(item.pk).slice(PREFIXES_TABLE.cadence.length), String(item.utilisee_le));
    }
    cles = UnprocessedKeys?.[d.table]?.Keys ?? [];
  }
  return resultat;
};
