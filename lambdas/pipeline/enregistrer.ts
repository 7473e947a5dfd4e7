/** Step "Enregistrer": the job is `termine` with its results; counters move once. */
import { SQSClient } from '@aws-sdk/client-sqs';
import { terminerTravail, type DepsFin } from '../core/domaine/cycle';
import { documentDepuisEnv } from '../core/infra/client-dynamodb';
import { s3DepuisEnv } from '../core/infra/client-s3';
import { dependancesAvec, type AvecS3 } from '../core/infra/dependances';
import { ErreurTravail } from '../core/modele/erreurs';
import { etape } from './etape';

export const creer = (deps: () => Promise<DepsFin & AvecS3>) =>
  etape(deps, 'enregistrer', async (etat, d) => {
    if (!etat.sortie) throw new ErreurTravail('erreur_interne', 'no tool output to record');
    return terminerTravail(d, etat.travail, etat.sortie, { tentative: etat.tentative });
  });
// DynamoDB, S3 (a listing's text) and the webhook queue (`travail.fini`).
export const handler = creer(dependancesAvec({ ddb: documentDepuisEnv, s3: s3DepuisEnv, sqs: () => new SQSClient({}) }));
