/**
 * The keys of a local stack's data folder (local/pile.ts), made once and kept there: a restarted
 * stack signs its links and results as before, so what it handed out still verifies.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { creerPkiTest, type PkiTest } from '../lambdas/moteurs/c2pa/certificats';

/**
 * The C2PA signing key and a test chain, made once per data folder: results made locally are signed
 * and validate, and their certificate says it is a local test one (not on the C2PA trust list).
 */
export const cleC2pa = async (dossier: string): Promise<PkiTest> => {
  const fichier = join(dossier, 'c2pa', 'cle.json');
  if (existsSync(fichier)) return JSON.parse(readFileSync(fichier, 'utf8')) as PkiTest;
  mkdirSync(join(dossier, 'c2pa'), { recursive: true });
  const pki = await creerPkiTest('Retouche local test (not trusted)');
  writeFileSync(fichier, JSON.stringify(pki), { mode: 0o600 });
  return pki;
};

/** The key pair of the links, made once per data folder, like the one CloudFront's key group holds. */
export const clesLiens = (dossier: string): { id: string; privee: string; publique: string } => {
  const chemin = join(dossier, 'liens');
  const fichier = join(chemin, 'cle.json');
  if (existsSync(fichier)) return JSON.parse(readFileSync(fichier, 'utf8'));
  mkdirSync(chemin, { recursive: true });
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const cles = {
    id: `KLOCAL${randomBytes(6).toString('hex').toUpperCase()}`,
    privee: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publique: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
  writeFileSync(fichier, JSON.stringify(cles), { mode: 0o600 });
  return cles;
};
