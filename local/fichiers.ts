/**
 * The local stand-in of the CloudFront distribution in front of the results bucket: a signed link is
 * verified exactly as CloudFront verifies it (lambdas/core/infra/liens.ts), then the object is streamed
 * from the local S3. A tampered or expired link gets 403, a missing object 404.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { GetObjectCommand, NoSuchKey, type S3Client } from '@aws-sdk/client-s3';
import { verifierLien } from '../lambdas/core/infra/liens';

export const CHEMIN_FICHIERS = '/fichiers';

export interface OptionsFichiers {
  s3: S3Client;
  bucket: string;
  /** Base of the links as signed, e.g. http://localhost:3000/fichiers. */
  base: string;
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
    // The link is checked as signed: same base, same path and query as the client sent.
    const verification = verifierLien(
      `${options.base.replace(/\/$/, '')}${(requete.url ?? '').slice(CHEMIN_FICHIERS.length)}`,
      options.clesPubliques,
      options.base,
      options.horloge?.() ?? new Date(),
    );
    if (!verification.valide) {
      refuser(reponse, 403, 'forbidden', `This link is not valid (${verification.raison}); fetch the job again for a fresh link.`);
      return true;
    }
    try {
      const objet = await options.s3.send(new GetObjectCommand({ Bucket: options.bucket, Key: verification.cle }));
      const nom = verification.cle.split('/').pop() ?? 'fichier';
      reponse.writeHead(200, {
        'Content-Type': objet.ContentType ?? 'application/octet-stream',
        ...(objet.ContentLength !== undefined ? { 'Content-Length': String(objet.ContentLength) } : {}),
        'Content-Disposition': `attachment; filename*=UTF-8''${encodeURIComponent(nom)}`,
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
