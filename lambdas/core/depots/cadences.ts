/**
 * Rate windows (CADENCE#<key hash>#<minute>): one counter per API key and calendar minute, gone through
 * TTL once the minute is long past. The limit itself is core/domaine/cadence.ts's.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { CONSERVATION_FENETRE_CADENCE_SECONDES } from '../modele/retention';
import { PREFIXES_TABLE, ttlDans, type DepsTable } from './table';
import { estConditionEchouee } from './transactions';

export const cleItem = (empreinte: string, minute: number) => ({ pk: `${PREFIXES_TABLE.cadence}${empreinte}#${minute}`, sk: 'CADENCE' });

/**
 * Counts one request in its key's window of `minute`, only while the window holds fewer than `max`:
 * false, counting nothing, when it is full. A refused request does not count.
 */
export const compter = async (d: DepsTable, empreinte: string, minute: number, max: number, maintenant: Date): Promise<boolean> => {
  try {
    await d.ddb.send(
      new UpdateCommand({
        TableName: d.table,
        Key: cleItem(empreinte, minute),
        UpdateExpression: 'ADD n :un SET expire_a = :ttl',
        ConditionExpression: 'attribute_not_exists(n) OR n < :max',
        ExpressionAttributeValues: { ':un': 1, ':max': max, ':ttl': ttlDans(maintenant, CONSERVATION_FENETRE_CADENCE_SECONDES) },
      }),
    );
    return true;
  } catch (erreur) {
    if (!estConditionEchouee(erreur)) throw erreur;
    return false;
  }
};
