/**
 * What handlers need from the outside world, injected. A Lambda entry point builds it once per
 * container from the environment with `dependancesAvec` and only the clients that function uses (so
 * its bundle holds no SDK client it never calls), or `dependancesDepuisEnv` with all of them
 * (dependances-completes.ts); tests and the local stack build it with clients pointed wherever they
 * like. This module imports no SDK client itself.
 *
 * Environment (set by CDK on AWS, by local/pile.ts locally):
 *   RETOUCHE_TABLE, RETOUCHE_BUCKET, RETOUCHE_MACHINE_ARN   resources
 *   RETOUCHE_LIENS_BASE, RETOUCHE_LIENS_CLE_ID                   link signing (CloudFront key group)
 *   RETOUCHE_LIENS_CLE_PRIVEE (PEM) or RETOUCHE_LIENS_SECRET_ARN  the private key, or its secret (only
 *                                                                 in functions that answer with links)
 *   RETOUCHE_S3_CHEMIN=1                                          path-style S3 (local S3 server), both S3 paths
 *   (the pipeline adds its engine or downloader: pipeline/dependances-pipeline.ts)
 *   RETOUCHE_SESSION_EMETTEUR, RETOUCHE_SESSION_CLIENT            the user pool's issuer and the web site's app
 *                                                                 client: web sessions (core/infra/sessions.ts)
 *   RETOUCHE_WEBHOOKS_FILE_URL                                    the webhook delivery queue (functions that announce
 *                                                                 or resend deliveries: core/domaine/webhooks/)
 *   RETOUCHE_WEBHOOKS_ALLOW_LOOPBACK=1                             endpoints on http://127.0.0.1 too (a local stack for
 *                                                                 tests only; the CDK stack refuses it)
 *   AWS_ENDPOINT_URL_DYNAMODB / _S3 / _SFN / _SQS                  standard SDK endpoint overrides
 */

import { createHash } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SFNClient } from '@aws-sdk/client-sfn';
import type { SignerLien } from '../modele/enregistrements';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { PosterWebhook } from './envoi-webhook';
import type { FileWebhooks } from './file-webhooks';
import type { Objets } from './objets';
import type { VerifierSession } from './sessions';

export interface Dependances {
  ddb: DynamoDBDocumentClient;
  table: string;
  /** The S3 client: the pipeline's streams, multipart uploads and ZIPs. */
  s3: S3Client;
  /** S3 for the API functions, without the S3 client (core/infra/objets.ts): puts, heads, deletes, presigned URLs. */
  objets: Objets;
  bucket: string;
  sfn: SFNClient;
  machine: string;
  signer: SignerLien;
  /** Verifies a web session's ID token (core/infra/sessions.ts); absent where no user pool is configured. */
  sessions?: VerifierSession;
  /**
   * The HMAC key of GET /travaux's cursors (core/domaine/curseurs.ts), where the link signing key is:
   * derived from it (cleDerivee), so a stage has one secret to keep and rotate, not two.
   */
  curseurs?: Buffer;
  /** Encrypts webhook endpoints' signing secrets (core/domaine/webhooks/secrets.ts): derived from the link signing key too. */
  cleWebhooks?: Buffer;
  /** The webhook delivery queue (core/infra/file-webhooks.ts), where deliveries are announced or resent. */
  fileWebhooks?: FileWebhooks;
  /** POSTs a delivery with the SSRF guard (core/infra/envoi-webhook.ts): the delivery function only. */
  posterWebhook?: PosterWebhook;
  /** Endpoints on http://127.0.0.1 accepted (RETOUCHE_WEBHOOKS_ALLOW_LOOPBACK=1, a local stack for tests). */
  webhooksBoucleLocale?: boolean;
  /** The local stack (local/pile.ts), never set on AWS: a refused endpoint on this machine says how to allow it. */
  pileLocale?: boolean;
  /** Seconds between a delivery's attempts (tests shorten it); Standard Webhooks' schedule otherwise (core/modele/webhooks.ts). */
  calendrierWebhooks?: readonly number[];
  horloge: () => Date;
}

/**
 * Builds once per key and keeps the promise: a Lambda container builds its clients and reads its
 * secrets once, not per invocation. A failed build is forgotten, so the next call tries again.
 * The one memoiser of the project's dependencies (per environment here; the pipeline's steps key it by nothing).
 */
export const unePourConteneur = <T, K = void>(construire: (cle: K) => Promise<T>): ((cle: K) => Promise<T>) => {
  const cache = new Map<K, Promise<T>>();
  return (cle) => {
    let valeur = cache.get(cle);
    if (!valeur) {
      valeur = construire(cle);
      cache.set(cle, valeur);
      valeur.catch(() => cache.delete(cle));
    }
    return valeur;
  };
};

export interface ClientsFonction {
  ddb: () => DynamoDBDocumentClient;
  s3?: (env: NodeJS.ProcessEnv) => S3Client;
  /** S3 without the S3 client (core/infra/objets.ts), for the API functions. */
  objets?: (env: NodeJS.ProcessEnv) => Objets;
  sfn?: () => SFNClient;
  /** Reads the link signing key from the secret RETOUCHE_LIENS_SECRET_ARN (core/infra/secret-liens.ts). */
  lireSecret?: (arn: string) => Promise<string>;
  /** The webhook delivery queue's client, for RETOUCHE_WEBHOOKS_FILE_URL. */
  sqs?: () => SQSClient;
}

const requis = (env: NodeJS.ProcessEnv, nom: string): string => {
  const valeur = env[nom];
  if (!valeur) throw new Error(`missing environment variable ${nom}`);
  return valeur;
};

/** A client this function was built without: any use of it is a programming error, said plainly. */
const absent = <T extends object>(quoi: string): T =>
  new Proxy({} as T, {
    get: (_, propriete) => {
      // Promise resolution and inspection look for these: answer as a plain object would.
      if (typeof propriete === 'symbol' || propriete === 'then' || propriete === 'toJSON') return undefined;
      throw new Error(`this function has no ${quoi} client (core/infra/dependances.ts)`);
    },
  });

/**
 * The private key that signs result links. Locally it is in the environment; on AWS it is a Secrets
 * Manager secret that only the functions answering with links may read (the others never sign:
 * their signer refuses, which a test of the stack's environment keeps true).
 */
const lireClePrivee = async (env: NodeJS.ProcessEnv, clients: ClientsFonction): Promise<string | undefined> => {
  if (env.RETOUCHE_LIENS_CLE_PRIVEE) return env.RETOUCHE_LIENS_CLE_PRIVEE;
  const arn = env.RETOUCHE_LIENS_SECRET_ARN;
  if (!arn) return undefined;
  if (!clients.lireSecret) throw new Error('this function was built without a reader of the link signing secret (RETOUCHE_LIENS_SECRET_ARN)');
  return clients.lireSecret(arn);
};

const sansSignature: SignerLien = () => {
  throw new Error('this function has no link signing key (RETOUCHE_LIENS_CLE_PRIVEE or RETOUCHE_LIENS_SECRET_ARN)');
};

const construire = async (env: NodeJS.ProcessEnv, clients: ClientsFonction): Promise<Dependances> => {
  // The link signer (CloudFront's) is imported only by the functions that have a key: the others never sign.
  const clePrivee = await lireClePrivee(env, clients);
  return {
    ddb: clients.ddb(),
    table: requis(env, 'RETOUCHE_TABLE'),
    s3: clients.s3 ? clients.s3(env) : absent<S3Client>('S3'),
    objets: clients.objets ? clients.objets(env) : absent<Objets>('S3 objects'),
    bucket: requis(env, 'RETOUCHE_BUCKET'),
    sfn: clients.sfn ? clients.sfn() : absent<SFNClient>('Step Functions'),
    machine: env.RETOUCHE_MACHINE_ARN ?? '',
    signer: clePrivee
      ? (await import('./liens')).creerSignataire({ base: requis(env, 'RETOUCHE_LIENS_BASE'), idCle: requis(env, 'RETOUCHE_LIENS_CLE_ID'), clePrivee })
      : sansSignature,
    ...(clePrivee ? { curseurs: cleDerivee(clePrivee, 'curseurs'), cleWebhooks: cleDerivee(clePrivee, 'webhooks') } : {}),
    ...(env.RETOUCHE_WEBHOOKS_FILE_URL && clients.sqs
      ? { fileWebhooks: (await import('./file-webhooks')).fileSqs(clients.sqs(), env.RETOUCHE_WEBHOOKS_FILE_URL) }
      : {}),
    ...(env.RETOUCHE_WEBHOOKS_ALLOW_LOOPBACK === '1' ? { webhooksBoucleLocale: true } : {}),
    // Loaded only where a user pool is configured (every authenticated API function on a stage).
    ...(env.RETOUCHE_SESSION_EMETTEUR ? { sessions: (await import('./sessions')).sessionsDepuisEnv(env) } : {}),
    horloge: () => new Date(),
  };
};

/** A key for one purpose, derived from a secret kept for another: knowing it tells nothing of the secret. */
export const cleDerivee = (secret: string, usage: string): Buffer => createHash('sha256').update(`retouche ${usage}\n`).update(secret).digest();

/** A function's builder: dependencies from the environment with these clients, once per container. */
export const dependancesAvec = (clients: ClientsFonction) => {
  const parEnvironnement = unePourConteneur((env: NodeJS.ProcessEnv) => construire(env, clients));
  return (env: NodeJS.ProcessEnv = process.env): Promise<Dependances> => parEnvironnement(env);
};
