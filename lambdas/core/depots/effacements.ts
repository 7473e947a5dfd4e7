/**
 * Erasure requests (EFFACEMENT#<job or batch id>): recorded before an erasure starts, in the `ouverts`
 * index while pending, so that whatever stops the erasure, the sweeper finishes it; deleted with the
 * last records of what they erase. The erasure itself is core/domaine/effacement/'s.
 */
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { idsOuverts, lireParCles, OUVERTS, PREFIXES_TABLE, type DepsTable } from './table';
import { estConditionEchouee } from './transactions';

export interface DemandeEffacement {
  quoi: 'travail' | 'lot';
  id: string;
  compte: string;
  demande_le: string;
}

export const cleItem = (id: string) => ({ pk: `${PREFIXES_TABLE.effacement}${id}`, sk: 'EFFACEMENT' });

/** Records the request once (asked twice: the first request stands), in the sweeper's `ouverts` index. */
export const demander = async (d: DepsTable, demande: DemandeEffacement): Promise<void> => {
  try {
    await d.ddb.send(
      new PutCommand({
        TableName: d.table,
        Item: {
          ...cleItem(demande.id),
          type: 'effacement',
          quoi: demande.quoi,
          id: demande.id,
          compte: demande.compte,
          demande_le: demande.demande_le,
          gsi3pk: OUVERTS.effacements,
          gsi3sk: `${demande.demande_le}#${demande.id}`,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (erreur) {
    if (!estConditionEchouee(erreur)) throw erreur;
  }
};

export const lire = async (d: DepsTable, id: string): Promise<DemandeEffacement | undefined> => {
  const { Item } = await d.ddb.send(new GetCommand({ TableName: d.table, Key: cleItem(id), ConsistentRead: true }));
  return Item as DemandeEffacement | undefined;
};

/** A request with nothing left to erase. */
export const supprimer = async (d: DepsTable, id: string): Promise<void> => {
  await d.ddb.send(new DeleteCommand({ TableName: d.table, Key: cleItem(id) }));
};

/** The transaction item that deletes the request with the last records of what it erases. */
export const elementSupprimer = (table: string, id: string) => ({ Delete: { TableName: table, Key: cleItem(id) } });

/** Those of these ids whose erasure is recorded and not yet done. */
export const enAttente = async (d: DepsTable, ids: readonly string[]): Promise<Set<string>> =>
  new Set(
    (
      await lireParCles<{ id: string }>(
        d,
        ids.map((id) => cleItem(id)),
        'id',
      )
    ).map((e) => e.id),
  );

/** Ids of pending requests asked before `avant`, oldest first, at most `max`. */
export const ouvertes = (d: DepsTable, avant: Date, max: number): AsyncGenerator<string> => idsOuverts(d, OUVERTS.effacements, avant, max);
