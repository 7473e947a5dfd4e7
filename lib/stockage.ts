/**
 * Storage: one private bucket for inputs, results and batch ZIPs. The lifecycle rules enforce the
 * retention in lambdas/core/retention.ts; nobody reads the bucket directly (results are delivered
 * through signed links: lib/liens.ts).
 */
import { Duration, Validations } from 'aws-cdk-lib';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import {
  NETTOYAGE_ENVOIS_INCOMPLETS_JOURS,
  PREFIXES,
  RETENTION_ENTREES_JOURS,
  RETENTION_RESULTATS_JOURS,
} from '../lambdas/core/retention';
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
      lifecycleRules: [
        { id: 'resultats-90-jours', prefix: PREFIXES.resultats, expiration: Duration.days(RETENTION_RESULTATS_JOURS) },
        { id: 'zips-90-jours', prefix: PREFIXES.zips, expiration: Duration.days(RETENTION_RESULTATS_JOURS) },
        { id: 'entrees', prefix: PREFIXES.entrees, expiration: Duration.days(RETENTION_ENTREES_JOURS) },
        { id: 'envois-incomplets', abortIncompleteMultipartUploadAfter: Duration.days(NETTOYAGE_ENVOIS_INCOMPLETS_JOURS) },
      ],
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions::AwsSolutions-S1',
      reason: 'Only the service roles and CloudFront (OAC) reach the bucket; who obtained which link is logged by the API. Enable CloudTrail data events for a per-object audit.',
    });
  }
}
