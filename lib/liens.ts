/**
 * Result links that really last the 24 hours the spec promises. A URL presigned by a Lambda role
 * dies with the role's temporary credentials; a CloudFront signed URL depends only on a key pair.
 *
 * - The key pair is generated in the account at deploy time (lambdas/deploiement/cle-liens.ts): the
 *   private key goes straight into a Secrets Manager secret, the public key into a CloudFront key
 *   group that the distribution trusts. The bucket is reachable only through the distribution (OAC).
 * - Fallback `-c liens=api` for LocalStack (no CloudFront): the same signed links point at the
 *   API's `/fichiers/...` route, whose function checks the signature exactly as CloudFront would
 *   and redirects to a one-minute S3 URL.
 * - A download link carries `response-content-disposition` in its query, signed with it
 *   (lambdas/core/infra/liens.ts). The distribution forwards that one parameter to S3 (its origin
 *   request policy), and S3 answers with that Content-Disposition (attachment, the result's name): S3
 *   honours it on signed requests only, which the OAC's are. A page's `download` attribute alone
 *   cannot do it, since the links are on another origin than the site.
 */
import { CustomResource, Duration, Validations } from 'aws-cdk-lib';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HttpVersion,
  KeyGroup,
  OriginRequestPolicy,
  OriginRequestQueryStringBehavior,
  PriceClass,
  PublicKey,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { politiqueDonnees, retentionJournaux, type ConfigurationStage } from './configuration';
import { Fonction } from './fonction';

/** Bump to rotate the key pair (outstanding links stop working). */
const GENERATION_CLE = '1';

export class Liens extends Construct {
  /** The secret holding the private key: readable only by the functions that answer with links. */
  readonly secret: Secret;
  /** Public key (PEM) and its id, as the link checker of the API fallback needs them. */
  readonly clePublique: string;
  readonly idCle: string;
  /** CloudFront distribution, when links are served by CloudFront. */
  readonly distribution?: Distribution;
  /** CloudFront public key id (`Key-Pair-Id` of the links), when links are served by CloudFront. */
  readonly idCleCloudFront?: string;

  constructor(scope: Construct, id: string, config: ConfigurationStage, bucket: IBucket) {
    super(scope, id);
    this.secret = new Secret(this, 'ClePrivee', {
      description: 'Retouche: RSA private key that signs result links (written by the CleLiens resource)',
      removalPolicy: politiqueDonnees(config),
    });
    Validations.of(this.secret).acknowledge({
      id: 'AwsSolutions::AwsSolutions-SMG4',
      reason: 'A signing key, not a credential: rotating it invalidates every outstanding link; it is rotated on purpose by bumping GENERATION_CLE.',
    });

    const generateur = new Fonction(this, 'GenerateurCle', {
      module: 'deploiement/cle-liens',
      description: 'Deploy time: generates the link signing key pair into its secret',
      memoire: 256,
      delai: Duration.minutes(1),
      retention: retentionJournaux(config),
      removalPolicy: politiqueDonnees(config),
    });
    // What cle-liens.ts calls, no more: grantRead/grantWrite would add DescribeSecret, UpdateSecret
    // and UpdateSecretVersionStage, which it never calls.
    generateur.addToRolePolicy(
      new PolicyStatement({ actions: ['secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue'], resources: [this.secret.secretArn] }),
    );
    const cle = new CustomResource(this, 'CleLiens', {
      serviceToken: generateur.functionArn,
      resourceType: 'Custom::CleLiens',
      properties: { Secret: this.secret.secretArn, Generation: GENERATION_CLE },
    });
    this.clePublique = cle.getAttString('ClePublique');
    this.idCle = cle.getAttString('IdCle');

    if (config.liens === 'cloudfront') {
      const publique = new PublicKey(this, 'ClePublique', {
        encodedKey: this.clePublique,
        comment: 'Retouche result links',
      });
      const groupe = new KeyGroup(this, 'GroupeCles', { items: [publique] });
      // To S3, the download name and nothing else of the viewer's query: not the signature's parameters
      // (S3 has no use of them), no header (OAC signs the request S3 gets).
      const disposition = new OriginRequestPolicy(this, 'Disposition', {
        comment: `Retouche ${config.stage}: the signed download name of a result link, to S3`,
        queryStringBehavior: OriginRequestQueryStringBehavior.allowList('response-content-disposition'),
      });
      this.distribution = new Distribution(this, 'Distribution', {
        comment: `Retouche ${config.stage}: signed result links`,
        defaultBehavior: {
          origin: S3BucketOrigin.withOriginAccessControl(bucket),
          trustedKeyGroups: [groupe],
          viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
          // No copy at the edge: an erased file (core/domaine/effacement.ts) must stop downloading at once, and a
          // batch ZIP written again after an erasure keeps its key. Each link is downloaded a few times,
          // so a cache saves little; every request still goes through the signature check first.
          cachePolicy: CachePolicy.CACHING_DISABLED,
          // With nothing cached there is no cache key to split by name: a display link and a download
          // link of one file are two requests to S3, each answered with its own headers.
          originRequestPolicy: disposition,
          responseHeadersPolicy: ResponseHeadersPolicy.SECURITY_HEADERS,
        },
        httpVersion: HttpVersion.HTTP2_AND_3,
        priceClass: PriceClass.PRICE_CLASS_100,
      });
      this.idCleCloudFront = publique.publicKeyId;
      Validations.of(this.distribution).acknowledge(
        { id: 'AwsSolutions::AwsSolutions-CFR1', reason: 'Customers and their buyers are worldwide; every request carries a signature.' },
        {
          id: 'AwsSolutions::AwsSolutions-CFR2',
          reason: 'Only signed GETs of private results reach the origin; a WAF adds cost and nothing a signature does not already refuse.',
        },
        { id: 'AwsSolutions::AwsSolutions-CFR3', reason: 'Download logs would hold every buyer IP; the API side logs who asked for which link.' },
        {
          id: 'AwsSolutions::AwsSolutions-CFR4',
          reason: 'The default *.cloudfront.net certificate; attach a custom domain with TLSv1.2_2021 for a branded stage.',
        },
      );
    }
  }

  /** Base of the links and their key id, for the functions that sign them. */
  base(apiFichiers?: string): { base: string; idCle: string } {
    if (this.distribution && this.idCleCloudFront) {
      return { base: `https://${this.distribution.distributionDomainName}`, idCle: this.idCleCloudFront };
    }
    if (!apiFichiers) throw new Error('links served by the API need the API files URL');
    return { base: apiFichiers, idCle: this.idCle };
  }
}
