/**
 * What handlers need from the outside world, injected. A Lambda entry point builds it once per
 * container from the environment with `dependancesAvec` and only the clients that function uses (so
 * its bundle holds no SDK client it never calls, and its type no capability it was not given); tests
 * and the local stack build `Dependances`, everything, with clients pointed wherever they like. This
 * module imports no SDK client itself.
 *
 * Environment (set by CDK on AWS, by local/pile.ts locally), each required where its capability is:
 *   RETOUCHE_TABLE, RETOUCHE_BUCKET                               every function
 *   RETOUCHE_MACHINE_ARN                                          with `sfn` (functions that start executions)
 *   RETOUCHE_LIENS_BASE, RETOUCHE_LIENS_CLE_ID                   with `lireSecret`: link signing (CloudFront key group)
 *   RETOUCHE_LIENS_CLE_PRIVEE (PEM) or RETOUCHE_LIENS_SECRET_ARN  the private key, or its secret (only
 *                                                                 in functions that answer with links)
 *   RETOUCHE_S3_CHEMIN=1                                          path-style S3 (local S3 server), both S3 paths
 *   (the pipeline adds its engine or downloader: pipeline/dependances-pipeline.ts)
 *   RETOUCHE_SESSION_EMETTEUR, RETOUCHE_SESSION_CLIENT            the user pool's issuer and the web site's app
 *                                                                 client: web sessions (core/infra/sessions.ts)
 *   RETOUCHE_WEBHOOKS_FILE_URL                                    with `sqs`: the webhook delivery queue (functions
 *                                                                 that announce or resend deliveries: core/domaine/webhooks/)
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

/**
 * Capabilities: each domain function asks for the ones it uses (`AvecTable & AvecFileWebhooks`…), each
 * Lambda entry point builds its own with `dependancesAvec`, whose result has a capability only when
 * given its client. A function built without a client its handler needs does not compile.
 */

/** Every function: the table, its DynamoDB client, the clock. */
export interface AvecTable {
  ddb: DynamoDBDocumentClient;
  table: string;
  horloge: () => Date;
}

/** The S3 client and the bucket: the pipeline's streams, multipart uploads and ZIPs. */
export interface AvecS3 {
  s3: S3Client;
  bucket: string;
}

/** S3 for the API functions, without the S3 client (core/infra/objets.ts): puts, heads, deletes, presigned URLs. */
export interface AvecObjets {
  objets: Objets;
}

/** Starts and describes a job's execution (core/infra/executions.ts). */
export interface AvecExecutions {
  sfn: SFNClient;
  machine: string;
}

/** Signs result links (core/infra/liens.ts). */
export interface AvecSigner {
  signer: SignerLien;
}

/**
 * The HMAC key of GET /travaux's cursors (core/domaine/curseurs.ts), where the link signing key is:
 * derived from it (cleDerivee), so a stage has one secret to keep and rotate, not two.
 */
export interface AvecCurseurs {
  curseurs: Buffer;
}

/** Encrypts webhook endpoints' signing secrets (core/domaine/webhooks/secrets.ts): derived from the link signing key too. */
export interface AvecCleWebhooks {
  cleWebhooks: Buffer;
}

/** What the link signing key gives a function that has it: links, cursors, webhook secrets. */
export type AvecCleLiens = AvecSigner & AvecCurseurs & AvecCleWebhooks;

/** The webhook delivery queue (core/infra/file-webhooks.ts), where deliveries are announced or resent. */
export interface AvecFileWebhooks {
  fileWebhooks: FileWebhooks;
}

/** What makes an attempt of a delivery: the delivery function only. */
export interface AvecEnvoiWebhooks {
  /** POSTs a delivery with the SSRF guard (core/infra/envoi-webhook.ts). */
  posterWebhook: PosterWebhook;
  /** Seconds between a delivery's attempts (tests shorten it); Standard Webhooks' schedule otherwise (core/modele/webhooks.ts). */
  calendrierWebhooks?: readonly number[];
}

/** Settings of the stage, read from the environment by every function: none is a client a handler may miss. */
export interface Reglages {
  /** Verifies a web session's ID token (core/infra/sessions.ts); absent where no user pool is configured (sessions are then refused). */
  sessions?: VerifierSession;
  /** Endpoints on http://127.0.0.1 accepted (RETOUCHE_WEBHOOKS_ALLOW_LOOPBACK=1, a local stack for tests). */
  webhooksBoucleLocale?: boolean;
  /** The local stack (local/pile.ts), never set on AWS: a refused endpoint on this machine says how to allow it. */
  pileLocale?: boolean;
}

/** Everything: what the local stack and the tests build, and give every function. */
export interface Dependances
  extends AvecTable, AvecS3, AvecObjets, AvecExecutions, AvecSigner, AvecCurseurs, AvecCleWebhooks, AvecFileWebhooks, AvecEnvoiWebhooks, Reglages {}

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
  /** The S3 client and RETOUCHE_BUCKET: `AvecS3`. */
  s3?: (env: NodeJS.ProcessEnv) => S3Client;
  /** S3 without the S3 client (core/infra/objets.ts), for the API functions: `AvecObjets`. */
  objets?: (env: NodeJS.ProcessEnv) => Objets;
  /** Step Functions and RETOUCHE_MACHINE_ARN: `AvecExecutions`. */
  sfn?: () => SFNClient;
  /**
   * Reads the link signing key from the secret RETOUCHE_LIENS_SECRET_ARN (core/infra/secret-liens.ts),
   * unless RETOUCHE_LIENS_CLE_PRIVEE holds it: `AvecCleLiens` (links, cursors, webhook secrets).
   */
  lireSecret?: (arn: string) => Promise<string>;
  /** The webhook delivery queue's client, for RETOUCHE_WEBHOOKS_FILE_URL: `AvecFileWebhooks`. */
  sqs?: () => SQSClient;
}

/** What `dependancesAvec(clients)` builds: the table and the settings, and the capability of each client given. */
export type DependancesDe<C extends ClientsFonction> = AvecTable &
  Reglages &
  (C extends { s3: unknown } ? AvecS3 : unknown) &
  (C extends { objets: unknown } ? AvecObjets : unknown) &
  (C extends { sfn: unknown } ? AvecExecutions : unknown) &
  (C extends { lireSecret: unknown } ? AvecCleLiens : unknown) &
  (C extends { sqs: unknown } ? AvecFileWebhooks : unknown);

/** A variable the function cannot work without: said at its cold start, not at the first request that needs it. */
const requis = (env: NodeJS.ProcessEnv, nom: string, ou?: string): string => {
  const valeur = env[nom];
  if (!valeur) throw new Error(`missing environment variable ${nom}${ou ? ` (or ${ou})` : ''}`);
  return valeur;
};

/**
 * The private key that signs result links, and what derives from it. Locally it may be in the
 * environment; on AWS it is a Secrets Manager secret that only the functions answering with links
 * (or webhook deliveries, or the secrets of endpoints) may read: the others are built without
 * `lireSecret`, so they have no signer to call.
 */
const cleLiens = async (env: NodeJS.ProcessEnv, lireSecret: (arn: string) => Promise<string>): Promise<AvecCleLiens> => {
  const clePrivee = env.RETOUCHE_LIENS_CLE_PRIVEE || (await lireSecret(requis(env, 'RETOUCHE_LIENS_SECRET_ARN', 'RETOUCHE_LIENS_CLE_PRIVEE')));
  // The link signer (CloudFront's) is imported only by the functions that have a key: the others never sign.
  const { creerSignataire } = await import('./liens');
  return {
    signer: creerSignataire({ base: requis(env, 'RETOUCHE_LIENS_BASE'), idCle: requis(env, 'RETOUCHE_LIENS_CLE_ID'), clePrivee }),
    curseurs: cleDerivee(clePrivee, 'curseurs'),
    cleWebhooks: cleDerivee(clePrivee, 'webhooks'),
  };
};

const construire = async <C extends ClientsFonction>(env: NodeJS.ProcessEnv, clients: C): Promise<DependancesDe<C>> => {
  const table = requis(env, 'RETOUCHE_TABLE');
  // Every function of the stack is given its bucket: checked at every cold start, as always.
  const bucket = requis(env, 'RETOUCHE_BUCKET');
  const d: AvecTable & Reglages & Partial<Dependances> = {
    ddb: clients.ddb(),
    table,
    ...(clients.s3 ? { s3: clients.s3(env), bucket } : {}),
    ...(clients.objets ? { objets: clients.objets(env) } : {}),
    ...(clients.sfn ? { sfn: clients.sfn(), machine: requis(env, 'RETOUCHE_MACHINE_ARN') } : {}),
    ...(clients.lireSecret ? await cleLiens(env, clients.lireSecret) : {}),
    ...(clients.sqs ? { fileWebhooks: (await import('./file-webhooks')).fileSqs(clients.sqs(), requis(env, 'RETOUCHE_WEBHOOKS_FILE_URL')) } : {}),
    ...(env.RETOUCHE_WEBHOOKS_ALLOW_LOOPBACK === '1' ? { webhooksBoucleLocale: true } : {}),
    // Loaded only where a user pool is configured (every authenticated API function on a stage).
    ...(env.RETOUCHE_SESSION_EMETTEUR ? { sessions: (await import('./sessions')).sessionsDepuisEnv(env) } : {}),
    horloge: () => new Date(),
  };
  // Each capability of DependancesDe<C> was added above exactly when C has its client.
  return d as DependancesDe<C>;
};

/** A key for one purpose, derived from a secret kept for another: knowing it tells nothing of the secret. */
export const cleDerivee = (secret: string, usage: string): Buffer => createHash('sha256').update(`retouche ${usage}\n`).update(secret).digest();

/**
 * A function's builder: dependencies from the environment with these clients, once per container.
 * Its type has a capability only for a client given (`dependancesAvec({ ddb, sqs })` has
 * `fileWebhooks`, not `s3`), and the environment variables of each capability are required at the
 * cold start (RETOUCHE_WEBHOOKS_FILE_URL with `sqs`, RETOUCHE_MACHINE_ARN with `sfn`, the link key
 * with `lireSecret`).
 */
export const dependancesAvec = <C extends ClientsFonction>(clients: C) => {
  const parEnvironnement = unePourConteneur((env: NodeJS.ProcessEnv) => construire(env, clients));
  return (env: NodeJS.ProcessEnv = process.env): Promise<DependancesDe<C>> => parEnvironnement(env);
};
