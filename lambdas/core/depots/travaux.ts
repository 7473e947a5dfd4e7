/**
 * Jobs (TRAVAIL#<id>): a job's record and its states `en_attente` → `en_cours` → `termine` | `echec`,
 * each move a conditional write on the current state, so that a step retried after it took effect,
 * or repeated by the sweeper, changes nothing the second time. A job is listed under its account
 * (gsi1) and under its account and tool (gsi2), and stays in the sweeper's `ouverts` index (gsi3)
 * until it ends.
 *
 * The same key space holds a listing job's claim on each upload it uses (TRAVAIL#<upload id>, type
 * `utilisation`): a job written once, or a claim, is an upload's single use (core/televersements.ts).
 * A claim is no job: `lire` never returns one.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { PREFIXES_TABLE, type DepsTable } from './table';

export const cle = (id: string) => ({ pk: `${PREFIXES_TABLE.travail}${id}`, sk: 'TRAVAIL' });

/**
 * The debit's transaction item that uses an upload of a listing job, once: the claim TRAVAIL#<upload
 * id>, which fails if a job or another claim holds it. It lives as long as the job and goes with it.
 */
export const elementUtilisation = (table: string, compte: string, televersement: string, travail: string, expire_a: number) => ({
  Put: {
    TableName: table,
    Item: { ...cle(televersement), type: 'utilisation', compte, televersement, travail, expire_a },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

/** The transaction item that holds only while no job and no claim uses this upload id. */
export const elementNonUtilise = (table: string, televersement: string) => ({
  ConditionCheck: { TableName: table, Key: cle(televersement), ConditionExpression: 'attribute_not_exists(pk)' },
});

/** Whether a job or a listing's claim holds this id: the upload of that id is used. */
export const estUtilise = async (d: DepsTable, televersement: string): Promise<boolean> =>
  (await d.ddb.send(new GetCommand({ TableName: d.table, Key: cle(televersement), ConsistentRead: true }))).Item !== undefined;
