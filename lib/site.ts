/**
 * The web site on AWS: its files in a private bucket served by CloudFront (origin access control), and
 * the API under the same origin (`/api/*` goes to API Gateway), so the site calls it without CORS. Every
 * answer carries the strict Content Security Policy of lib/politique-contenu.ts and the usual security
 * headers. A CloudFront Function answers `/config.json` from the stack's own values (the user pool's
 * Region and app client), so the site's configuration is never out of step with its stack, and sends
 * every page path (no file extension) to index.html, whose router shows it.
 *
 * The files themselves are the build of site/ (`npm run site:build`), put in the bucket by
 * `npm run deploy` (exploitation/publier-site.ts) once the stack is up: no Python deployment function
 * in the template, and a build that always matches the deployed code.
 */
import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  Function as FonctionCloudFront,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  OriginRequestPolicy,
  PriceClass,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { RestApiOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { BlockPublicAccess, Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { BASE_CHEMIN } from '../lambdas/http/routes';
import { politiqueDonnees, type ConfigurationStage } from './configuration';
import { politiqueContenu } from './politique-contenu';
import type { Utilisateurs } from './utilisateurs';

export interface ProprietesSite {
  config: ConfigurationStage;
  api: RestApi;
  utilisateurs: Utilisateurs;
  /** The result links' origin (`https://…cloudfront.net`): the pages show results from there. */
  liens: string;
  /**
   * The origin of POST /televersements' upload URLs, the bucket's regional domain
   * (`https://<bucket>.s3.<region>.amazonaws.com`, as lambdas/core/infra/objets.ts presigns them): the
   * studio PUTs photos straight there, which the policy's connect-src must allow.
   */
  televersements: string;
}

/** The viewer-request function: `/config.json` answered here, `/.well-known/…` a JSON 404, page paths to index.html. */
export const codeAiguillage = (configuration: string): string => `function handler(event) {
  var requete = event.request;
  if (requete.uri === '/config.json') {
    return {
      statusCode: 200,
      statusDescription: 'OK',
      headers: { 'content-type': { value: 'application/json' }, 'cache-control': { value: 'no-store' } },
      body: { encoding: 'text', data: ${JSON.stringify(configuration)} },
    };
  }
  // No page of the app: an MCP client looks for OAuth metadata there (oauth-protected-resource,
  // oauth-authorization-server), which this stage does not offer: a JSON 404, as the API answers.
  if (requete.uri.indexOf('/.well-known/') === 0) {
    return {
      statusCode: 404,
      statusDescription: 'Not Found',
      headers: { 'content-type': { value: 'application/json; charset=utf-8' }, 'cache-control': { value: 'no-store' } },
      body: { encoding: 'text', data: ${JSON.stringify(JSON.stringify({ error: { code: 'not_found', message: 'Nothing here: this stage publishes no OAuth metadata; its API and MCP server take an API key as bearer token.' } }))} },
    };
  }
  var dernier = requete.uri.split('/').pop();
  if (dernier.indexOf('.') === -1) requete.uri = '/index.html';
  return requete;
}`;

export class Site extends Construct {
  readonly seau: Bucket;
  readonly distribution: Distribution;
  /** `https://…cloudfront.net/` */
  readonly url: string;

  constructor(scope: Construct, id: string, p: ProprietesSite) {
    super(scope, id);
    const region = Stack.of(this).region;
    this.seau = new Bucket(this, 'Fichiers', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      // Only the build of site/: nothing of a customer's, so nothing to keep when the stage goes.
      removalPolicy: p.config.production ? politiqueDonnees(p.config) : RemovalPolicy.DESTROY,
    });
    Validations.of(this.seau).acknowledge({
      id: 'AwsSolutions::AwsSolutions-S1',
      reason: 'The public build of the web site; requests for it are in the distribution, not worth a log of every page view.',
    });

    const configuration = JSON.stringify({ api: BASE_CHEMIN, cognito: { region, client: p.utilisateurs.client.userPoolClientId } });
    const aiguillage = new FonctionCloudFront(this, 'Aiguillage', {
      runtime: FunctionRuntime.JS_2_0,
      comment: 'Retouche site: /config.json, and page paths to index.html',
      code: FunctionCode.fromInline(codeAiguillage(configuration)),
    });
    const entetes = new ResponseHeadersPolicy(this, 'Entetes', {
      comment: 'Retouche site: strict CSP and security headers',
      securityHeadersBehavior: {
        contentSecurityPolicy: {
          contentSecurityPolicy: politiqueContenu({ cognito: `https://cognito-idp.${region}.amazonaws.com`, liens: p.liens, televersements: p.televersements }),
          override: true,
        },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(730), includeSubdomains: true, override: true },
      },
    });

    this.distribution = new Distribution(this, 'Distribution', {
      comment: `Retouche ${p.config.stage}: web site and its API`,
      defaultRootObject: 'index.html',
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.seau),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        // index.html and the page paths are revalidated (no-cache from the files' metadata); hashed assets last.
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: entetes,
        functionAssociations: [{ function: aiguillage, eventType: FunctionEventType.VIEWER_REQUEST }],
      },
      additionalBehaviors: {
        // The API, same origin: every method, every header but Host (API Gateway refuses a foreign one),
        // nothing cached (answers are per account).
        '/api/*': {
          origin: new RestApiOrigin(p.api),
          viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: AllowedMethods.ALLOW_ALL,
          cachePolicy: CachePolicy.CACHING_DISABLED,
          originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          responseHeadersPolicy: ResponseHeadersPolicy.SECURITY_HEADERS,
        },
      },
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
    });
    this.url = `https://${this.distribution.distributionDomainName}/`;
    Validations.of(this.distribution).acknowledge(
      { id: 'AwsSolutions::AwsSolutions-CFR1', reason: 'Estate agents and platforms are worldwide.' },
      { id: 'AwsSolutions::AwsSolutions-CFR2', reason: 'No WAF: the API behind it authenticates and rate-limits every call exactly, per key or user.' },
      { id: 'AwsSolutions::AwsSolutions-CFR3', reason: 'Access logs would hold every visitor IP; the API logs its calls.' },
      {
        id: 'AwsSolutions::AwsSolutions-CFR4',
        reason: 'The default *.cloudfront.net certificate; attach a custom domain with TLSv1.2_2021 for a branded stage.',
      },
    );
  }
}
