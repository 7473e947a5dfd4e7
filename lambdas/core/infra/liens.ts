/**
 * Result links: CloudFront signed URLs (canned policy, RSA key pair of a key group).
 *
 * Why not S3 presigned URLs: a URL presigned with a Lambda role's temporary credentials dies with
 * those credentials, long before the 24 hours the spec promises. A CloudFront signature depends only
 * on the key pair, so it lasts exactly as long as its `Expires`. The local stack serves files behind
 * the same verification (`verifierLien`), so a tampered or expired link is refused locally exactly
 * as CloudFront refuses it.
 *
 * A download link carries `response-content-disposition` in its query (core/modele/disposition.ts):
 * a canned policy's resource is the whole URL but its signature parameters, so that query is signed
 * (changing the name, or adding it to a display link, breaks the signature). CloudFront forwards it,
 * and it alone, to S3 (lib/liens.ts), which answers with that Content-Disposition; the local file
 * server and the API's fallback route do the same.
 */
import { createPublicKey, verify } from 'node:crypto';
import { getSignedUrl } from '@aws-sdk/cloudfront-signer';
import { PARAMETRE_DISPOSITION, queryTelechargement } from '../modele/disposition';
import type { Lien, SignerLien } from '../modele/enregistrements';

export const VALIDITE_LIEN_SECONDES = 24 * 3600;

export interface ConfigLiens {
  /** Base of the links, e.g. `https://d123.cloudfront.net` or `http://localhost:3000/fichiers`. */
  base: string;
  /** CloudFront public key id (`Key-Pair-Id`). */
  idCle: string;
  /** PEM of the RSA private key. */
  clePrivee: string;
}

/** Each segment of a key encoded once (result names hold letters of any script and spaces), keeping its '/'. */
const cheminDe = (cle: string): string => cle.split('/').map(encodeURIComponent).join('/');

export const creerSignataire =
  (config: ConfigLiens, horloge: () => Date = () => new Date()): SignerLien =>
  (cle, telechargement) => {
    // Whole seconds: the policy's epoch time is in seconds, and `expire_le` must not promise more.
    const expire = new Date(Math.floor(horloge().getTime() / 1000 + VALIDITE_LIEN_SECONDES) * 1000);
    const query = telechargement === undefined ? '' : `?${queryTelechargement(telechargement)}`;
    const url = getSignedUrl({
      url: `${config.base.replace(/\/$/, '')}/${cheminDe(cle)}${query}`,
      keyPairId: config.idCle,
      privateKey: config.clePrivee,
      dateLessThan: expire,
      algorithm: 'SHA256',
    });
    return { url, expire_le: expire.toISOString() } satisfies Lien;
  };

const depuisBase64CloudFront = (texte: string): Buffer => Buffer.from(texte.replace(/-/g, '+').replace(/_/g, '=').replace(/~/g, '/'), 'base64');

/**
 * A valid link names its object (`cle`) and, for a download link, the Content-Disposition its signed
 * query asks for (`disposition`, absent on a display link).
 */
export type VerificationLien = { valide: true; cle: string; disposition?: string } | { valide: false; raison: string };

const PARAMETRES_SIGNATURE = ['Expires', 'Signature', 'Key-Pair-Id', 'Hash-Algorithm'] as const;

/**
 * Checks a signed link the way CloudFront does for a canned policy: rebuild the policy from the URL
 * without its signature parameters, verify the RSA signature with the public key named by
 * `Key-Pair-Id`, then the expiry. Whatever the link holds, the answer is a verdict, never an
 * exception: a malformed link is refused (403) like a tampered one.
 */
export const verifierLien = (
  urlComplete: string,
  clesPubliques: Readonly<Record<string, string>>,
  base: string,
  maintenant: Date = new Date(),
): VerificationLien => {
  try {
    return verifier(urlComplete, clesPubliques, base, maintenant);
  } catch {
    // Anything the checks below did not foresee (an unparsable URL, a key that does not load).
    return { valide: false, raison: 'malformed link' };
  }
};

const decoder = (texte: string): string => decodeURIComponent(texte.replace(/\+/g, ' '));

const verifier = (urlComplete: string, clesPubliques: Readonly<Record<string, string>>, base: string, maintenant: Date): VerificationLien => {
  const url = new URL(urlComplete);
  // A parameter given twice is ambiguous (which one was signed?): refused, never guessed.
  if ([...PARAMETRES_SIGNATURE, PARAMETRE_DISPOSITION].some((p) => url.searchParams.getAll(p).length > 1)) {
    return { valide: false, raison: 'repeated parameters' };
  }
  const expires = url.searchParams.get('Expires');
  const signature = url.searchParams.get('Signature');
  const idCle = url.searchParams.get('Key-Pair-Id');
  const algorithme = url.searchParams.get('Hash-Algorithm') ?? 'SHA1';
  if (!expires || !signature || !idCle) return { valide: false, raison: 'missing signature parameters' };
  // Own keys only: `__proto__` or `toString` must not find something on Object.prototype.
  const clePublique = Object.hasOwn(clesPubliques, idCle) ? clesPubliques[idCle] : undefined;
  if (typeof clePublique !== 'string' || !clePublique) return { valide: false, raison: 'unknown key pair' };
  if (!/^\d{1,12}$/.test(expires)) return { valide: false, raison: 'malformed expiry' };
  if (algorithme !== 'SHA1' && algorithme !== 'SHA256') return { valide: false, raison: 'unknown hash algorithm' };
  // CloudFront's URL-safe base64 (- for +, _ for =, ~ for /); anything else cannot be a signature.
  if (!/^[A-Za-z0-9\-_~]+$/.test(signature)) return { valide: false, raison: 'malformed signature' };

  // The resource as CloudFront reads it: the URL as sent, without its signature parameters. The rest
  // of the query is kept as written (URLSearchParams would write it again its own way: a space as
  // `+`, `*` bare), since that is what was signed.
  const reste = url.search
    .slice(1)
    .split('&')
    .filter((paire) => paire !== '' && !(PARAMETRES_SIGNATURE as readonly string[]).includes(decoder(paire.split('=')[0]!)));
  const ressource = `${url.origin}${url.pathname}${reste.length > 0 ? `?${reste.join('&')}` : ''}`;
  const politique = JSON.stringify({
    Statement: [{ Resource: ressource, Condition: { DateLessThan: { 'AWS:EpochTime': Number(expires) } } }],
  });
  const bonne = verify(
    algorithme === 'SHA256' ? 'RSA-SHA256' : 'RSA-SHA1',
    Buffer.from(politique),
    createPublicKey(clePublique),
    depuisBase64CloudFront(signature),
  );
  if (!bonne) return { valide: false, raison: 'bad signature' };
  if (Number(expires) * 1000 <= maintenant.getTime()) return { valide: false, raison: 'expired' };

  const prefixe = `${base.replace(/\/$/, '')}/`;
  const objet = `${url.origin}${url.pathname}`;
  if (!objet.startsWith(prefixe)) return { valide: false, raison: 'outside the files' };
  const cle = objet.slice(prefixe.length).split('/').map(decodeURIComponent).join('/');
  const disposition = url.searchParams.get(PARAMETRE_DISPOSITION);
  return { valide: true, cle, ...(disposition !== null ? { disposition } : {}) };
};
