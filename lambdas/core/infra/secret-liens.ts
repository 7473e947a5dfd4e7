/**
 * Reads the link signing key from its Secrets Manager secret. Only the functions that answer with
 * links import this module (and so bundle the Secrets Manager client); the client is loaded at the
 * first read, once per container, not at the function's start (client-secrets-manager.ts).
 *
 * Not Powertools Parameters' getSecret: its cache expires (5 s by default) where the key is read once
 * per container on purpose (it changes only with a deploy, which starts new containers), and it adds
 * about 6 KB to the bundle over the bare client (measured on the esbuild bundle).
 */
export const lireSecretLiens = async (arn: string): Promise<string> => {
  const { lireSecret } = await import('./client-secrets-manager');
  const secret = await lireSecret(arn);
  if (!secret?.includes('PRIVATE KEY')) throw new Error('the link signing secret holds no private key');
  return secret;
};
