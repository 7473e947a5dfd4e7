/**
 * The sweeper's Lambda, run every minute by EventBridge (lib/flux.ts): finishes every job and batch
 * left unfinished (core/domaine/balayage.ts) and publishes its figures every run, zeros included, so that
 * "work older than the bound" and "the sweeper did not run" can both alarm.
 */
import { SFNClient } from '@aws-sdk/client-sfn';
import { SQSClient } from '@aws-sdk/client-sqs';
import { AGE_MINIMUM_MS, balayerASonTour, type DepsBalayage } from '../core/domaine/balayage';
import { documentDepuisEnv } from '../core/infra/client-dynamodb';
import { s3DepuisEnv } from '../core/infra/client-s3';
import { dependancesAvec } from '../core/infra/dependances';
import { objetsDepuisEnv } from '../core/infra/objets';
import { journal } from '../core/infra/journal';
import { publierBalayage } from '../core/infra/mesures';

export const creer = (deps: () => Promise<DepsBalayage>) => async () => {
  const bilan = await balayerASonTour(await deps(), { ageMinimumMs: AGE_MINIMUM_MS });
  if (!bilan) {
    // Not an error: a long run (a batch's ZIP) outlasts the minute; it publishes its figures itself.
    journal.info('sweeper: another run holds the turn; this tick is skipped');
    return { saute: true };
  }
  publierBalayage({ ...bilan, reprises: bilan.demarres + bilan.relances + bilan.rembourses + bilan.lotsFinalises });
  if (bilan.travauxEnRetard + bilan.lotsEnRetard + bilan.effacementsEnRetard > 0) journal.error('sweeper: work older than the bound', { ...bilan });
  else journal.info('sweeper: done', { ...bilan });
  return bilan;
};
// What every step and erasure uses (DynamoDB, S3 both ways, Step Functions, the webhook queue); no link secret.
export const handler = creer(
  dependancesAvec({ ddb: documentDepuisEnv, s3: s3DepuisEnv, objets: objetsDepuisEnv, sfn: () => new SFNClient({}), sqs: () => new SQSClient({}) }),
);
