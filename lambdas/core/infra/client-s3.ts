/** The S3 client, in its own module: only the functions that touch S3 bundle it. */
import { S3Client } from '@aws-sdk/client-s3';

export const clientS3 = (cheminStyle: boolean, options: ConstructorParameters<typeof S3Client>[0] = {}): S3Client =>
  new S3Client({
    ...options,
    forcePathStyle: cheminStyle,
    // Local S3 servers store aws-chunked framing inside streamed objects otherwise (FIELD-NOTES).
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });

/** The client of a Lambda function (`RETOUCHE_S3_CHEMIN=1`: path-style, for a local S3 server). */
export const s3DepuisEnv = (env: NodeJS.ProcessEnv): S3Client => clientS3(env.RETOUCHE_S3_CHEMIN === '1');
