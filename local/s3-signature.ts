/**
 * SigV4 as S3 checks it, for the front of the local S3 (local/s3-verifiant.ts): the canonical request
 * rebuilt from the request as received, signed with the one pair of keys s3rver has, and S3's refusal
 * when anything differs. Computed with node:crypto alone, independently of the signers it checks.
 */
import { createHash, createHmac } from 'node:crypto';
import type http from 'node:http';

const ALGORITHME = 'AWS4-HMAC-SHA256';
/** S3 refuses a header-signed request dated more than 15 minutes from its clock. */
const DECALAGE_MAX_MS = 15 * 60_000;
const DUREE_MAX_PRESIGNEE_S = 7 * 24 * 3600;

const encoder = (texte: string): string => encodeURIComponent(texte).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
export const decoder = (texte: string): string => {
  try {
    return decodeURIComponent(texte);
  } catch {
    return texte;
  }
};
const sha256 = (texte: string | Buffer): string => createHash('sha256').update(texte).digest('hex');
const hmac = (cle: string | Buffer, texte: string): Buffer => createHmac('sha256', cle).update(texte).digest();

/** S3 signs each path segment decoded then encoded once (RFC 3986), whatever the client sent. */
const cheminCanonique = (brut: string): string =>
  brut
    .split('/')
    .map((segment) => encoder(decoder(segment)))
    .join('/');

export const pairesQuery = (brute: string): [string, string][] =>
  brute
    .split('&')
    .filter((p) => p !== '')
    .map((p) => {
      const egal = p.indexOf('=');
      return egal < 0 ? [decoder(p), ''] : [decoder(p.slice(0, egal)), decoder(p.slice(egal + 1))];
    });

const queryCanonique = (paires: [string, string][]): string =>
  paires
    .map(([nom, valeur]) => [encoder(nom), encoder(valeur)] as const)
    .sort(([a, va], [b, vb]) => (a < b ? -1 : a > b ? 1 : va < vb ? -1 : va > vb ? 1 : 0))
    .map(([nom, valeur]) => `${nom}=${valeur}`)
    .join('&');

/** 20260123T101112Z → a Date, or undefined when it is not that shape. */
const dateAmz = (texte: string): Date | undefined => {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(texte);
  return m ? new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!)) : undefined;
};

/** A request S3 refuses: its status, code and message as S3 answers them. */
export class Refuse extends Error {
  constructor(
    readonly statut: number,
    readonly code: string,
    message: string,
    /** Given back in the error, as S3 does, so a client can see where its signer differs. */
    readonly signe?: { requeteCanonique: string; aSigner: string },
  ) {
    super(message);
  }
}

interface Signature {
  credential: string;
  signees: string[];
  signature: string;
  date: string;
  /** The hash the signature covers: the header's, or UNSIGNED-PAYLOAD for a presigned URL. */
  hashCorps: string;
  paires: [string, string][];
}

/** The signature fields of a request, from its Authorization header or, presigned, from its query. */
const lireSignature = (req: http.IncomingMessage, paires: [string, string][], maintenant: Date): Signature => {
  const autorisation = req.headers.authorization;
  if (autorisation) {
    const m = /^AWS4-HMAC-SHA256 Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})$/.exec(autorisation);
    if (!m) throw new Refuse(400, 'AuthorizationHeaderMalformed', `Unreadable Authorization header: ${autorisation}`);
    const date = req.headers['x-amz-date'];
    if (typeof date !== 'string' || !dateAmz(date)) throw new Refuse(403, 'AccessDenied', 'AWS authentication requires a valid x-amz-date header.');
    if (Math.abs(dateAmz(date)!.getTime() - maintenant.getTime()) > DECALAGE_MAX_MS) {
      throw new Refuse(403, 'RequestTimeTooSkewed', 'The difference between the request time and the current time is too large.');
    }
    const hashCorps = req.headers['x-amz-content-sha256'];
    if (typeof hashCorps !== 'string') throw new Refuse(400, 'InvalidRequest', 'Missing required header for this request: x-amz-content-sha256.');
    // The STREAMING-* payloads (aws-chunked: each chunk signed, or a checksum trailer) are not
    // decoded here, and s3rver would store their framing inside the object: refused, loudly, rather
    // than stored wrong. The SDK sends none in this project (lambdas/core/infra/client-s3.ts computes
    // checksums only when required, and then in a header).
    if (hashCorps !== 'UNSIGNED-PAYLOAD' && !/^[0-9a-f]{64}$/.test(hashCorps)) {
      throw new Refuse(400, 'InvalidArgument', `x-amz-content-sha256 ${hashCorps} (aws-chunked) is not supported by the local S3.`);
    }
    const signees = m[2]!.split(';');
    const nonSignes = Object.keys(req.headers).filter((nom) => nom.startsWith('x-amz-') && !signees.includes(nom));
    if (nonSignes.length > 0) throw new Refuse(403, 'AccessDenied', `x-amz-* headers must be signed: ${nonSignes.join(', ')}.`);
    return { credential: m[1]!, signees, signature: m[3]!, date, hashCorps, paires };
  }
  const q = new Map(paires);
  if (!q.has('X-Amz-Signature')) throw new Refuse(403, 'AccessDenied', 'Access Denied (the request is not signed).');
  if (q.get('X-Amz-Algorithm') !== ALGORITHME) throw new Refuse(400, 'AuthorizationQueryParametersError', `X-Amz-Algorithm must be ${ALGORITHME}.`);
  const date = q.get('X-Amz-Date') ?? '';
  const debut = dateAmz(date);
  const secondes = Number(q.get('X-Amz-Expires'));
  if (!debut || !Number.isInteger(secondes) || secondes < 1 || secondes > DUREE_MAX_PRESIGNEE_S) {
    throw new Refuse(400, 'AuthorizationQueryParametersError', 'X-Amz-Date and X-Amz-Expires (1 s to 7 days) are required.');
  }
  if (maintenant.getTime() > debut.getTime() + secondes * 1000) throw new Refuse(403, 'AccessDenied', 'Request has expired');
  return {
    credential: q.get('X-Amz-Credential') ?? '',
    signees: (q.get('X-Amz-SignedHeaders') ?? '').split(';'),
    signature: q.get('X-Amz-Signature')!,
    date,
    hashCorps: 'UNSIGNED-PAYLOAD',
    paires: paires.filter(([nom]) => nom !== 'X-Amz-Signature'),
  };
};

/** Throws a Refuse unless the request is signed with these keys for this region; gives the payload hash to check. */
export const verifier = (req: http.IncomingMessage, cles: { accessKeyId: string; secretAccessKey: string }, region: string, maintenant: Date): string => {
  const url = req.url ?? '/';
  const point = url.indexOf('?');
  const cheminBrut = point < 0 ? url : url.slice(0, point);
  const s = lireSignature(req, pairesQuery(point < 0 ? '' : url.slice(point + 1)), maintenant);

  const [cle, jour, regionSignee, service, fin, ...reste] = s.credential.split('/');
  if (cle !== cles.accessKeyId) throw new Refuse(403, 'InvalidAccessKeyId', `The AWS Access Key Id ${cle} does not exist in our records.`);
  if (reste.length > 0 || fin !== 'aws4_request' || service !== 's3' || jour !== s.date.slice(0, 8)) {
    throw new Refuse(400, 'AuthorizationHeaderMalformed', `Bad credential scope ${s.credential}.`);
  }
  if (regionSignee !== region) throw new Refuse(400, 'AuthorizationHeaderMalformed', `The region '${regionSignee}' is wrong; expecting '${region}'.`);
  if (!s.signees.includes('host')) throw new Refuse(403, 'AccessDenied', 'The host header must be signed.');

  const entetes = s.signees.map((nom) => {
    const valeur = req.headers[nom];
    if (valeur === undefined) throw new Refuse(403, 'SignatureDoesNotMatch', `The signed header ${nom} was not sent.`);
    return `${nom}:${(Array.isArray(valeur) ? valeur.join(',') : valeur).trim().replace(/\s+/g, ' ')}\n`;
  });
  const requeteCanonique = [req.method, cheminCanonique(cheminBrut), queryCanonique(s.paires), entetes.join(''), s.signees.join(';'), s.hashCorps].join('\n');
  const portee = `${jour}/${regionSignee}/s3/aws4_request`;
  const aSigner = [ALGORITHME, s.date, portee, sha256(requeteCanonique)].join('\n');
  const cleSignature = hmac(hmac(hmac(hmac(`AWS4${cles.secretAccessKey}`, jour), region), 's3'), 'aws4_request');
  if (hmac(cleSignature, aSigner).toString('hex') !== s.signature) {
    throw new Refuse(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.', {
      requeteCanonique,
      aSigner,
    });
  }
  return s.hashCorps;
};
