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
 *
 * The signature check is in s3-signature.ts, what the front answers itself (S3's XML, the CORS rule)
 * in s3-reponses.ts, the hop to s3rver in s3-amont.ts and the tags s3rver ignores in s3-etiquettes.ts.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { transmettre, type Amont } from './s3-amont';
import { creerEtiquettes } from './s3-etiquettes';
import { ENTETES_CORS, preflight, xmlErreur } from './s3-reponses';
import { decoder, pairesQuery, Refuse, verifier } from './s3-signature';

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

/** `npm start` runs for days: the record of refusals keeps the latest only. */
const REFUS_GARDES = 1000;

/** What every request of one front is checked and forwarded with. */
interface Front extends Amont {
  options: OptionsVerifiant;
  region: string;
  horloge: () => Date;
  refuser: (req: http.IncomingMessage, res: http.ServerResponse, r: Refuse, corpsLu?: boolean) => void;
}

/** Answers the refusal and records it; `corpsLu`: false when the body was never asked for (Expect: 100-continue). */
const refuser = (refus: Refus[], req: http.IncomingMessage, res: http.ServerResponse, r: Refuse, corpsLu = true) => {
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

/** DELETE /<bucket>/<key>?uploadId=…: AbortMultipartUpload, done here (see `abandonnerEnvoi`). */
const envoiAbandonne = (options: OptionsVerifiant, url: string): Promise<boolean> | undefined => {
  const point = url.indexOf('?');
  const idEnvoi = new Map(pairesQuery(point < 0 ? '' : url.slice(point + 1))).get('uploadId');
  if (idEnvoi === undefined || !options.abandonnerEnvoi) return undefined;
  const [, seau, ...cle] = (point < 0 ? url : url.slice(0, point)).split('/').map(decoder);
  return options.abandonnerEnvoi(seau ?? '', cle.join('/'), idEnvoi);
};

/**
 * The body of a request whose signature holds, then what it asks for. Every body is held until whole,
 * and checked when its hash is signed: s3rver writes an object's file as its bytes arrive, over the
 * one there was, so a body refused at its end or cut short would leave a truncated object where S3
 * stores nothing and keeps the previous one. Bodies here are at most an image (15 MB) or an upload
 * part (8 MB): holding one costs a copy and a hop after the last byte (tens of ms for 13 MB,
 * measured), and the hash is computed as it arrives.
 */
const recevoir = (front: Front, req: http.IncomingMessage, res: http.ServerResponse, hashCorps: string) => {
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
      return front.refuser(
        req,
        res,
        new Refuse(400, 'XAmzContentSHA256Mismatch', `The provided x-amz-content-sha256 header does not match what was computed (${calcule}).`),
      );
    }
    const abandon = req.method === 'DELETE' ? envoiAbandonne(front.options, req.url ?? '/') : undefined;
    if (!abandon) return transmettre(front, req, res, morceaux);
    abandon.then(
      (fait) =>
        fait ? void res.writeHead(204).end() : front.refuser(req, res, new Refuse(404, 'NoSuchUpload', 'The specified multipart upload does not exist.')),
      (erreur: Error) => front.refuser(req, res, new Refuse(500, 'InternalError', `local S3: ${erreur.message}`)),
    );
  });
};

/** Checks the signature, then the body once whole; `avantCorps` when the client waits for 100 Continue. */
const traiter = (front: Front, req: http.IncomingMessage, res: http.ServerResponse, avantCorps?: () => void) => {
  if (req.method === 'OPTIONS') return preflight(req, res, front.refuser);
  // A PUT from a page carries its Origin: every answer to it, a refusal too, says the rule allows it,
  // or the page could not even read the status of a refused upload.
  if (req.method === 'PUT' && req.headers.origin !== undefined) for (const [nom, valeur] of Object.entries(ENTETES_CORS)) res.setHeader(nom, valeur);
  let hashCorps: string;
  try {
    hashCorps = verifier(req, front.options.identifiants, front.region, front.horloge());
    if (req.method === 'PUT' && req.headers['content-length'] === undefined)
      throw new Refuse(411, 'MissingContentLength', 'You must provide the Content-Length HTTP header.');
  } catch (erreur) {
    // Anything else is a bug of this front: an S3-like 500, not the local stack's process down.
    const r = erreur instanceof Refuse ? erreur : new Refuse(500, 'InternalError', `local S3 front: ${(erreur as Error).message}`);
    return front.refuser(req, res, r, !avantCorps);
  }
  avantCorps?.();
  recevoir(front, req, res, hashCorps);
};

export const demarrerVerifiant = async (options: OptionsVerifiant): Promise<Verifiant> => {
  const agent = new http.Agent({ keepAlive: true });
  const refus: Refus[] = [];
  const front: Front = {
    options,
    region: options.region ?? 'us-east-1',
    horloge: options.horloge ?? (() => new Date()),
    portAmont: options.portAmont,
    agent,
    suiteEtiquettes: creerEtiquettes(options.portAmont, agent),
    refuser: (req, res, r, corpsLu) => refuser(refus, req, res, r, corpsLu),
  };
  const serveur = http.createServer((req, res) => traiter(front, req, res));
  // As S3: a client that asks before sending its body (the SDK for large bodies, curl above 1 MB) is
  // refused before it sends a byte, and is told to continue only when its signature holds.
  serveur.on('checkContinue', (req, res) => traiter(front, req, res, () => res.writeContinue()));
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
