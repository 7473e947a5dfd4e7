/**
 * Builds a Lambda function's `Dependances` from its environment (see dependances.ts for the
 * variables), once per container, with only the clients that function uses: each handler passes the
 * constructors of its own (core/client-*.ts), so its bundle holds no SDK client it never calls. A
 * client a function was not given is a stand-in that throws on first use, as the signer of a
 * function without a signing key already does. This module imports no SDK client itself.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SFNClient } from '@aws-sdk/client-sfn';
import type { Dependances } from './dependances';
import type { SignerLien } from './modele';
import type { Objets } from './objets';

export interface ClientsFonction {
  ddb: () => DynamoDBDocumentClient;
  s3?: (env: NodeJS.ProcessEnv) => S3Client;
  /** S3 without the S3 client (core/objets.ts), for the API functions. */
  objets?: (env: NodeJS.ProcessEnv) => Objets;
  sfn?: () => SFNClient;
  /** Reads the link signing key from the secret RETOUCHE_LIENS_SECRET_ARN (core/secret-liens.ts). */
  lireSecret?: (arn: string) => Promise<string>;
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
      throw new Error(`this function has no ${quoi} client (core/dependances-env.ts)`);
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
    horloge: () => new Date(),
  };
};

/** A function's builder: dependencies from the environment with these clients, once per container (memoised). */
export const dependancesAvec = (clients: ClientsFonction) => {
  const cache = new Map<NodeJS.ProcessEnv, Promise<Dependances>>();
  return (env: NodeJS.ProcessEnv = process.env): Promise<Dependances> => {
    let deps = cache.get(env);
    if (!deps) {
      deps = construire(env, clients);
      cache.set(env, deps);
      deps.catch(() => cache.delete(env));
    }
    return deps;
  };
};
