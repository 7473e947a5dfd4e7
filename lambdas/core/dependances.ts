/**
 * What handlers need from the outside world, injected. Lambda entry points build it once per
 * container from the environment (`dependancesDepuisEnv`, or `dependancesAvec` with only the clients
 * a function uses: core/dependances-env.ts); tests and the local stack build it with clients pointed
 * wherever they like.
 *
 * Environment (set by CDK on AWS, by local/pile.ts locally):
 *   RETOUCHE_TABLE, RETOUCHE_BUCKET, RETOUCHE_MACHINE_ARN   resources
 *   RETOUCHE_LIENS_BASE, RETOUCHE_LIENS_CLE_ID                   link signing (CloudFront key group)
 *   RETOUCHE_LIENS_CLE_PRIVEE (PEM) or RETOUCHE_LIENS_SECRET_ARN  the private key, or its secret (only
 *                                                                 in functions that answer with links)
 *   RETOUCHE_S3_CHEMIN=1                                          path-style S3 (local S3 server), both S3 paths
 *   (the pipeline adds its engine or downloader: pipeline/dependances-pipeline.ts)
 *   AWS_ENDPOINT_URL_DYNAMODB / _S3 / _SFN                        standard SDK endpoint overrides
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { SFNClient } from '@aws-sdk/client-sfn';
import { documentDepuisEnv } from './client-dynamodb';
import { s3DepuisEnv } from './client-s3';
import { dependancesAvec } from './dependances-env';
import type { SignerLien } from './modele';
import { objetsDepuisEnv, type Objets } from './objets';
import { lireSecretLiens } from './secret-liens';

export { clientDocument } from './client-dynamodb';
export { clientS3 } from './client-s3';

export interface Dependances {
  ddb: DynamoDBDocumentClient;
  table: string;
  /** The S3 client: the pipeline's streams, multipart uploads and ZIPs. */
  s3: S3Client;
  /** S3 for the API functions, without the S3 client (core/objets.ts): puts, heads, deletes, presigned URLs. */
  objets: Objets;
  bucket: string;
  sfn: SFNClient;
  machine: string;
  signer: SignerLien;
  horloge: () => Date;
}

/**
 * Builds dependencies from the environment with every client (DynamoDB, S3, Step Functions, the
 * link secret), once per container (memoised): the pipeline's steps and the sweeper. An API
 * function builds only the clients it uses (dependancesAvec, in core/dependances-env.ts), so its
 * bundle and its cold start carry no other.
 */
export const dependancesDepuisEnv = dependancesAvec({
  ddb: documentDepuisEnv,
  s3: s3DepuisEnv,
  objets: objetsDepuisEnv,
  sfn: () => new SFNClient({}),
  lireSecret: lireSecretLiens,
});
