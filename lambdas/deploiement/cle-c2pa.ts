/**
 * CloudFormation custom resource: the EC P-256 key that signs every result's C2PA Content Credentials,
 * and the certificate chain that goes with it. Like the link key (cle-liens.ts), the private key is
 * generated inside the account at deploy time and goes straight into its Secrets Manager secret: it is
 * never in the repository, the template, an output or an operator's terminal. What comes back to
 * CloudFormation is public: a certificate request (CSR) for the key, to be certified by a CA on the
 * C2PA trust list, and the signer's name.
 *
 * Properties:
 *  - `Secret` (ARN) where `{"clePrivee": PEM, "chaine": [leaf PEM, CA PEM…]}` is written (what
 *    moteurs/c2pa/marquage.ts reads; the resource adds `generation` and `test` for itself);
 *  - `Generation`: change it to rotate the key (a certificate issued for the old key no longer fits);
 *  - `Chaine` (optional): the operator's chain for the key, PEM blocks leaf first, in one string;
 *  - `Organisation`: the name test certificates carry, and the subject the CSR asks for.
 *
 * Without `Chaine`, the key gets a TEST chain issued on the spot by a throwaway CA: results validate
 * but are untrusted. A chain given for a new key (first deploy, new Generation) cannot fit, since its
 * CSR did not exist yet: that fails, and nothing is written.
 *
 * Attributes: `Csr` (PKCS#10 PEM), `Signataire` (the leaf's subject), `Test` ('true' | 'false'),
 * `Empreinte` (a digest of the chain: it changes with the key or the chain).
 */
import { createHash, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { GetSecretValueCommand, PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { gestionnaire, type EvenementRessource as Evenement, type Reponse } from './ressource';
import {
  certificatPour,
  certificatsPem,
  creerCsr,
  creerPkiTestPour,
  problemesChaine,
  sujetEst,
  sujetLisible,
  sujetSignataire,
} from '../moteurs/c2pa/certificats';

export interface ProprietesCleC2pa {
  Secret?: string;
  Generation?: string;
  Chaine?: string;
  Organisation?: string;
}
export type EvenementCleC2pa = Evenement<ProprietesCleC2pa>;

/** What the secret holds: the marker's `{clePrivee, chaine}`, and what this resource needs to decide. */
export interface ContenuSecret {
  clePrivee: string;
  chaine: string[];
  /** The Generation the key was made for: the same Generation keeps it, another one replaces it. */
  generation: string;
  /** The chain was issued here by a throwaway test CA. */
  test: boolean;
}

const ORGANISATION_DEFAUT = 'Retouche (test, not trusted)';

/** A chain cannot fit a key made in the same deploy: say what to do instead. */
export const MESSAGE_NOUVELLE_CLE =
  'a new C2PA key was just generated (first deploy of the stage, or a new Generation), so no certificate can have been issued for it yet: ' +
  'deploy once without c2paChaine, then have the CSR in the stack output C2paCsr certified and deploy again with -c c2paChaine=<chain.pem>';

export const MESSAGE_AUTRE_CLE =
  "the certificate chain given in c2paChaine was issued for another key, not this stage's C2PA key: " +
  'get a certificate for the CSR in the stack output C2paCsr (it changes when the key is rotated) and deploy again with that chain';

export const nouvelleCleC2pa = (): string =>
  generateKeyPairSync('ec', {
    namedCurve: 'P-256',
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  }).privateKey;

/** A stable id derived from the public key: a new key is a new physical resource. */
const idDe = (clePrivee: string): string =>
  `retouche-c2pa-${createHash('sha256')
    .update(createPublicKey(clePrivee).export({ type: 'spki', format: 'der' }))
    .digest('hex')
    .slice(0, 16)}`;

/**
 * Changes whenever what signs changes (a new key has a new leaf): the tool function's configuration
 * carries it, so a new key or chain reaches new containers at once instead of when warm ones retire.
 */
const empreinte = (chaine: string[]): string => createHash('sha256').update(chaine.join('')).digest('hex').slice(0, 16);

/** The secret's value as this resource wrote it, or undefined (the random string CDK puts in a new secret, nothing yet…). */
export const lireContenu = (texte: string | undefined): ContenuSecret | undefined => {
  if (!texte) return undefined;
  try {
    const c = JSON.parse(texte) as Partial<ContenuSecret>;
    if (typeof c.clePrivee !== 'string' || !Array.isArray(c.chaine)) return undefined;
    return { clePrivee: c.clePrivee, chaine: c.chaine, generation: String(c.generation ?? ''), test: c.test === true };
  } catch {
    return undefined;
  }
};

const lireVersion = async (sm: SecretsManagerClient, secret: string, etape: 'AWSCURRENT' | 'AWSPREVIOUS'): Promise<ContenuSecret | undefined> => {
  try {
    const { SecretString } = await sm.send(new GetSecretValueCommand({ SecretId: secret, VersionStage: etape }));
    return lireContenu(SecretString);
  } catch (e) {
    // A secret with no previous version (or no value yet) answers ResourceNotFoundException.
    if ((e as Error).name === 'ResourceNotFoundException') return undefined;
    throw e;
  }
};

/**
 * The key for this Generation: the one the secret holds for it, else (a rollback to the Generation
 * before a rotation) the previous version's, else a new one.
 */
const cleDeLaGeneration = async (sm: SecretsManagerClient, e: EvenementCleC2pa, secret: string, generation: string) => {
  const actuel = await lireVersion(sm, secret, 'AWSCURRENT');
  if (actuel) {
    // A value written before `generation` was stored counts as the old properties' Generation.
    const sienne = actuel.generation || (e.OldResourceProperties?.Secret === secret ? (e.OldResourceProperties.Generation ?? '') : '');
    if (sienne === generation) return { contenu: actuel, nouvelle: false };
  }
  const precedent = e.RequestType === 'Update' ? await lireVersion(sm, secret, 'AWSPREVIOUS') : undefined;
  if (precedent?.generation === generation) return { contenu: precedent, nouvelle: false, restauree: true };
  return { contenu: undefined, nouvelle: true };
};

export const traiterCleC2pa = async (sm: SecretsManagerClient, e: EvenementCleC2pa): Promise<Reponse> => {
  const base = { StackId: e.StackId, RequestId: e.RequestId, LogicalResourceId: e.LogicalResourceId };
  if (e.RequestType === 'Delete') {
    // The secret is a resource of its own and goes with the stack (or stays, on production stages).
    return { ...base, Status: 'SUCCESS', PhysicalResourceId: e.PhysicalResourceId ?? 'aucune' };
  }
  const { Secret: secret, Generation: generation = '', Chaine: texteChaine, Organisation: organisation = ORGANISATION_DEFAUT } = e.ResourceProperties;
  if (!secret) throw new Error('property Secret is required');

  const { contenu, nouvelle, restauree } = await cleDeLaGeneration(sm, e, secret, generation);
  const clePrivee = contenu?.clePrivee ?? nouvelleCleC2pa();

  let chaine: string[];
  let test: boolean;
  if (texteChaine?.trim()) {
    chaine = certificatsPem(texteChaine);
    if (chaine.length === 0) throw new Error('property Chaine holds no PEM certificate');
    if (!certificatPour(clePrivee, chaine[0]!)) {
      const position = chaine.findIndex((c) => certificatPour(clePrivee, c));
      if (position > 0)
        throw new Error(`the certificate issued for this key is number ${position + 1} in c2paChaine: give the chain leaf first, then each issuer`);
      throw new Error(nouvelle ? MESSAGE_NOUVELLE_CLE : MESSAGE_AUTRE_CLE);
    }
    const problemes = problemesChaine(clePrivee, chaine);
    if (problemes.length > 0) throw new Error(`the certificate chain given in c2paChaine cannot sign C2PA claims: ${problemes.join('; ')}`);
    test = false;
  } else if (
    contenu?.test &&
    contenu.chaine[0] &&
    certificatPour(clePrivee, contenu.chaine[0]) &&
    sujetEst(contenu.chaine[0], sujetSignataire(organisation)) &&
    problemesChaine(clePrivee, contenu.chaine).length === 0
  ) {
    // The test chain already there fits this key and name: keep it (a new one would change nothing).
    chaine = contenu.chaine;
    test = true;
  } else {
    // No chain given (first deploy, or the operator's chain removed): a test chain for this key.
    chaine = (await creerPkiTestPour(clePrivee, organisation)).chaine;
    test = true;
  }

  const ecrire: ContenuSecret = { clePrivee, chaine, generation, test };
  const ecrit =
    !contenu || restauree || JSON.stringify(contenu.chaine) !== JSON.stringify(chaine) || contenu.test !== test || contenu.generation !== generation;
  if (ecrit) await sm.send(new PutSecretValueCommand({ SecretId: secret, SecretString: JSON.stringify(ecrire) }));

  return {
    ...base,
    Status: 'SUCCESS',
    PhysicalResourceId: idDe(clePrivee),
    Data: {
      Csr: await creerCsr(clePrivee, sujetSignataire(organisation)),
      Signataire: sujetLisible(chaine[0]!),
      Test: String(test),
      Empreinte: empreinte(chaine),
    },
  };
};

const sm = new SecretsManagerClient({});

export const handler = gestionnaire<ProprietesCleC2pa>('C2PA key', (e) => traiterCleC2pa(sm, e));
