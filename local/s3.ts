/**
 * The local S3: s3rver, an S3-compatible server on 127.0.0.1 that keeps objects in a folder. It
 * checks no signature (FIELD-NOTES), which is fine: result links are verified in front of it by the
 * local file server, the way CloudFront verifies them on AWS.
 */
import S3rver from 's3rver';
import { clientS3 } from '../lambdas/core/dependances';
import { objetsSignes, type Objets } from '../lambdas/core/objets';

/** s3rver accepts only this access key. */
export const identifiantsS3Local = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export interface S3Local {
  endpoint: string;
  port: number;
  arreter(): Promise<void>;
}

export const demarrerS3 = async (options: { dossier: string; port?: number; seaux: string[] }): Promise<S3Local> => {
  const serveur = new S3rver({
    address: '127.0.0.1',
    port: options.port ?? 0,
    directory: options.dossier,
    silent: true,
    configureBuckets: options.seaux.map((name) => ({ name })),
  });
  const { port } = await serveur.run();
  return { endpoint: `http://127.0.0.1:${port}`, port, arreter: () => serveur.close() };
};

export const clientS3Local = (endpoint: string) =>
  clientS3(true, { endpoint, region: 'us-east-1', credentials: identifiantsS3Local });

/** The API functions' S3 (core/objets.ts) on the local S3: the same signed requests as on AWS. */
export const objetsLocaux = (endpoint: string, bucket: string): Objets =>
  objetsSignes({ bucket, region: 'us-east-1', endpoint, cheminStyle: true, identifiants: identifiantsS3Local });
