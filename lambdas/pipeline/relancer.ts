/**
 * The reconciler, run on a schedule: a job still `en_attente` a while after its creation means the
 * request that debited it died before starting its execution. Starting it now is safe: the execution
 * name is the job id, so a job whose execution did start is not started twice.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dependancesDepuisEnv, type Dependances } from '../core/dependances';
import { journal } from '../core/journal';
import { demarrerExecution } from '../core/lancement';
import type { EnregistrementTravail } from '../core/modele';
import { INDEX, PARTITION_ATTENTE } from '../core/table';

/** Younger jobs may still be starting in their own request. */
export const DELAI_AVANT_RELANCE_MS = 2 * 60_000;

export const relancer = async (d: Dependances): Promise<{ relances: number }> => {
  const avant = new Date(d.horloge().getTime() - DELAI_AVANT_RELANCE_MS).toISOString();
  let relances = 0;
  let depart: Record<string, unknown> | undefined;
  do {
    const page = await d.ddb.send(
      new QueryCommand({
        TableName: d.table,
        IndexName: INDEX.enAttente,
        KeyConditionExpression: 'gsi3pk = :attente AND gsi3sk < :avant',
        ExpressionAttributeValues: { ':attente': PARTITION_ATTENTE, ':avant': avant },
        ExclusiveStartKey: depart,
      }),
    );
    for (const travail of (page.Items ?? []) as EnregistrementTravail[]) {
      try {
        await demarrerExecution(d, travail);
        relances++;
      } catch (erreur) {
        journal.error('reconciler could not start a job; next run retries', { travail: travail.id, erreur });
      }
    }
    depart = page.LastEvaluatedKey;
  } while (depart);
  return { relances };
};

export const creer = (deps: () => Promise<Dependances>) => async () => relancer(await deps());
export const handler = creer(() => dependancesDepuisEnv());
