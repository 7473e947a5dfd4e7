/**
 * Storage: one private bucket for inputs, direct uploads, results and batch ZIPs. The lifecycle
 * rules enforce the retention in lambdas/core/modele/retention.ts; nobody reads the bucket directly
 * (results are delivered through signed links: lib/liens.ts), and clients write to it only with the
 * presigned PUT URLs of POST /televersements. Its policy (TLS only, TLS 1.2 or later) and its
 * default encryption (SSE-S3, applied by S3 itself, no header or KMS grant needed) leave such a PUT
 * over HTTPS untouched.
 */
import { Duration, Validations } from 'aws-cdk-lib';
import { BlockPublicAccess, Bucket, BucketEncryption, HttpMethods, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import {
  ETIQUETTE_RETENTION,
  NETTOYAGE_ENVOIS_INCOMPLETS_JOURS,
  PREFIXES,
  RETENTION_ENTREES_JOURS,
  RETENTION_RESULTATS_JOURS,
  RETENTION_TELEVERSEMENTS_JOURS,
} from '../lambdas/core/modele/retention';
import { politiqueDonnees, type ConfigurationStage } from './configuration';

export class Stockage extends Construct {
  readonly bucket: Bucket;

  constructor(scope: Construct, id: string, config: ConfigurationStage) {
    super(scope, id);
    this.bucket = new Bucket(this, 'Fichiers', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      removalPolicy: politiqueDonnees(config),
      // Direct uploads (POST /televersements) are PUT straight to this bucket with presigned URLs. A
      // browser page sends a Content-Type header, so it first asks S3 (preflight OPTIONS) whether a
      // PUT from its origin may carry it: without this rule S3 answers 403 and the browser never
      // sends the photo. Any origin, since customers upload from their own sites; the rule grants no
      // access by itself (only the signature in the URL does, for one key, size and type, 15 minutes)
      // and covers PUT only, so nothing is readable cross-origin. Content-Length is set by browsers
      // themselves and never preflighted, listed for clients that announce it.
      cors: [
        {
          allowedMethods: [HttpMethods.PUT],
          allowedOrigins: ['*'],
          allowedHeaders: ['Content-Type', 'Content-Length'],
          maxAge: 3000,
        },
      ],
      lifecycleRules: [
        { id: 'resultats-90-jours', prefix: PREFIXES.resultats, expiration: Duration.days(RETENTION_RESULTATS_JOURS) },
        { id: 'zips-90-jours', prefix: PREFIXES.zips, expiration: Duration.days(RETENTION_RESULTATS_JOURS) },
        { id: 'entrees', prefix: PREFIXES.entrees, expiration: Duration.days(RETENTION_ENTREES_JOURS) },
        // Direct uploads, used by a job or not.
        { id: 'televersements', prefix: PREFIXES.televersements, expiration: Duration.days(RETENTION_TELEVERSEMENTS_JOURS) },
        { id: 'envois-incomplets', abortIncompleteMultipartUploadAfter: Duration.days(NETTOYAGE_ENVOIS_INCOMPLETS_JOURS) },
        // Results and ZIPs carry the whole days their job or batch has left (core/modele/retention.ts): one rule
        // per value, so a ZIP written again late in its batch's life goes with the batch, not 90 days on.
        // Where two rules apply, S3 applies the earlier expiration.
        ...Array.from({ length: RETENTION_RESULTATS_JOURS }, (_, i) => ({
          id: `${ETIQUETTE_RETENTION}-${i + 1}`,
          tagFilters: { [ETIQUETTE_RETENTION]: String(i + 1) },
          expiration: Duration.days(i + 1),
        })),
      ],
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions::AwsSolutions-S1',
      reason:
        'Only the service roles and CloudFront (OAC) reach the bucket; who obtained which link is logged by the API. Enable CloudTrail data events for a per-object audit.',
    });
  }
}
