/**
 * The S3 the API functions need, without the S3 client: five calls signed with SigV4 by the same
 * signer, HTTP handler and credential chain the DynamoDB client already bundles. `@aws-sdk/client-s3`
 * (about 180 KB minified) doubled the cold start of every function that only puts, reads the head
 * of, deletes or presigns an object.
 *
 * Signed requests carry the payload's SHA-256 (S3 wants `x-amz-content-sha256` on every request);
 * presigned URLs sign `UNSIGNED-PAYLOAD`, as the SDK's presigner does, since the body is not known
 * when the URL is made. s3rver checks no signature; the local stack's front of it does
 * (local/s3-verifiant.ts), as S3 does.
 */
import { createHash } from 'node:crypto';
import { setTimeout as attendre } from 'node:timers/promises';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
// The SHA-256 (and HMAC) the SDK's own clients sign with, on node:crypto.
import { Sha256 } from '@smithy/core/checksum';
import { HttpRequest, type HttpHandler } from '@smithy/core/protocols';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { dispositionPieceJointe } from '../modele/disposition';
import { parPaquets } from './paquets';

export interface Objets {
  /** Writes an object (an input image). */
  deposer(cle: string, octets: Uint8Array, typeContenu: string): Promise<void>;
  /**
   * The first `n` bytes of an object and its whole size; undefined when it is not there (404, or the
   * 403 AccessDenied AWS gives for a missing key to a role that may not list the bucket); an empty
   * object (416 to a range) gives { octets: empty, taille: 0 }. `etag`: the ETag of the object these
   * bytes come from, so that what was checked can be read again, and only it (If-Match).
   */
  lireDebut(cle: string, n: number): Promise<{ octets: Buffer; taille: number; etag?: string } | undefined>;
  /** Deletes objects (one DELETE per key, a few at a time); a missing key is not an error. */
  supprimer(cles: readonly string[]): Promise<void>;
  /** A presigned PUT URL that accepts exactly this Content-Type and Content-Length (both signed). */
  urlDepot(cle: string, typeContenu: string, taille: number, secondes: number): Promise<string>;
  /**
   * A presigned GET URL whose answer downloads as `nomTelechargement` (S3's `response-content-disposition`,
   * RFC 6266: core/modele/disposition.ts); null: no Content-Disposition, the file to be shown.
   */
  urlLecture(cle: string, nomTelechargement: string | null, secondes: number): Promise<string>;
}

export interface ConfigObjets {
  bucket: string;
  region: string;
  /** Another S3 than AWS's, e.g. `http://127.0.0.1:4569`. */
  endpoint?: string;
  /** `https://host/<bucket>/<key>` rather than `https://<bucket>.host/<key>` (local S3 servers). */
  cheminStyle: boolean;
  identifiants: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  horloge?: () => Date;
  /** Stands in for the network in tests. */
  gestionnaire?: HttpHandler;
}

/** A non-2xx answer from S3. */
export class ErreurObjets extends Error {
  override readonly name = 'ErreurObjets';
  constructor(
    readonly operation: string,
    readonly statut: number,
    /** The S3 error `<Code>`, when the answer had one (a HEAD or a proxy's answer may not). */
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

/** RFC 3986: what S3 signs. encodeURIComponent leaves `!'()*` as they are, S3 canonicalises them encoded. */
const encoder = (texte: string): string => encodeURIComponent(texte).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** A key is signed as sent (uriEscapePath: false), so it is encoded once, segment by segment, keeping its '/'. */
const cheminCle = (cle: string): string => cle.split('/').map(encoder).join('/');

const versTexte = (requete: HttpRequest): string => {
  const port = requete.port ? `:${requete.port}` : '';
  const query = Object.entries(requete.query)
    .map(([nom, valeur]) => `${encoder(nom)}=${encoder(String(valeur))}`)
    .join('&');
  return `${requete.protocol}//${requete.hostname}${port}${requete.path}${query ? `?${query}` : ''}`;
};

const lireCorps = async (corps: unknown): Promise<Buffer> => {
  if (corps == null) return Buffer.alloc(0);
  if (corps instanceof Uint8Array) return Buffer.from(corps);
  const morceaux: Buffer[] = [];
  for await (const morceau of corps as AsyncIterable<Uint8Array | string>) morceaux.push(Buffer.from(morceau));
  return Buffer.concat(morceaux);
};

const entete = (entetes: Record<string, string>, nom: string): string | undefined => Object.entries(entetes).find(([n]) => n.toLowerCase() === nom)?.[1];

/**
 * As the SDK's clients do: S3 asks to be retried with 500 InternalError and 503 SlowDown, and a
 * kept-alive socket may have been closed while the function was frozen. Every call here may be
 * repeated (PUT and DELETE of a key are idempotent).
 */
const TENTATIVES = 3;
const transitoire = (e: unknown): boolean =>
  ['ECONNRESET', 'EPIPE', 'ETIMEDOUT'].includes((e as { code?: string }).code ?? '') || (e as Error).name === 'TimeoutError';
/** Exponential, with full jitter: 0–200 ms, then 0–400 ms. */
const pause = (tentative: number) => attendre(Math.random() * 100 * 2 ** tentative);

const sha256Hex = (octets: Uint8Array): string => createHash('sha256').update(octets).digest('hex');

/** What every request of one bucket is made with: its signer, its HTTP handler, where it is. */
interface Contexte {
  config: ConfigObjets;
  horloge: () => Date;
  gestionnaire: HttpHandler;
  signataire: SignatureV4;
  base: URL;
  /** The endpoint's own path, if any, before the bucket's or the key's. */
  prefixe: string;
}

const contexte = (config: ConfigObjets): Contexte => {
  const base = new URL(config.endpoint ?? `https://s3.${config.region}.amazonaws.com`);
  return {
    config,
    horloge: config.horloge ?? (() => new Date()),
    gestionnaire: config.gestionnaire ?? new NodeHttpHandler(),
    signataire: new SignatureV4({ service: 's3', region: config.region, credentials: config.identifiants, sha256: Sha256, uriEscapePath: false }),
    base,
    prefixe: base.pathname.replace(/\/$/, ''),
  };
};

const requete = (c: Contexte, methode: string, cle: string, entetes: Record<string, string> = {}, query: Record<string, string> = {}, corps?: Uint8Array) => {
  const { config, base, prefixe } = c;
  const hote = config.cheminStyle ? base.hostname : `${config.bucket}.${base.hostname}`;
  const chemin = config.cheminStyle ? `${prefixe}/${config.bucket}/${cheminCle(cle)}` : `${prefixe}/${cheminCle(cle)}`;
  return new HttpRequest({
    method: methode,
    protocol: base.protocol,
    hostname: hote,
    port: base.port ? Number(base.port) : undefined,
    path: chemin,
    query,
    // The host is signed, so it must be in the headers the signer sees, with the port as sent.
    headers: { host: base.port ? `${hote}:${base.port}` : hote, ...entetes },
    body: corps,
  });
};

const erreur = (operation: string, statut: number, corps: Buffer): ErreurObjets => {
  const xml = corps.toString('utf8');
  const code = /<Code>([^<]*)<\/Code>/.exec(xml)?.[1];
  const message = /<Message>([^<]*)<\/Message>/.exec(xml)?.[1];
  return new ErreurObjets(operation, statut, code, `S3 ${operation}: ${statut}${code ? ` ${code}` : ''}${message ? ` (${message})` : ''}`);
};

/** Signs and sends; the body is always read, so the connection goes back to the pool. */
const envoyer = async (c: Contexte, operation: string, brute: HttpRequest, acceptes: readonly number[] = []) => {
  brute.headers['x-amz-content-sha256'] = sha256Hex((brute.body as Uint8Array | undefined) ?? new Uint8Array(0));
  for (let tentative = 1; ; tentative++) {
    let reponse: { statut: number; entetes: Record<string, string>; corps: Buffer };
    try {
      // Signed again each time: the signature is dated.
      const { response } = await c.gestionnaire.handle((await c.signataire.sign(brute, { signingDate: c.horloge() })) as HttpRequest);
      reponse = { statut: response.statusCode, entetes: response.headers, corps: await lireCorps(response.body) };
    } catch (e) {
      if (tentative < TENTATIVES && transitoire(e)) {
        await pause(tentative);
        continue;
      }
      throw e;
    }
    if ((reponse.statut >= 200 && reponse.statut < 300) || acceptes.includes(reponse.statut)) return reponse;
    if (tentative < TENTATIVES && reponse.statut >= 500) {
      await pause(tentative);
      continue;
    }
    throw erreur(operation, reponse.statut, reponse.corps);
  }
};

const presigner = async (c: Contexte, brute: HttpRequest, secondes: number): Promise<string> => {
  // As the SDK's presigner: the body is not known yet. This header is an x-amz-* one, so the signer
  // hoists it into the query; host, Content-Type and Content-Length stay headers the client must send.
  brute.headers['X-Amz-Content-Sha256'] = 'UNSIGNED-PAYLOAD';
  return versTexte((await c.signataire.presign(brute, { signingDate: c.horloge(), expiresIn: secondes })) as HttpRequest);
};

const lireDebut = async (c: Contexte, cle: string, n: number): Promise<{ octets: Buffer; taille: number; etag?: string } | undefined> => {
  if (!(n >= 1)) throw new RangeError(`lireDebut: n must be at least 1, not ${n}`);
  const { statut, entetes, corps } = await envoyer(c, 'GetObject', requete(c, 'GET', cle, { range: `bytes=0-${n - 1}` }), [403, 404, 416]);
  if (statut === 404) return undefined;
  // On AWS a missing key answers 403 AccessDenied, not 404, to a role that may not list the bucket
  // (and it should not: listing would show every account's keys). Any other 403 (a bad signature,
  // an expired token) is a failure, not an upload that has not arrived.
  if (statut === 403) {
    const { code } = erreur('GetObject', statut, corps);
    if (code === undefined || code === 'AccessDenied') return undefined;
    throw erreur('GetObject', statut, corps);
  }
  const etag = entete(entetes, 'etag');
  if (statut === 416) return { octets: Buffer.alloc(0), taille: 0, ...(etag ? { etag } : {}) };
  // 206: "bytes 0-499/1234"; 200 when the server ignored the range: the whole object.
  const total = /\/(\d+)$/.exec(entete(entetes, 'content-range') ?? '')?.[1];
  return { octets: corps.subarray(0, n), taille: total ? Number(total) : corps.length, ...(etag ? { etag } : {}) };
};

export const objetsSignes = (config: ConfigObjets): Objets => {
  const c = contexte(config);
  return {
    deposer: async (cle, octets, typeContenu) => {
      await envoyer(c, 'PutObject', requete(c, 'PUT', cle, { 'content-type': typeContenu, 'content-length': String(octets.byteLength) }, {}, octets));
    },

    lireDebut: (cle, n) => lireDebut(c, cle, n),

    supprimer: async (cles) => {
      // One DELETE per key: DeleteObjects needs a Content-MD5 and an XML body, and a refused request
      // leaves at most a few inputs here. S3 answers 204 for a key that is not there.
      await parPaquets(cles, 8, async (cle) => {
        await envoyer(c, 'DeleteObject', requete(c, 'DELETE', cle), [404]);
      });
    },

    urlDepot: (cle, typeContenu, taille, secondes) =>
      presigner(c, requete(c, 'PUT', cle, { 'content-type': typeContenu, 'content-length': String(taille) }), secondes),

    urlLecture: (cle, nomTelechargement, secondes) =>
      presigner(
        c,
        requete(c, 'GET', cle, {}, nomTelechargement === null ? {} : { 'response-content-disposition': dispositionPieceJointe(nomTelechargement) }),
        secondes,
      ),
  };
};

/**
 * The objects of a Lambda function: its bucket, its region, the SDK's standard endpoint variables
 * (for a local S3), `RETOUCHE_S3_CHEMIN=1` for path-style, and the SDK's default credential chain,
 * which reads the role's credentials Lambda puts in the environment (memoised, refreshed before
 * they expire).
 */
export const objetsDepuisEnv = (env: NodeJS.ProcessEnv): Objets => {
  const { AWS_REGION: region, RETOUCHE_BUCKET: bucket } = env;
  // Said at the cold start rather than as a wrong host or signature at the first request.
  if (!region || !bucket) throw new Error(`missing environment variable ${region ? 'RETOUCHE_BUCKET' : 'AWS_REGION'}`);
  return objetsSignes({
    bucket,
    region,
    endpoint: env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL || undefined,
    cheminStyle: env.RETOUCHE_S3_CHEMIN === '1',
    identifiants: defaultProvider(),
  });
};
