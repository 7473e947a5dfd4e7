/**
 * CloudFormation custom resource: the RSA key pair that signs result links. Generated inside the
 * account at deploy time, so the private key is never in the repository, the template or an
 * operator's terminal: it goes straight into its Secrets Manager secret, and only the public half
 * comes back to CloudFormation (for the CloudFront public key, or the API's link checker).
 *
 * Properties: `Secret` (ARN), `Generation` (change it to rotate the key; outstanding links then stop
 * working, as they are signed with the old key).
 * Attributes: `ClePublique` (PEM, SPKI), `IdCle` (a stable id derived from the public key).
 */
import { createHash, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { GetSecretValueCommand, PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { gestionnaire, type EvenementRessource as Evenement, type Reponse } from './ressource';

export interface ProprietesCleLiens {
  Secret?: string;
  Generation?: string;
}
export type EvenementCleLiens = Evenement<ProprietesCleLiens>;

const idDe = (publique: string): string => `retouche-${createHash('sha256').update(publique).digest('hex').slice(0, 16)}`;

export const nouvellePaireLiens = (): { privee: string; publique: string } => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048, // what CloudFront public keys accept
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  return { privee: privateKey, publique: publicKey };
};

const publiqueDe = (privee: string): string => createPublicKey(privee).export({ type: 'spki', format: 'pem' }).toString();

export const traiterCleLiens = async (sm: SecretsManagerClient, e: EvenementCleLiens): Promise<Reponse> => {
  const base = { StackId: e.StackId, RequestId: e.RequestId, LogicalResourceId: e.LogicalResourceId };
  if (e.RequestType === 'Delete') {
    // The secret is a resource of its own and goes with the stack (or stays, on production stages).
    return { ...base, Status: 'SUCCESS', PhysicalResourceId: e.PhysicalResourceId ?? 'aucune' };
  }
  const secret = e.ResourceProperties.Secret;
  if (!secret) throw new Error('property Secret is required');
  const memeCle =
    e.RequestType === 'Update' && e.OldResourceProperties?.Secret === secret && e.OldResourceProperties?.Generation === e.ResourceProperties.Generation;
  let publique: string;
  if (memeCle) {
    const { SecretString } = await sm.send(new GetSecretValueCommand({ SecretId: secret }));
    if (!SecretString) throw new Error('the link secret is empty');
    publique = publiqueDe(SecretString);
  } else {
    const paire = nouvellePaireLiens();
    await sm.send(new PutSecretValueCommand({ SecretId: secret, SecretString: paire.privee }));
    publique = paire.publique;
  }
  const id = idDe(publique);
  return { ...base, Status: 'SUCCESS', PhysicalResourceId: id, Data: { ClePublique: publique, IdCle: id } };
};

const sm = new SecretsManagerClient({});

export const handler = gestionnaire<ProprietesCleLiens>('link key', (e) => traiterCleLiens(sm, e));
