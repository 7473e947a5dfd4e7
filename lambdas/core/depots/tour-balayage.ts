/**
 * The sweeper's turn (TOUR#BALAYAGE): one item whose lease, `jusqua` and its holder's `jeton`, says
 * that a run is under way. A run that finds the lease held by another, still running, skips its minute.
 * Two sweepers at once would only race each other (every action is idempotent), but a reserved
 * concurrency of 1 kept them apart at the cost of the whole stack on a new account: Lambda refuses any
 * reservation that leaves fewer than 100 unreserved executions, and a new account's quota is often 10
 * (issue 40). A run that dies without giving its turn back holds it only until `jusqua`: its own timeout.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AvecTable } from '../infra/dependances';
import { PREFIXES_TABLE, type DepsTable } from './table';
import { ecritSi } from './transactions';

const CLE = { pk: `${PREFIXES_TABLE.tour}BALAYAGE`, sk: 'TOUR' };

/** Takes the turn until `jusqua` for `jeton`; false while another run's lease has not ended. */
export const prendre = (d: AvecTable, jeton: string, jusqua: Date): Promise<boolean> =>
  ecritSi(
    d.ddb.send(
      new UpdateCommand({
        TableName: d.table,
        Key: CLE,
        UpdateExpression: 'SET jusqua = :jusqua, jeton = :jeton',
        ConditionExpression: 'attribute_not_exists(jusqua) OR jusqua <= :maintenant',
        ExpressionAttributeValues: { ':jusqua': jusqua.toISOString(), ':jeton': jeton, ':maintenant': d.horloge().toISOString() },
      }),
    ),
  );

/** Gives the turn back, unless the lease ran out and another run holds it now. */
export const rendre = async (d: DepsTable, jeton: string): Promise<void> => {
  await ecritSi(
    d.ddb.send(
      new UpdateCommand({
        TableName: d.table,
        Key: CLE,
        UpdateExpression: 'REMOVE jusqua, jeton',
        ConditionExpression: 'jeton = :jeton',
        ExpressionAttributeValues: { ':jeton': jeton },
      }),
    ),
  );
};
