/**
 * An account's webhook attempts in flight (CRENEAUX#<account>): one item per account whose attributes
 * are places, `p_<webhook>_<i>` for each endpoint (its own cap) and `c_<j>` for the account (its cap
 * across its endpoints). A place holds a lease, `<until>#<delivery>`: taken by an attempt, given back
 * when it ends, and free again once `until` has passed, so an attempt whose worker died never keeps it.
 * One item, so that a place of the endpoint and one of the account are taken together, in one
 * conditional write. Its rules: core/domaine/webhooks/livraison.ts.
 */
import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AvecTable } from '../infra/dependances';
import { ATTRIBUT_TTL, JOURS, PREFIXES_TABLE, ttlDans, type DepsTable } from './table';
import { ecritSi } from './transactions';

const cle = (compte: string) => ({ pk: `${PREFIXES_TABLE.creneau}${compte}`, sk: 'CRENEAUX' });

const placeDuPoint = (webhook: string, i: number) => `p_${webhook}_${i}`;
const placeDuCompte = (j: number) => `c_${j}`;

/** A lease: when it ends, and whose it is (so that only its holder gives it back). */
const bail = (jusqua: string, livraison: string) => `${jusqua}#${livraison}`;
const libre = (valeur: unknown, maintenant: string) => typeof valeur !== 'string' || valeur.slice(0, valeur.indexOf('#')) <= maintenant;

export interface Places {
  parPoint: number;
  parCompte: number;
}

/** The two places an attempt holds, to give back when it ends. */
export interface Creneau {
  compte: string;
  attributs: [string, string];
  bail: string;
}

/**
 * Takes a free place of the endpoint and one of the account for this attempt, until `jusqua`; undefined
 * when either is full (every place held by a lease still running). A race with another attempt is
 * read again, a few times: places change hands in milliseconds.
 */
export const prendre = async (
  d: AvecTable,
  a: { compte: string; webhook: string; livraison: string; jusqua: string },
  places: Places,
): Promise<Creneau | undefined> => {
  for (let essai = 0; essai < 4; essai++) {
    const maintenant = d.horloge().toISOString();
    const { Item = {} } = await d.ddb.send(new GetCommand({ TableName: d.table, Key: cle(a.compte), ConsistentRead: true }));
    const duPoint = Array.from({ length: places.parPoint }, (_, i) => placeDuPoint(a.webhook, i)).find((p) => libre(Item[p], maintenant));
    const duCompte = Array.from({ length: places.parCompte }, (_, j) => placeDuCompte(j)).find((p) => libre(Item[p], maintenant));
    if (!duPoint || !duCompte) return undefined;
    const valeur = bail(a.jusqua, a.livraison);
    const [luPoint, luCompte] = [Item[duPoint], Item[duCompte]];
    // Each place as it was read: free (absent), or holding the expired lease seen then.
    const tel = (nom: string, lu: unknown, valeurLue: string) => (lu === undefined ? `attribute_not_exists(${nom})` : `${nom} = ${valeurLue}`);
    const prise = await ecritSi(
      d.ddb.send(
        new UpdateCommand({
          TableName: d.table,
          Key: cle(a.compte),
          UpdateExpression: 'SET #p = :bail, #c = :bail, #ttl = :ttl',
          ConditionExpression: `${tel('#p', luPoint, ':luPoint')} AND ${tel('#c', luCompte, ':luCompte')}`,
          ExpressionAttributeNames: { '#p': duPoint, '#c': duCompte, '#ttl': ATTRIBUT_TTL },
          ExpressionAttributeValues: {
            ':bail': valeur,
            // The item goes by itself a day after its last attempt (an account's erasure deletes it at once).
            ':ttl': ttlDans(new Date(a.jusqua), JOURS),
            ...(luPoint === undefined ? {} : { ':luPoint': luPoint }),
            ...(luCompte === undefined ? {} : { ':luCompte': luCompte }),
          },
        }),
      ),
    );
    if (prise) return { compte: a.compte, attributs: [duPoint, duCompte], bail: valeur };
  }
  return undefined;
};

/** Gives the places back, unless their lease ran out and another attempt took them meanwhile. */
export const rendre = async (d: DepsTable, c: Creneau): Promise<void> => {
  for (const attribut of c.attributs) {
    await ecritSi(
      d.ddb.send(
        new UpdateCommand({
          TableName: d.table,
          Key: cle(c.compte),
          UpdateExpression: 'REMOVE #a',
          ConditionExpression: '#a = :bail',
          ExpressionAttributeNames: { '#a': attribut },
          ExpressionAttributeValues: { ':bail': c.bail },
        }),
      ),
    );
  }
};

/** An account's erasure: its places go with it. */
export const effacer = (d: DepsTable, compte: string) => d.ddb.send(new DeleteCommand({ TableName: d.table, Key: cle(compte) }));
