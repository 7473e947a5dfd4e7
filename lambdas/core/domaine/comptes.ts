/**
 * Accounts and API keys: the rules. A key is shown once, at creation; only its SHA-256 is stored
 * (depots/comptes.ts). Keys are 256 random bits, so a fast hash is enough: there is nothing to
 * brute-force (unlike a password).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Dependances } from '../infra/dependances';
import * as comptes from '../depots/comptes';
import { ErreurApi } from '../modele/erreurs';

export const MAX_CLES_PAR_COMPTE = 5;
/** Fixed prefix of every key: lets secret scanners and people recognise a Retouche key. */
export const PREFIXE_CLE = 'rtch_';

export type DepsComptes = Pick<Dependances, 'ddb' | 'table' | 'horloge'>;

/** Problems of the admin operations (not HTTP answers: the admin CLI prints them). */
export class ErreurCompte extends Error {
  override readonly name = 'ErreurCompte';
}

export const empreinteCle = (cle: string): string => createHash('sha256').update(cle, 'utf8').digest('hex');

const nouvelleCle = (): string => PREFIXE_CLE + randomBytes(32).toString('base64url');

/** What is stored of a key: its hash, and its first characters to tell keys apart in a listing. */
const aStocker = (cle: string): comptes.NouvelleCle => ({ empreinte: empreinteCle(cle), apercu: cle.slice(0, PREFIXE_CLE.length + 4) });

const verifierCredits = (credits: number): void => {
  if (!Number.isSafeInteger(credits) || credits < 0) throw new ErreurCompte('credits must be a whole number, 0 or more');
};

export const creerCompte = async (d: DepsComptes, credits: number) => {
  verifierCredits(credits);
  const compte = randomUUID();
  const cle = nouvelleCle();
  await comptes.creer(d, compte, credits, aStocker(cle));
  return { compte, cle, credits };
};

export const creerCle = async (d: DepsComptes, compte: string) => {
  const cle = nouvelleCle();
  const issue = await comptes.ajouterCle(d, compte, aStocker(cle), MAX_CLES_PAR_COMPTE);
  if (issue === 'plein') throw new ErreurCompte(`account ${compte} already has ${MAX_CLES_PAR_COMPTE} active keys: revoke one first`);
  if (issue === 'absent') throw new ErreurCompte(`no account ${compte}`);
  return { cle };
};

export const revoquerCle = async (d: DepsComptes, cle: string) => {
  const enregistrement = await comptes.lireCle(d, empreinteCle(cle));
  if (!enregistrement) throw new ErreurCompte('unknown key');
  if (enregistrement.revoquee) return { revoque: true };
  // Cancelled: revoked meanwhile by a concurrent call, and the outcome asked for holds.
  await comptes.revoquerEmpreinte(d, empreinteCle(cle), enregistrement.compte, d.horloge());
  return { revoque: true };
};

export const ajouterCredits = async (d: DepsComptes, compte: string, credits: number) => {
  verifierCredits(credits);
  const solde = await comptes.crediter(d, compte, credits);
  if (solde === undefined) throw new ErreurCompte(`no account ${compte}`);
  return { compte, credits: solde };
};

export interface Appelant {
  compte: string;
  /** Hash of the key used: the rate limit is counted per key. */
  empreinte: string;
}

/** `Authorization: Bearer <key>` → the calling account, or 401. */
export const authentifier = async (d: Pick<Dependances, 'ddb' | 'table'>, autorisation: string | undefined): Promise<Appelant> => {
  const correspondance = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(autorisation ?? '');
  if (!correspondance?.[1]) {
    throw new ErreurApi('unauthorized', 'Missing API key: send the header Authorization: Bearer <API key>.', {}, { 'WWW-Authenticate': 'Bearer' });
  }
  const empreinte = empreinteCle(correspondance[1]);
  const cle = await comptes.lireCle(d, empreinte);
  if (!cle || cle.revoquee) {
    throw new ErreurApi('unauthorized', 'Invalid or revoked API key.', {}, { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
  }
  return { compte: cle.compte, empreinte };
};
