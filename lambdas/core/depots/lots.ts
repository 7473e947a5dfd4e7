/**
 * Batches (LOT#<id>): the record, its counters (`total`, `termines`, `echecs`, and `restants`, kept as
 * its own counter so that a condition can ask "is this batch over?": DynamoDB conditions have no
 * arithmetic), its place in the sweeper's `ouverts` index while `en_cours` (or while its ZIP is to be
 * written anew), and its claim.
 *
 * The claim (`finaliseur`, `reclame_jusqua`) says who may write the batch's ZIP (core/domaine/lots.ts), and
 * until when. It also locks the batch against an erasure (core/domaine/effacement/): while a ZIP is written
 * from its jobs, none of them can be erased. A claim whose holder died expires, and the next caller
 * takes it over.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { EnregistrementLot, StatutLot } from '../modele/enregistrements';
import { idsOuverts, OUVERTS, PREFIXES_TABLE, type DepsTable } from './table';
import { estConditionEchouee } from './transactions';

export const cleItem = (id: string) => ({ pk: `${PREFIXES_TABLE.lot}${id}`, sk: 'LOT' });

/** Longer than a ZIP may take (the FinaliserLot function's 10-minute timeout), so a live claim is never taken. */
export const DUREE_RECLAMATION_MS = 12 * 60_000;

/**
 * Who holds a batch's claim while erasing one of its jobs, or the whole batch (core/domaine/effacement/): a
 * name per erasure, so that two erasures never believe they both hold it, while the sweeper finishing
 * an erasure cut short (the same name) takes its claim over at once.
 */
export const effaceur = (id: string): string => `effacement:${id}`;
export const estEffaceur = (finaliseur: string | undefined): boolean => finaliseur?.startsWith('effacement:') ?? false;

/** No one holds the batch, or `:moi` does, or the holder's claim has expired (`:maintenant`, epoch ms). */
const RECLAMATION_LIBRE = '(attribute_not_exists(finaliseur) OR finaliseur = :moi OR attribute_not_exists(reclame_jusqua) OR reclame_jusqua < :maintenant)';

const dansOuverts = (lot: Pick<EnregistrementLot, 'id' | 'cree_le'>) => ({ gsi3pk: OUVERTS.lots, gsi3sk: `${lot.cree_le}#${lot.id}` });

/** A new batch's record: `en_cours`, every job still to end, no ZIP. */
export const nouveau = (champs: Pick<EnregistrementLot, 'id' | 'compte' | 'outil' | 'travaux' | 'cree_le' | 'test'>): EnregistrementLot => ({
  id: champs.id,
  compte: champs.compte,
  outil: champs.outil,
  total: champs.travaux.length,
  termines: 0,
  echecs: 0,
  restants: champs.travaux.length,
  statut: 'en_cours',
  travaux: champs.travaux,
  zip_cle: null,
  cree_le: champs.cree_le,
  termine_le: null,
  ...(champs.test ? { test: true as const } : {}),
});

/** The debit's transaction item that writes a batch (core/domaine/facturation.ts), in `ouverts` until it ends. */
export const elementCreer = (table: string, lot: EnregistrementLot, expire_a: number) => ({
  Put: {
    TableName: table,
    Item: { ...cleItem(lot.id), type: 'lot', ...lot, ...dansOuverts(lot), expire_a },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

export const lire = async (d: DepsTable, id: string): Promise<EnregistrementLot | undefined> => {
  const { Item } = await d.ddb.send(new GetCommand({ TableName: d.table, Key: cleItem(id), ConsistentRead: true }));
  return Item as EnregistrementLot | undefined;
};

/** A job of the batch ended (core/domaine/cycle.ts): its counters move in the job's own transaction. */
export const elementFinTravail = (table: string, id: string, issue: 'termines' | 'echecs', maintenant: Date) => ({
  Update: {
    TableName: table,
    Key: cleItem(id),
    UpdateExpression: `SET ${issue} = ${issue} + :un, restants = restants - :un, derniere_fin = :maintenant`,
    ExpressionAttributeValues: { ':un': 1, ':maintenant': maintenant.toISOString() },
  },
});

/**
 * Claims the batch for `qui` to write its ZIP: only once every job has ended, while the batch is
 * `en_cours` or its ZIP is to be written anew, and while no one else holds a live claim. False
 * when it cannot be claimed.
 */
export const reclamer = async (d: DepsTable, id: string, qui: string, maintenant: number): Promise<boolean> => {
  try {
    await d.ddb.send(
      new UpdateCommand({
        TableName: d.table,
        Key: cleItem(id),
        UpdateExpression: 'SET finaliseur = :moi, reclame_jusqua = :jusqua',
        // A retry by the same claimant goes through, and so does anyone once a claim has expired. An
        // ended batch is claimed again only to write its ZIP anew after an erasure.
        ConditionExpression: `restants = :zero AND (statut = :en_cours OR zip_a_refaire = :oui) AND ${RECLAMATION_LIBRE}`,
        ExpressionAttributeValues: {
          ':moi': qui,
          ':zero': 0,
          ':en_cours': 'en_cours',
          ':oui': true,
          ':jusqua': maintenant + DUREE_RECLAMATION_MS,
          ':maintenant': maintenant,
        },
      }),
    );
    return true;
  } catch (erreur) {
    if (estConditionEchouee(erreur)) return false;
    throw erreur;
  }
};

/**
 * Claims the batch for the erasure `qui`, whatever its state: taken from no one, from the same erasure
 * cut short earlier, or from a holder whose claim has expired. The batch as it is once claimed, or
 * who holds it; undefined when there is no such batch.
 */
export const reclamerPourEffacer = async (
  d: DepsTable,
  id: string,
  qui: string,
  maintenant: number,
): Promise<{ lot: EnregistrementLot } | { tenu_par: string | undefined } | undefined> => {
  try {
    const { Attributes } = await d.ddb.send(
      new UpdateCommand({
        TableName: d.table,
        Key: cleItem(id),
        UpdateExpression: 'SET finaliseur = :moi, reclame_jusqua = :jusqua',
        ConditionExpression: `attribute_exists(pk) AND ${RECLAMATION_LIBRE}`,
        ExpressionAttributeValues: { ':moi': qui, ':maintenant': maintenant, ':jusqua': maintenant + DUREE_RECLAMATION_MS },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { lot: Attributes as EnregistrementLot };
  } catch (erreur) {
    if (!estConditionEchouee(erreur)) throw erreur;
    // The item as it was comes back in DynamoDB's wire format: the document client does not convert it.
    const ancien = (erreur as { Item?: Record<string, { S?: string }> }).Item;
    return ancien ? { tenu_par: ancien.finaliseur?.S } : undefined;
  }
};

/** Gives `qui`'s claim back: whoever comes next need not wait for it to expire. Held by another: nothing. */
export const liberer = async (d: DepsTable, id: string, qui: string): Promise<void> => {
  await d.ddb
    .send(
      new UpdateCommand({
        TableName: d.table,
        Key: cleItem(id),
        UpdateExpression: 'REMOVE finaliseur, reclame_jusqua',
        ConditionExpression: 'finaliseur = :moi',
        ExpressionAttributeValues: { ':moi': qui },
      }),
    )
    .catch((erreur: unknown) => {
      if (!estConditionEchouee(erreur)) throw erreur;
    });
};

/**
 * Closes the batch `qui` holds, with its final state and ZIP (null: none), and releases the claim: its
 * jobs can be erased again; it leaves `ouverts`. `termine_le`: when it ended, for a batch that was
 * `en_cours` (a ZIP written anew keeps the batch's end date). False when `qui` no longer holds it
 * (its claim expired and another took the batch over).
 */
export const finaliser = async (
  d: DepsTable,
  id: string,
  qui: string,
  fin: { statut: StatutLot; zip_cle: string | null; termine_le: string | undefined },
): Promise<boolean> => {
  try {
    await d.ddb.send(
      new UpdateCommand({
        TableName: d.table,
        Key: cleItem(id),
        UpdateExpression: `SET statut = :statut, zip_cle = :zip${fin.termine_le !== undefined ? ', termine_le = :maintenant' : ''} REMOVE gsi3pk, gsi3sk, finaliseur, reclame_jusqua, zip_a_refaire`,
        ConditionExpression: 'finaliseur = :moi AND (statut = :en_cours OR zip_a_refaire = :oui)',
        ExpressionAttributeValues: {
          ':statut': fin.statut,
          ':zip': fin.zip_cle,
          ...(fin.termine_le !== undefined ? { ':maintenant': fin.termine_le } : {}),
          ':moi': qui,
          ':en_cours': 'en_cours',
          ':oui': true,
        },
      }),
    );
    return true;
  } catch (erreur) {
    if (estConditionEchouee(erreur)) return false;
    throw erreur;
  }
};

/**
 * The erasure's transaction item that takes job `id`, at `position` in the batch's list, out of a batch
 * the erasure `qui` holds, and releases the claim. The list's length (`taille`) is part of the guard:
 * two erasures removing different jobs from the same list would otherwise both pass (a lower index does
 * not move), and neither would see it was the last. An ended batch goes back to `ouverts`, its ZIP to
 * write anew without the job (core/domaine/lots.ts).
 */
export const elementRetirerTravail = (
  table: string,
  lot: Pick<EnregistrementLot, 'id' | 'cree_le' | 'statut'>,
  retrait: { id: string; position: number; taille: number; qui: string; termine: boolean; maintenant: Date },
) => {
  const ferme = lot.statut !== 'en_cours';
  const termine = retrait.termine ? 1 : 0;
  const { gsi3pk, gsi3sk } = dansOuverts(lot);
  return {
    Update: {
      TableName: table,
      Key: cleItem(lot.id),
      UpdateExpression: `SET #total = #total - :un, termines = termines - :t, echecs = echecs - :e${
        ferme ? ', zip_a_refaire = :oui, derniere_fin = :date, gsi3pk = :p, gsi3sk = :sk' : ''
      } REMOVE travaux[${retrait.position}], finaliseur, reclame_jusqua${ferme ? ', zip_cle' : ''}`,
      ConditionExpression: `travaux[${retrait.position}] = :id AND size(travaux) = :taille AND finaliseur = :moi`,
      ExpressionAttributeNames: { '#total': 'total' },
      ExpressionAttributeValues: {
        ':moi': retrait.qui,
        ':id': retrait.id,
        ':taille': retrait.taille,
        ':un': 1,
        ':t': termine,
        ':e': 1 - termine,
        ...(ferme ? { ':oui': true, ':date': retrait.maintenant.toISOString(), ':p': gsi3pk, ':sk': gsi3sk } : {}),
      },
    },
  };
};

/** The erasure's transaction item that deletes a batch whose last job `id` it erases, under the same guard. */
export const elementEffacerAvecDernier = (table: string, id: string, dernier: { id: string; taille: number; qui: string }) => ({
  Delete: {
    TableName: table,
    Key: cleItem(id),
    ConditionExpression: 'travaux[0] = :id AND size(travaux) = :taille AND finaliseur = :moi',
    ExpressionAttributeValues: { ':moi': dernier.qui, ':id': dernier.id, ':taille': dernier.taille },
  },
});

/** The erasure's transaction item that deletes a whole batch, last, while the erasure `qui` holds it. */
export const elementEffacer = (table: string, id: string, qui: string) => ({
  Delete: {
    TableName: table,
    Key: cleItem(id),
    ConditionExpression: 'finaliseur = :moi',
    ExpressionAttributeValues: { ':moi': qui },
  },
});

/** Ids of batches in `ouverts` created before `avant`, oldest first, at most `max`. */
export const ouverts = (d: DepsTable, avant: Date, max: number): AsyncGenerator<string> => idsOuverts(d, OUVERTS.lots, avant, max);
