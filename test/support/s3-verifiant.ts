/**
 * The local S3 with its signatures checked: s3rver checks none (FIELD-NOTES), so a request signed
 * wrongly would pass every local test and fail on AWS. This front recomputes each request's SigV4
 * signature from the request as received (method, raw path, query, the signed headers, the payload
 * hash, the expiry of a presigned URL) and answers 403 as S3 does when it differs; otherwise it
 * forwards the request unchanged to s3rver (the body streamed, unless its hash is signed: see below)
 * and streams its answer back.
 *
 * It computes signatures with node:crypto alone, independently of the signer it checks, and is
 * itself tested against the real SDK (test/unit/objets.test.ts), which is what makes it trusted.
 */
import { createHash, createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';
import { demarrerS3, identifiantsS3Local, type S3Local } from '../../local/s3';

export interface Refus {
  methode: string;
  url: string;
  code: string;
  raison: string;
  /** What this side signed, to compare with the client's when a test fails. */
  requeteCanonique?: string;
}

export interface S3Verifiant {
  /** The verifier's address: give it to clients as the S3 endpoint. */
  endpoint: string;
  /** The s3rver behind it. */
  s3: S3Local;
  /** Every request refused, in order. */
  refus: Refus[];
  arreter(): Promise<void>;
}

const ALGORITHME = 'AWS4-HMAC-SHA256';
/** S3 refuses a header-signed request dated more than 15 minutes from its clock. */
const DECALAGE_MAX_MS = 15 * 60_000;
const DUREE_MAX_PRESIGNEE_S = 7 * 24 * 3600;
/** Hop-by-hop: about the connection to this front, not the request. */
const NON_TRANSMIS = new Set(['connection', 'keep-alive', 'expect']);

const encoder = (texte: string): string => encodeURIComponent(texte).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const decoder = (texte: string): string => {
  try {
    return decodeURIComponent(texte);
  } catch {
    return texte;
  }
};
const sha256 = (texte: string | Buffer): string => createHash('sha256').update(texte).digest('hex');
const hmac = (cle: string | Buffer, texte: string): Buffer => createHmac('sha256', cle).update(texte).digest();
const echapperXml = (texte: string): string => texte.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** S3 signs each path segment decoded then encoded once (RFC 3986), whatever the client sent. */
const cheminCanonique = (brut: string): string => brut.split('/').map((segment) => encoder(decoder(segment))).join('/');

const pairesQuery = (brute: string): [string, string][] =>
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

class Refuse extends Error {
  constructor(
    readonly statut: number,
    readonly code: string,
    message: string,
    readonly requeteCanonique?: string,
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
    if (hashCorps !== 'UNSIGNED-PAYLOAD' && !/^[0-9a-f]{64}$/.test(hashCorps)) {
      throw new Refuse(400, 'InvalidArgument', `x-amz-content-sha256 ${hashCorps} is not checked here (streamed uploads are not used).`);
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

/** Throws a Refuse unless the request is signed with this secret for this region; gives the payload hash to check. */
const verifier = (req: http.IncomingMessage, cles: { accessKeyId: string; secretAccessKey: string }, region: string, maintenant: Date): string => {
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
    throw new Refuse(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.', requeteCanonique);
  }
  return s.hashCorps;
};

export const demarrerS3Verifiant = async (options: {
  dossier: string;
  seaux: string[];
  /** The region requests must be signed for. */
  region?: string;
  horloge?: () => Date;
}): Promise<S3Verifiant> => {
  const s3 = await demarrerS3({ dossier: options.dossier, seaux: options.seaux });
  const region = options.region ?? 'us-east-1';
  const horloge = options.horloge ?? (() => new Date());
  const agent = new http.Agent({ keepAlive: true });
  const refus: Refus[] = [];

  const refuser = (req: http.IncomingMessage, res: http.ServerResponse, r: Refuse) => {
    refus.push({ methode: req.method ?? '', url: req.url ?? '', code: r.code, raison: r.message, requeteCanonique: r.requeteCanonique });
    req.resume();
    if (res.headersSent) return void res.destroy();
    const corps = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${r.code}</Code><Message>${echapperXml(r.message)}</Message></Error>`;
    res.writeHead(r.statut, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(corps) }).end(corps);
  };

  /** The request to s3rver as received, with its body (`corps`, or streamed from `req`); its answer back. */
  const transmettre = (req: http.IncomingMessage, res: http.ServerResponse, corps?: Buffer) => {
    const entetes = Object.fromEntries(Object.entries(req.headers).filter(([nom]) => !NON_TRANSMIS.has(nom)));
    const amont = http.request({ host: '127.0.0.1', port: s3.port, method: req.method, path: req.url, headers: entetes, agent });
    let repondu = false;
    amont.on('response', (reponse) => {
      repondu = true;
      // s3rver answers a range on an empty object with a 206 promising one byte it never sends (the
      // client sees a reset); S3 answers 416 InvalidRange, and that is what callers must handle.
      if (reponse.statusCode === 206 && /\/0$/.test(reponse.headers['content-range'] ?? '')) {
        reponse.destroy();
        const xml = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>InvalidRange</Code><Message>The requested range is not satisfiable</Message></Error>';
        return void res.writeHead(416, { 'content-type': 'application/xml', 'content-range': 'bytes */0', 'content-length': Buffer.byteLength(xml) }).end(xml);
      }
      res.writeHead(reponse.statusCode ?? 502, reponse.headers);
      pipeline(reponse, res).catch(() => res.destroy());
    });
    const echec = (erreur: Error) => {
      // s3rver may answer an error before reading the whole body, then close: its answer stands.
      if (repondu) return;
      amont.destroy();
      refuser(req, res, new Refuse(502, 'BadGateway', `s3rver: ${erreur.message}`));
    };
    if (corps) {
      amont.on('error', echec);
      amont.end(corps);
    } else {
      pipeline(req, amont).catch(echec);
    }
  };

  const serveur = http.createServer((req, res) => {
    let hashCorps: string;
    try {
      hashCorps = verifier(req, identifiantsS3Local, region, horloge());
    } catch (erreur) {
      if (erreur instanceof Refuse) return refuser(req, res, erreur);
      throw erreur;
    }
    if (hashCorps === 'UNSIGNED-PAYLOAD') return void transmettre(req, res);
    // A signed hash can only be checked at the end of the body, and s3rver keeps what it received of
    // a request cut short: such a body is held until checked, as S3 stores nothing that does not match.
    const morceaux: Buffer[] = [];
    req.on('data', (morceau: Buffer) => morceaux.push(morceau));
    req.on('end', () => {
      const corps = Buffer.concat(morceaux);
      const calcule = sha256(corps);
      if (calcule === hashCorps) return void transmettre(req, res, corps);
      refuser(req, res, new Refuse(400, 'XAmzContentSHA256Mismatch', `The provided x-amz-content-sha256 header does not match what was computed (${calcule}).`));
    });
  });
  await new Promise<void>((resolve) => serveur.listen(0, '127.0.0.1', resolve));
  const { port } = serveur.address() as AddressInfo;

  return {
    endpoint: `http://127.0.0.1:${port}`,
    s3,
    refus,
    arreter: async () => {
      serveur.closeAllConnections();
      await new Promise<void>((resolve) => serveur.close(() => resolve()));
      agent.destroy();
      await s3.arreter();
    },
  };
};
