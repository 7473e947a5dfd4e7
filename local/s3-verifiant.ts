/**
 * The front of the local S3: s3rver checks no signature (FIELD-NOTES), so on its own it stores what
 * S3 refuses (an empty file PUT to a URL signed for 10 bytes, another Content-Type, a tampered or
 * expired URL), and the code behind it then meets objects AWS never gives it. local/s3.ts starts this
 * front before s3rver for every user of the local S3 (the API functions, the pipeline's S3 client,
 * the file server, the tests), so locally, as on AWS, a request or URL does only what it was signed for.
 *
 * For each request it recomputes the SigV4 signature from the request as received (method, raw path,
 * query, the signed headers, the payload hash, the expiry of a presigned URL, the clock skew of a
 * signed request) with the one pair of keys s3rver has, and answers as S3 does (403
 * SignatureDoesNotMatch, InvalidAccessKeyId, AccessDenied…) when it differs; otherwise it forwards
 * the request unchanged to s3rver once its body is whole, and streams the answer back. Where s3rver
 * is not S3, it answers as S3 does: 416 InvalidRange to a range on an empty object (s3rver promises
 * a byte it never sends), 204 to AbortMultipartUpload (s3rver: 405), 412 PreconditionFailed to a GET
 * whose If-Match names another ETag than the object's (s3rver ignores If-Match), and the tags of an
 * `x-amz-tagging` header on PutObject and CreateMultipartUpload set on the object once it exists
 * (s3rver ignores the header; it keeps tags given by PutObjectTagging, which GetObjectTagging reads).
 *
 * It also applies the bucket's CORS rule as S3 does (see CORS below): a browser page (the web site's
 * studio) PUTs photos to the upload URLs from another origin, and asks first with an OPTIONS preflight,
 * which S3 answers from the rule, without a signature, and which s3rver, with no rule, refuses.
 *
 * It computes signatures with node:crypto alone, independently of the signers it checks, and is
 * itself tested against the real SDK (test/unit/objets.test.ts), which is what makes it trusted.
 */
import { createHash, createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';

export interface Refus {
  methode: string;
  url: string;
  code: string;
  raison: string;
  /** What this side signed, to compare with the client's when a test fails. */
  requeteCanonique?: string;
}

export interface OptionsVerifiant {
  /** s3rver's port on 127.0.0.1. */
  portAmont: number;
  /** Where the front listens (0 or absent: any free port). */
  port?: number;
  /** The only keys accepted: s3rver's. */
  identifiants: { accessKeyId: string; secretAccessKey: string };
  /** The region requests must be signed for. */
  region?: string;
  horloge?: () => Date;
  /**
   * AbortMultipartUpload, which s3rver does not implement (405): the parts of upload `idEnvoi` of
   * that key are dropped; false when there is no such upload.
   */
  abandonnerEnvoi?: (seau: string, cle: string, idEnvoi: string) => Promise<boolean>;
}

export interface Verifiant {
  /** The front's address: what clients are given as the S3 endpoint. */
  endpoint: string;
  port: number;
  /** The latest requests refused, oldest first (a test takes them with splice). */
  refus: Refus[];
  arreter(): Promise<void>;
}

const ALGORITHME = 'AWS4-HMAC-SHA256';
/** S3 refuses a header-signed request dated more than 15 minutes from its clock. */
const DECALAGE_MAX_MS = 15 * 60_000;
const DUREE_MAX_PRESIGNEE_S = 7 * 24 * 3600;
/** Hop-by-hop: about the connection to this front, not the request. */
const NON_TRANSMIS = new Set(['connection', 'keep-alive', 'expect']);
/** `npm start` runs for days: the record of refusals keeps the latest only. */
const REFUS_GARDES = 1000;

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
const ENTETES_CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': CORS.methodes.join(', '),
  'access-control-max-age': String(CORS.ageMaxS),
  vary: VARY_CORS,
};

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
const cheminCanonique = (brut: string): string =>
  brut
    .split('/')
    .map((segment) => encoder(decoder(segment)))
    .join('/');

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
    throw new Refuse(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.', {
      requeteCanonique,
      aSigner,
    });
  }
  return s.hashCorps;
};

/** `k=v&k2=v2` (the x-amz-tagging header) → S3's Tagging document. */
const xmlEtiquettes = (entete: string): string =>
  `<Tagging><TagSet>${pairesQuery(entete)
    .map(([cle, valeur]) => `<Tag><Key>${echapperXml(cle)}</Key><Value>${echapperXml(valeur)}</Value></Tag>`)
    .join('')}</TagSet></Tagging>`;

/** S3 compares ETags without their quotes; `*` matches any object. */
const etagsEgaux = (attendu: string, etag: string | undefined): boolean =>
  attendu.trim() === '*' || (etag !== undefined && attendu.replace(/"/g, '').trim() === etag.replace(/"/g, '').trim());

/** S3's error document. */
const xmlErreur = (code: string, message: string, autres: Record<string, string> = {}): string =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${echapperXml(message)}</Message>${Object.entries(autres)
    .map(([nom, valeur]) => `<${nom}>${echapperXml(valeur)}</${nom}>`)
    .join('')}</Error>`;

export const demarrerVerifiant = async (options: OptionsVerifiant): Promise<Verifiant> => {
  const region = options.region ?? 'us-east-1';
  const horloge = options.horloge ?? (() => new Date());
  const agent = new http.Agent({ keepAlive: true });
  const refus: Refus[] = [];
  /** The x-amz-tagging of multipart uploads under way, by UploadId: set on the object when it is completed. */
  const etiquettesEnvois = new Map<string, string>();

  /** PutObjectTagging to s3rver (which checks no signature), for an object at `chemin` (/<bucket>/<key>). */
  const etiqueter = (chemin: string, entete: string): Promise<number> =>
    new Promise((resoudre, rejeter) => {
      const corps = xmlEtiquettes(entete);
      const requete = http.request(
        {
          host: '127.0.0.1',
          port: options.portAmont,
          method: 'PUT',
          path: `${chemin}?tagging`,
          headers: { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(corps) },
          agent,
        },
        (reponse) => {
          reponse.resume();
          reponse.on('end', () => resoudre(reponse.statusCode ?? 502));
        },
      );
      requete.on('error', rejeter);
      requete.end(corps);
    });

  /**
   * What a successful answer of s3rver needs before it goes back: the tags of the PutObject or of the
   * completed multipart upload it answers. The answer's body is held (a few hundred bytes of XML) when
   * it carries a new upload's id.
   */
  const suiteEtiquettes = (req: http.IncomingMessage): ((corps: Buffer) => Promise<void>) | undefined => {
    const url = req.url ?? '/';
    const point = url.indexOf('?');
    const chemin = point < 0 ? url : url.slice(0, point);
    const query = new Map(pairesQuery(point < 0 ? '' : url.slice(point + 1)));
    const entete = req.headers['x-amz-tagging'];
    const tags = typeof entete === 'string' && entete !== '' ? entete : undefined;
    if (req.method === 'PUT' && tags && query.size === 0 && req.headers['x-amz-copy-source'] === undefined) {
      return async () => void (await etiqueter(chemin, tags));
    }
    if (req.method === 'POST' && tags && query.has('uploads')) {
      return async (corps) => {
        const id = /<UploadId>([^<]+)<\/UploadId>/.exec(corps.toString('utf8'))?.[1];
        if (id) etiquettesEnvois.set(id, tags);
      };
    }
    const envoi = query.get('uploadId');
    if (req.method === 'POST' && envoi !== undefined && etiquettesEnvois.has(envoi)) {
      return async () => {
        const differees = etiquettesEnvois.get(envoi)!;
        etiquettesEnvois.delete(envoi);
        await etiqueter(chemin, differees);
      };
    }
    return undefined;
  };

  /** Answers the refusal; `corpsLu`: false when the body was never asked for (Expect: 100-continue). */
  const refuser = (req: http.IncomingMessage, res: http.ServerResponse, r: Refuse, corpsLu = true) => {
    refus.push({ methode: req.method ?? '', url: req.url ?? '', code: r.code, raison: r.message, requeteCanonique: r.signe?.requeteCanonique });
    if (refus.length > REFUS_GARDES) refus.splice(0, refus.length - REFUS_GARDES);
    if (res.headersSent) return void res.destroy();
    const corps = xmlErreur(r.code, r.message, r.signe ? { StringToSign: r.signe.aSigner, CanonicalRequest: r.signe.requeteCanonique } : {});
    // A client that waits for 100 Continue sends no body after a final answer: the connection ends
    // here, or the server would wait for that body to reuse it.
    res.writeHead(r.statut, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(corps), ...(corpsLu ? {} : { connection: 'close' }) });
    res.end(corps);
    if (corpsLu) req.resume();
  };

  /** The request to s3rver as received, with its whole body (its chunks as they came: one copy costs as much as the hash); its answer back. */
  const transmettre = (req: http.IncomingMessage, res: http.ServerResponse, corps: readonly Buffer[], tentative = 1) => {
    const entetes = Object.fromEntries(Object.entries(req.headers).filter(([nom]) => !NON_TRANSMIS.has(nom)));
    if (entetes['transfer-encoding'] !== undefined) {
      delete entetes['transfer-encoding'];
      entetes['content-length'] = String(corps.reduce((total, morceau) => total + morceau.length, 0));
    }
    const amont = http.request({ host: '127.0.0.1', port: options.portAmont, method: req.method, path: req.url, headers: entetes, agent });
    let repondu = false;
    amont.on('response', (reponse) => {
      repondu = true;
      // s3rver answers a range on an empty object with a 206 promising one byte it never sends (the
      // client sees a reset, retries, and fails after ~18 s); S3 answers 416 InvalidRange, and that
      // is what callers must handle.
      if (reponse.statusCode === 206 && /\/0$/.test(reponse.headers['content-range'] ?? '')) {
        reponse.destroy();
        const xml = xmlErreur('InvalidRange', 'The requested range is not satisfiable', {
          RangeRequested: String(req.headers.range ?? ''),
          ActualObjectSize: '0',
        });
        return void res.writeHead(416, { 'content-type': 'application/xml', 'content-range': 'bytes */0', 'content-length': Buffer.byteLength(xml) }).end(xml);
      }
      // If-Match: the object must still be the one the client read before (its ETag), or nothing of it
      // is sent. Compared on the answer's own ETag, so the bytes and the check are of one object.
      const attendu = req.headers['if-match'];
      const statut = reponse.statusCode ?? 502;
      if (attendu !== undefined && statut >= 200 && statut < 300 && !etagsEgaux(attendu, reponse.headers.etag)) {
        reponse.destroy();
        const xml = xmlErreur('PreconditionFailed', 'At least one of the pre-conditions you specified did not hold', { Condition: 'If-Match' });
        return void res.writeHead(412, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(xml) }).end(xml);
      }
      const suite = statut >= 200 && statut < 300 ? suiteEtiquettes(req) : undefined;
      if (suite) {
        const morceaux: Buffer[] = [];
        reponse.on('data', (m: Buffer) => morceaux.push(m));
        reponse.on('end', () => {
          const corps = Buffer.concat(morceaux);
          suite(corps).then(
            () => {
              const { 'transfer-encoding': _, ...entetes } = reponse.headers;
              res.writeHead(statut, { ...entetes, 'content-length': corps.length }).end(corps);
            },
            (erreur: Error) => refuser(req, res, new Refuse(500, 'InternalError', `local S3 front, tagging: ${erreur.message}`)),
          );
        });
        return;
      }
      res.writeHead(statut, reponse.headers);
      pipeline(reponse, res).catch(() => res.destroy());
    });
    amont.on('error', (erreur: Error & { code?: string }) => {
      // s3rver may answer an error before reading the whole body, then close: its answer stands.
      if (repondu) return;
      // A kept-alive socket s3rver closed as it was reused: the request never reached it, and the
      // whole body is here, so it is sent again rather than a 502 the client would have to retry.
      if (amont.reusedSocket && erreur.code === 'ECONNRESET' && tentative === 1) return transmettre(req, res, corps, 2);
      refuser(req, res, new Refuse(502, 'BadGateway', `s3rver: ${erreur.message}`));
    });
    for (const morceau of corps) amont.write(morceau);
    amont.end();
  };

  /**
   * A CORS preflight, answered from the rule as S3 does: before any signature (a browser sends none with
   * it), 400 without the two headers every preflight has, 403 when the method or a header asked for is
   * not in the rule, else 200 with the headers asked for that the rule allows.
   */
  const preflight = (req: http.IncomingMessage, res: http.ServerResponse) => {
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

  /** Checks the signature, then the body once whole; `avantCorps` when the client waits for 100 Continue. */
  const traiter = (req: http.IncomingMessage, res: http.ServerResponse, avantCorps?: () => void) => {
    if (req.method === 'OPTIONS') return preflight(req, res);
    // A PUT from a page carries its Origin: every answer to it, a refusal too, says the rule allows it,
    // or the page could not even read the status of a refused upload.
    if (req.method === 'PUT' && req.headers.origin !== undefined) for (const [nom, valeur] of Object.entries(ENTETES_CORS)) res.setHeader(nom, valeur);
    let hashCorps: string;
    try {
      hashCorps = verifier(req, options.identifiants, region, horloge());
      if (req.method === 'PUT' && req.headers['content-length'] === undefined)
        throw new Refuse(411, 'MissingContentLength', 'You must provide the Content-Length HTTP header.');
    } catch (erreur) {
      // Anything else is a bug of this front: an S3-like 500, not the local stack's process down.
      const r = erreur instanceof Refuse ? erreur : new Refuse(500, 'InternalError', `local S3 front: ${(erreur as Error).message}`);
      return refuser(req, res, r, !avantCorps);
    }
    avantCorps?.();
    // Every body is held until whole, and checked when its hash is signed: s3rver writes an object's
    // file as its bytes arrive, over the one there was, so a body refused at its end or cut short
    // would leave a truncated object where S3 stores nothing and keeps the previous one. Bodies here
    // are at most an image (15 MB) or an upload part (8 MB): holding one costs a copy and a hop
    // after the last byte (tens of ms for 13 MB, measured), and the hash is computed as it arrives.
    const hash = hashCorps === 'UNSIGNED-PAYLOAD' ? undefined : createHash('sha256');
    const morceaux: Buffer[] = [];
    // A client gone mid-body: nothing to answer, nothing forwarded.
    req.on('error', () => undefined);
    req.on('data', (morceau: Buffer) => {
      morceaux.push(morceau);
      hash?.update(morceau);
    });
    req.on('end', () => {
      const calcule = hash?.digest('hex');
      if (calcule !== undefined && calcule !== hashCorps) {
        return refuser(
          req,
          res,
          new Refuse(400, 'XAmzContentSHA256Mismatch', `The provided x-amz-content-sha256 header does not match what was computed (${calcule}).`),
        );
      }
      const abandon = req.method === 'DELETE' ? envoiAbandonne(req.url ?? '/') : undefined;
      if (!abandon) return transmettre(req, res, morceaux);
      abandon.then(
        (fait) => (fait ? void res.writeHead(204).end() : refuser(req, res, new Refuse(404, 'NoSuchUpload', 'The specified multipart upload does not exist.'))),
        (erreur: Error) => refuser(req, res, new Refuse(500, 'InternalError', `local S3: ${erreur.message}`)),
      );
    });
  };

  /** DELETE /<bucket>/<key>?uploadId=…: AbortMultipartUpload, done here (see `abandonnerEnvoi`). */
  const envoiAbandonne = (url: string): Promise<boolean> | undefined => {
    const point = url.indexOf('?');
    const idEnvoi = new Map(pairesQuery(point < 0 ? '' : url.slice(point + 1))).get('uploadId');
    if (idEnvoi === undefined || !options.abandonnerEnvoi) return undefined;
    const [, seau, ...cle] = (point < 0 ? url : url.slice(0, point)).split('/').map(decoder);
    return options.abandonnerEnvoi(seau ?? '', cle.join('/'), idEnvoi);
  };

  const serveur = http.createServer((req, res) => traiter(req, res));
  // As S3: a client that asks before sending its body (the SDK for large bodies, curl above 1 MB) is
  // refused before it sends a byte, and is told to continue only when its signature holds.
  serveur.on('checkContinue', (req, res) => traiter(req, res, () => res.writeContinue()));
  await new Promise<void>((resolve, reject) => {
    serveur.once('error', reject);
    serveur.listen(options.port ?? 0, '127.0.0.1', () => {
      serveur.off('error', reject);
      resolve();
    });
  });
  const { port } = serveur.address() as AddressInfo;

  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    refus,
    arreter: async () => {
      // Requests under way end first, as they did when s3rver was stopped alone (it is stopped after
      // this, so they reach it); a client that never ends its request is cut after a second.
      const ferme = new Promise<void>((resolve) => serveur.close(() => resolve()));
      serveur.closeIdleConnections();
      const coupure = setTimeout(() => serveur.closeAllConnections(), 1000);
      await ferme;
      clearTimeout(coupure);
      agent.destroy();
    },
  };
};
