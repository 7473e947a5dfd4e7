/**
 * One secret's value. Imported dynamically (secret-liens.ts): a bundle evaluates it at the first
 * read only, and holds the client with this one command, not the whole package's.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

export const lireSecret = async (arn: string): Promise<string | undefined> =>
  (await new SecretsManagerClient({}).send(new GetSecretValueCommand({ SecretId: arn }))).SecretString;
