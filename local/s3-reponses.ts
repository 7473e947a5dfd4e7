/**
 * What the front of the local S3 (local/s3-verifiant.ts) answers itself, in S3's words: its XML error
 * and tagging documents, its ETag comparison, and the bucket's CORS rule (a preflight is answered
 * from the rule, never reaching s3rver, which has none).
 */
import type http from 'node:http';
import { pairesQuery, Refuse } from './s3-signature';

/** How the front answers a refusal (and records it). */
export type Refuser = (req: http.IncomingMessage, res: http.ServerResponse, r: Refuse) => void;

/**
 * The bucket's one CORS rule on AWS (lib/stockage.ts): PUT only, from any origin, with Content-Type and
 * Content-Length, the preflight kept 3000 s. Nothing else is readable cross-origin, as there.
 */
const CORS = { methodes: ['PUT'], entetes: ['content-type', 'content-length'], ageMaxS: 3000 };
/** S3 sends it with every CORS answer: the answer depends on these request headers. */
const VARY_CORS = 'Origin, Access-Control-Request-Headers, Access-Control-Request-Method';
/** S3's own words (its typo included) when a preflight matches no rule. */
const CORS_REFUSE =
  "CORSResponse: This CORS request is not allowed. This is usually because the evalution of Origin, request method / Access-Control-Request-Method or Access-Control-Request-Headers are not whitelisted by the resource's CORS spec.";
/** What S3 adds to an answer to a request (not a preflight) the rule matches. */
export const ENTETES_CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': CORS.methodes.join(', '),
  'access-control-max-age': String(CORS.ageMaxS),
  vary: VARY_CORS,
};

const echapperXml = (texte: string): string => texte.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** `k=v&k2=v2` (the x-amz-tagging header) → S3's Tagging document. */
export const xmlEtiquettes = (entete: string): string =>
  `<Tagging><TagSet>${pairesQuery(entete)
    .map(([cle, valeur]) => `<Tag><Key>${echapperXml(cle)}</Key><Value>${echapperXml(valeur)}</Value></Tag>`)
    .join('')}</TagSet></Tagging>`;

/** S3 compares ETags without their quotes; `*` matches any object. */
export const etagsEgaux = (attendu: string, etag: string | undefined): boolean =>
  attendu.trim() === '*' || (etag !== undefined && attendu.replace(/"/g, '').trim() === etag.replace(/"/g, '').trim());

/** S3's error document. */
export const xmlErreur = (code: string, message: string, autres: Record<string, string> = {}): string =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${echapperXml(message)}</Message>${Object.entries(autres)
    .map(([nom, valeur]) => `<${nom}>${echapperXml(valeur)}</${nom}>`)
    .join('')}</Error>`;

/**
 * A CORS preflight, answered from the rule as S3 does: before any signature (a browser sends none with
 * it), 400 without the two headers every preflight has, 403 when the method or a header asked for is
 * not in the rule, else 200 with the headers asked for that the rule allows.
 */
export const preflight = (req: http.IncomingMessage, res: http.ServerResponse, refuser: Refuser) => {
  const origine = req.headers.origin;
  const methode = req.headers['access-control-request-method'];
  if (!origine) return refuser(req, res, new Refuse(400, 'BadRequest', 'Insufficient information. Origin request header needed.'));
  if (typeof methode !== 'string' || methode === '') return refuser(req, res, new Refuse(400, 'BadRequest', 'Invalid Access-Control-Request-Method: null'));
  const demandes = (req.headers['access-control-request-headers'] ?? '')
    .split(',')
    .map((nom) => nom.trim().toLowerCase())
    .filter((nom) => nom !== '');
  // Methods are compared as written (S3's AllowedMethod is case-sensitive), header names in any case.
  if (!CORS.methodes.includes(methode) || demandes.some((nom) => !CORS.entetes.includes(nom))) {
    return refuser(req, res, new Refuse(403, 'AccessForbidden', CORS_REFUSE));
  }
  res.writeHead(200, {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': CORS.methodes.join(', '),
    ...(demandes.length > 0 ? { 'access-control-allow-headers': demandes.join(', ') } : {}),
    'access-control-max-age': String(CORS.ageMaxS),
    vary: VARY_CORS,
    'content-length': 0,
  });
  res.end();
  req.resume();
};
