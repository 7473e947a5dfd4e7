/**
 * What handlers need from the outside world, injected. Lambda entry points build it once per
 * container from the environment (`dependancesDepuisEnv`); tests and the local stack build it with
 * clients pointed wherever they like.
 *
 * Environment (set by CDK on AWS, by local/pile.ts locally):
 *   RETOUCHE_TABLE, RETOUCHE_BUCKET, RETOUCHE_MACHINE_ARN   resources
 *   RETOUCHE_LIENS_BASE, RETOUCHE_LIENS_CLE_ID                   link signing (CloudFront key group)
 *   RETOUCHE_LIENS_CLE_PRIVEE (PEM) or RETOUCHE_LIENS_SECRET_ARN  the private key, or its secret (only
 *                                                                 in functions that answer with links)
 *   RETOUCHE_S3_CHEMIN=1                                          path-style S3 (local S3 server)
 *   (the pipeline adds its engine or downloader: pipeline/dependances-pipeline.ts)
 *   AWS_ENDPOINT_URL_DYNAMODB / _S3 / _SFN                        standard SDK endpoint overrides
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SFNClient } from '@aws-sdk/client-sfn';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { creerSignataire } from './liens';
import type { SignerLien } from './modele';

export interface Dependances {
  ddb: DynamoDBDocumentClient;
  table: string;
  s3: S3Client;
  bucket: string;
  sfn: SFNClient;
  machine: string;
  signer: SignerLien;
  horloge: () => Date;
}

export const clientDocument = (client: DynamoDBClient): DynamoDBDocumentClient =>
  DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });

export const clientS3 = (cheminStyle: boolean, options: ConstructorParameters<typeof S3Client>[0] = {}): S3Client =>
  new S3Client({
    ...options,
    forcePathStyle: cheminStyle,
    // Local S3 servers store aws-chunked framing inside streamed objects otherwise (FIELD-NOTES).
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });

const requis = (env: NodeJS.ProcessEnv, nom: string): string => {
  const valeur = env[nom];
  if (!valeur) throw new Error(`missing environment variable ${nom}`);
  return valeur;
};

/**
 * The private key that signs result links. Locally it is in the environment; on AWS it is a Secrets
 * Manager secret that only the functions answering with links may read (the others never sign:
 * their signer refuses, which a test of the stack's environment keeps true).
 */
const lireClePrivee = async (env: NodeJS.ProcessEnv): Promise<string | undefined> => {
  if (env.RETOUCHE_LIENS_CLE_PRIVEE) return env.RETOUCHE_LIENS_CLE_PRIVEE;
  const arn = env.RETOUCHE_LIENS_SECRET_ARN;
  if (!arn) return undefined;
  const { SecretsManagerClient, GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
  const { SecretString } = await new SecretsManagerClient({}).send(new GetSecretValueCommand({ SecretId: arn }));
  if (!SecretString?.includes('PRIVATE KEY')) throw new Error('the link signing secret holds no private key');
  return SecretString;
};

const sansSignature: SignerLien = () => {
  throw new Error('this function has no link signing key (RETOUCHE_LIENS_CLE_PRIVEE or RETOUCHE_LIENS_SECRET_ARN)');
};

const cache = new Map<NodeJS.ProcessEnv, Promise<Dependances>>();

/** Builds dependencies from the environment, once per container (memoised). */
export const dependancesDepuisEnv = (env: NodeJS.ProcessEnv = process.env): Promise<Dependances> => {
  let deps = cache.get(env);
  if (!deps) {
    deps = construire(env);
    cache.set(env, deps);
    deps.catch(() => cache.delete(env));
  }
  return deps;
};

const construire = async (env: NodeJS.ProcessEnv): Promise<Dependances> => {
  const clePrivee = await lireClePrivee(env);
  return {
    ddb: clientDocument(new DynamoDBClient({})),
    table: requis(env, 'RETOUCHE_TABLE'),
    s3: clientS3(env.RETOUCHE_S3_CHEMIN === '1'),
    bucket: requis(env, 'RETOUCHE_BUCKET'),
    sfn: new SFNClient({}),
    machine: env.RETOUCHE_MACHINE_ARN ?? '',
    signer: clePrivee
      ? creerSignataire({ base: requis(env, 'RETOUCHE_LIENS_BASE'), idCle: requis(env, 'RETOUCHE_LIENS_CLE_ID'), clePrivee })
      : sansSignature,
    horloge: () => new Date(),
  };
};
