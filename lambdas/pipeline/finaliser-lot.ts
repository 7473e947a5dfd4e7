/** Step "FinaliserLot": the last job of a batch streams its ZIP, then closes the batch. */
import { SQSClient } from '@aws-sdk/client-sqs';
import { documentDepuisEnv } from '../core/infra/client-dynamodb';
import { s3DepuisEnv } from '../core/infra/client-s3';
import { dependancesAvec } from '../core/infra/dependances';
import { finaliserLot, type DepsFinLot } from '../core/domaine/lots';
import { etape } from './etape';

export const creer = (deps: () => Promise<DepsFinLot>) =>
  etape(deps, 'finaliser-lot', async (etat, d) => (etat.lot ? finaliserLot(d, etat.lot, etat.travail) : { finalise: false }));
// DynamoDB, S3 (the ZIP) and the webhook queue (`lot.fini`).
export const handler = creer(dependancesAvec({ ddb: documentDepuisEnv, s3: s3DepuisEnv, sqs: () => new SQSClient({}) }));
