/**
 * The hop from the front of the local S3 (local/s3-verifiant.ts) to s3rver: a request checked by the
 * front goes on unchanged, and s3rver's answer comes back as S3 would give it, where the two differ
 * (a range on an empty object, If-Match, the tags of an `x-amz-tagging` header).
 */
import http from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { SuiteEtiquettes } from './s3-etiquettes';
import { etagsEgaux, xmlErreur, type Refuser } from './s3-reponses';
import { Refuse } from './s3-signature';

/** Hop-by-hop: about the connection to this front, not the request. */
const NON_TRANSMIS = new Set(['connection', 'keep-alive', 'expect']);

export interface Amont {
  /** s3rver's port on 127.0.0.1. */
  portAmont: number;
  agent: http.Agent;
  suiteEtiquettes: SuiteEtiquettes;
  refuser: Refuser;
}

/** An answer of s3rver held whole, for the tags to be set before it goes back. */
const apresEtiquettes = (
  a: Amont,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  reponse: http.IncomingMessage,
  suite: (corps: Buffer) => Promise<void>,
) => {
  const statut = reponse.statusCode ?? 502;
  const morceaux: Buffer[] = [];
  reponse.on('data', (m: Buffer) => morceaux.push(m));
  reponse.on('end', () => {
    const corps = Buffer.concat(morceaux);
    suite(corps).then(
      () => {
        const { 'transfer-encoding': _, ...entetes } = reponse.headers;
        res.writeHead(statut, { ...entetes, 'content-length': corps.length }).end(corps);
      },
      (erreur: Error) => a.refuser(req, res, new Refuse(500, 'InternalError', `local S3 front, tagging: ${erreur.message}`)),
    );
  });
};

/** s3rver's answer to `req`, given back as S3 would. */
const repondre = (a: Amont, req: http.IncomingMessage, res: http.ServerResponse, reponse: http.IncomingMessage) => {
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
  const suite = statut >= 200 && statut < 300 ? a.suiteEtiquettes(req) : undefined;
  if (suite) return apresEtiquettes(a, req, res, reponse, suite);
  res.writeHead(statut, reponse.headers);
  pipeline(reponse, res).catch(() => res.destroy());
};

/** The request to s3rver as received, with its whole body (its chunks as they came: one copy costs as much as the hash); its answer back. */
export const transmettre = (a: Amont, req: http.IncomingMessage, res: http.ServerResponse, corps: readonly Buffer[], tentative = 1) => {
  const entetes = Object.fromEntries(Object.entries(req.headers).filter(([nom]) => !NON_TRANSMIS.has(nom)));
  if (entetes['transfer-encoding'] !== undefined) {
    delete entetes['transfer-encoding'];
    entetes['content-length'] = String(corps.reduce((total, morceau) => total + morceau.length, 0));
  }
  const amont = http.request({ host: '127.0.0.1', port: a.portAmont, method: req.method, path: req.url, headers: entetes, agent: a.agent });
  let repondu = false;
  amont.on('response', (reponse) => {
    repondu = true;
    repondre(a, req, res, reponse);
  });
  amont.on('error', (erreur: Error & { code?: string }) => {
    // s3rver may answer an error before reading the whole body, then close: its answer stands.
    if (repondu) return;
    // A kept-alive socket s3rver closed as it was reused: the request never reached it, and the
    // whole body is here, so it is sent again rather than a 502 the client would have to retry.
    if (amont.reusedSocket && erreur.code === 'ECONNRESET' && tentative === 1) return transmettre(a, req, res, corps, 2);
    a.refuser(req, res, new Refuse(502, 'BadGateway', `s3rver: ${erreur.message}`));
  });
  for (const morceau of corps) amont.write(morceau);
  amont.end();
};
