/**
 * The result links' distribution (lib/liens.ts), synthesized alone (no bundling, nothing talks to AWS):
 * a download link's signed `response-content-disposition` must reach S3, which sets the answer's
 * Content-Disposition from it (issue 40, point 5); nothing else of the viewer's query or headers goes.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { describe, expect, it } from 'vitest';
import { configurationDepuisContexte } from '../../lib/configuration';
import { Liens } from '../../lib/liens';

const synthetiser = (contexte: Record<string, string>): Template => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'LiensTest', { env: { account: '123456789012', region: 'eu-west-1' } });
  new Liens(
    stack,
    'Liens',
    configurationDepuisContexte((cle) => ({ stage: 'test', ...contexte })[cle]),
    new Bucket(stack, 'Seau'),
  );
  return Template.fromStack(stack);
};

describe('the result links distribution', () => {
  it('forwards response-content-disposition, and only it, to S3; nothing is cached', () => {
    const t = synthetiser({});
    t.resourceCountIs('AWS::CloudFront::OriginRequestPolicy', 1);
    t.hasResourceProperties('AWS::CloudFront::OriginRequestPolicy', {
      OriginRequestPolicyConfig: Match.objectLike({
        QueryStringsConfig: { QueryStringBehavior: 'whitelist', QueryStrings: ['response-content-disposition'] },
        HeadersConfig: { HeaderBehavior: 'none' },
        CookiesConfig: { CookieBehavior: 'none' },
      }),
    });
    const [idPolitique] = Object.keys(t.findResources('AWS::CloudFront::OriginRequestPolicy'));
    t.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        DefaultCacheBehavior: Match.objectLike({
          // CachingDisabled: no cache key to tell a download link from a display link, since nothing is kept.
          CachePolicyId: '4135ea2d-6df8-44a3-9df3-4b5a84be39ad',
          OriginRequestPolicyId: { Ref: idPolitique },
          TrustedKeyGroups: [{ Ref: Match.anyValue() }],
        }),
      }),
    });
  });

  it('has no distribution, hence no policy, when the API serves the links (-c liens=api)', () => {
    const t = synthetiser({ liens: 'api' });
    t.resourceCountIs('AWS::CloudFront::Distribution', 0);
    t.resourceCountIs('AWS::CloudFront::OriginRequestPolicy', 0);
    expect(Object.keys(t.findResources('AWS::SecretsManager::Secret'))).toHaveLength(1);
  });
});
