/**
 * The local S3: s3rver, an S3-compatible server on 127.0.0.1 that keeps objects in a folder, behind
 * a front that checks every request's signature as S3 does (local/s3-verifiant.ts). s3rver checks
 * none (FIELD-NOTES): on its own it stored an empty file PUT to a URL signed for 10 bytes, which AWS
 * refuses, and the code behind it then met an object AWS never gives it. So s3rver listens on an
 * internal port that nothing else is given, and the endpoint here is the front's: the API functions,
 * the pipeline's S3 client, the file server and the tests all go through it, with s3rver's keys.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import S3rver from 's3rver';
import { clientS3 } from '../lambdas/core/infra/client-s3';
import { objetsSignes, type Objets } from '../lambdas/core/infra/objets';
import { demarrerVerifiant, type Refus } from './s3-verifiant';

/** s3rver's keys, the only ones the front accepts: anything signed with other keys is a 403. */
export const identifiantsS3Local = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
export const REGION_S3_LOCALE = 'us-east-1';

export interface S3Local {
  /** The front's address: the S3 endpoint to give clients. */
  endpoint: string;
  port: number;
  /** The latest requests the front refused, oldest first. */
  refus: Refus[];
  arreter(): Promise<void>;
}

export const demarrerS3 = async (options: {
  dossier: string;
  /** The front's port (0 or absent: any free port); s3rver always takes a free one. */
  port?: number;
  seaux: string[];
}): Promise<S3Local> => {
  const serveur = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory: options.dossier,
    silent: true,
    configureBuckets: options.seaux.map((name) => ({ name })),
  });
  const { port: portAmont } = await serveur.run();
  // s3rver answers AbortMultipartUpload 405 and keeps the parts; S3 drops them (204), which a ZIP
  // that fails midway counts on (lambdas/core/infra/zip.ts). s3rver 3.7.1 (its last release) keeps an
  // upload in <folder>/<bucket>/._S3rver_uploads/<id>/, with the key in its `key` file.
  const abandonnerEnvoi = async (seau: string, cle: string, idEnvoi: string): Promise<boolean> => {
    if (!options.seaux.includes(seau) || !/^[0-9a-f]{32}$/.test(idEnvoi)) return false;
    const dossierEnvoi = join(options.dossier, seau, '._S3rver_uploads', idEnvoi);
    const cleEnvoi = await readFile(join(dossierEnvoi, 'key'), 'utf8').catch(() => undefined);
    if (cleEnvoi !== cle) return false;
    await rm(dossierEnvoi, { recursive: true, force: true });
    return true;
  };
  try {
    const front = await demarrerVerifiant({
      portAmont,
      port: options.port,
      identifiants: identifiantsS3Local,
      region: REGION_S3_LOCALE,
      abandonnerEnvoi,
    });
    return {
      endpoint: front.endpoint,
      port: front.port,
      refus: front.refus,
      arreter: async () => {
        await front.arreter();
        await serveur.close();
      },
    };
  } catch (erreur) {
    await serveur.close();
    throw erreur;
  }
};

export const clientS3Local = (endpoint: string) => clientS3(true, { endpoint, region: REGION_S3_LOCALE, credentials: identifiantsS3Local });

/** The API functions' S3 (core/infra/objets.ts) on the local S3: the same signed requests as on AWS. */
export const objetsLocaux = (endpoint: string, bucket: string): Objets =>
  objetsSignes({ bucket, region: REGION_S3_LOCALE, endpoint, cheminStyle: true, identifiants: identifiantsS3Local });
