/**
 * An endpoint's signing secret: `whsec_` and 24 random bytes in base64, as Standard Webhooks defines
 * it. It signs every delivery, so it is stored to be read back, encrypted (AES-256-GCM) with a key
 * derived from the link signing key (core/infra/dependances.ts): the table alone, or a role that may
 * only read it, does not give the secrets away.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { Webhook as Signataire } from 'standardwebhooks';

export const nouveauSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

export const chiffrer = (cle: Buffer, secret: string): string => {
  const iv = randomBytes(12);
  const chiffreur = createCipheriv('aes-256-gcm', cle, iv);
  const chiffre = Buffer.concat([chiffreur.update(secret, 'utf8'), chiffreur.final()]);
  return ['v1', iv.toString('base64url'), chiffre.toString('base64url'), chiffreur.getAuthTag().toString('base64url')].join('.');
};

export const dechiffrer = (cle: Buffer, stocke: string): string => {
  const [version, iv, chiffre, tag] = stocke.split('.');
  if (version !== 'v1' || !iv || !chiffre || !tag) throw new Error('not an encrypted webhook secret');
  const dechiffreur = createDecipheriv('aes-256-gcm', cle, Buffer.from(iv, 'base64url'));
  dechiffreur.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([dechiffreur.update(Buffer.from(chiffre, 'base64url')), dechiffreur.final()]).toString('utf8');
};

/**
 * The `webhook-signature` header: one `v1,<signature>` per secret, space-separated (during a
 * rotation, the new secret's and the old one's: a receiver that knows either accepts the delivery).
 */
export const signer = (secrets: readonly string[], id: string, moment: Date, corps: string): string =>
  secrets.map((secret) => new Signataire(secret).sign(id, moment, corps)).join(' ');
