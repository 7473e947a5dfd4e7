/**
 * Dependencies with every client (DynamoDB, S3, Step Functions, SQS, the link secret), built once per
 * container: the pipeline's steps and the sweeper, which use them all. An API function builds only
 * the clients it uses (`dependancesAvec`, dependances.ts), so its bundle and its cold start carry no other.
 */
import { SFNClient } from '@aws-sdk/client-sfn';
import { SQSClient } from '@aws-sdk/client-sqs';
import { documentDepuisEnv } from './client-dynamodb';
import { s3DepuisEnv } from './client-s3';
import { dependancesAvec } from './dependances';
import { objetsDepuisEnv } from './objets';
import { lireSecretLiens } from './secret-liens';

export const dependancesDepuisEnv = dependancesAvec({
  ddb: documentDepuisEnv,
  s3: s3DepuisEnv,
  objets: objetsDepuisEnv,
  sfn: () => new SFNClient({}),
  lireSecret: lireSecretLiens,
  sqs: () => new SQSClient({}),
});
