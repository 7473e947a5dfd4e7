/**
 * The local stand-in of the CloudFront distribution in front of the results bucket: a signed link is
 * verified exactly as CloudFront verifies it (lambdas/core/infra/liens.ts), then the object is streamed
 * from the local S3. A tampered or expired link gets 403, a missing object 404.
 *
 * As the distribution's origin request policy does (lib/liens.ts), a download link's signed
 * `response-content-disposition` is passed on to S3, whose answer's Content-Disposition comes back
 * (attachment, the result's name); a display link's answer has none. Links are on the host the client
 * used (local/hotes.ts), so a link is checked against the host it was asked on, one of the stack's.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { GetObjectCommand, NoSuchKey, type S3Client } from '@aws-sdk/client-s3';
import { verifierLien } from '../lambdas/core/infra/liens';
import { hoteAccepte } from './hotes';

export const CHEMIN_FICHIERS = '/fichiers';

export interface OptionsFichiers {
  s3: S3Client;
  bucket: string;
  /** The hosts links are signed on, e.g. localhost:3000 and 127.0.0.1:3000 (local/hotes.ts). */
  hotes: readonly string[];
  clesPubliques: Readonly<Record<string, string>>;
  horloge?: () => Date;
}

const refuser = (reponse: ServerResponse, statut: number, code: string, message: string) => {
  reponse.writeHead(statut, { 'Content-Type': 'application/json; charset=utf-8' });
  reponse.end(JSON.stringify({ error: { code, message } }));
};

/** Answers the request if it is for a file; returns false to let the gateway handle it. */
export const servirFichiers =
  (options: OptionsFichiers) =>
  async (requete: IncomingMessage, reponse: ServerResponse): Promise<boolean> => {
    const chemin = (requete.url ?? '/').split('?')[0]!;
    if (!chemin.startsWith(`${CHEMIN_FICHIERS}/`)) return false;
    if (requete.method !== 'GET' && requete.method !== 'HEAD') {
      refuser(reponse, 405, 'method_not_allowed', 'Files are read with GET.');
      return true;
    }
    // The link is checked as signed: the host the client asked, same path and query as it sent. A
    // Host the stack does not answer on names no link it signed.
    const hote = hoteAccepte(requete.headers.host, options.hotes);
    const base = hote === undefined ? undefined : `http://${hote}${CHEMIN_FICHIERS}`;
    const verification =
      base === undefined
        ? ({ valide: false, raison: 'unknown host' } as const)
        : verifierLien(`${base}${(requete.url ?? '').slice(CHEMIN_FICHIERS.length)}`, options.clesPubliques, base, options.horloge?.() ?? new Date());
    if (!verification.valide) {
      refuser(reponse, 403, 'forbidden', `This link is not valid (${verification.raison}); fetch the job again for a fresh link.`);
      return true;
    }
    try {
      const objet = await options.s3.send(
        new GetObjectCommand({
          Bucket: options.bucket,
          Key: verification.cle,
          ...(verification.disposition !== undefined ? { ResponseContentDisposition: verification.disposition } : {}),
        }),
      );
      reponse.writeHead(200, {
        'Content-Type': objet.ContentType ?? 'application/octet-stream',
        ...(objet.ContentLength !== undefined ? { 'Content-Length': String(objet.ContentLength) } : {}),
        ...(objet.ContentDisposition !== undefined ? { 'Content-Disposition': objet.ContentDisposition } : {}),
        'Cache-Control': 'private, max-age=3600',
      });
      if (requete.method === 'HEAD' || !(objet.Body instanceof Readable)) {
        reponse.end();
        return true;
      }
      objet.Body.pipe(reponse);
    } catch (erreur) {
      if (erreur instanceof NoSuchKey || (erreur as Error).name === 'NoSuchKey') refuser(reponse, 404, 'not_found', 'This file no longer exists.');
      else refuser(reponse, 502, 'internal_error', 'The file could not be read.');
    }
    return true;
  };
