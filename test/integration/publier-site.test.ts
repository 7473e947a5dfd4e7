/**
 * `npm run deploy` puts the web site's build in its bucket (exploitation/publier-site.ts): here into the
 * local S3, with CloudFront's client recorded. Each file with its type and cache rule, the files of an
 * older build removed, the pages' copies at the edge invalidated.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudFrontClient, CreateInvalidationCommand } from '@aws-sdk/client-cloudfront';
import { HeadObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { publierSite } from '../../exploitation/publier-site';
import { clientS3Local, demarrerS3, type S3Local } from '../../local/s3';

let dossier: string;
let s3: S3Local;

beforeAll(async () => {
  dossier = mkdtempSync(join(tmpdir(), 'retouche-publication-'));
  s3 = await demarrerS3({ dossier: join(dossier, 's3'), seaux: ['site'] });
});
afterAll(async () => {
  await s3?.arreter();
  rmSync(dossier, { recursive: true, force: true });
});

it('publishes a build: types, cache rules, old files removed, index.html invalidated', async () => {
  const build = join(dossier, 'dist');
  mkdirSync(join(build, 'assets'), { recursive: true });
  writeFileSync(join(build, 'index.html'), '<!doctype html><title>Retouche</title>');
  writeFileSync(join(build, 'assets', 'index-4f2a.js'), 'console.log(1)');
  writeFileSync(join(build, 'assets', 'index-77aa.css'), 'body{}');
  const client = clientS3Local(s3.endpoint);
  await client.send(new PutObjectCommand({ Bucket: 'site', Key: 'assets/index-0000.js', Body: 'old' }));
  const cloudfront = mockClient(CloudFrontClient);
  cloudfront.on(CreateInvalidationCommand).resolves({});

  const bilan = await publierSite({
    s3: client,
    cloudfront: new CloudFrontClient({ region: 'us-east-1' }),
    seau: 'site',
    distribution: 'E123',
    dossier: build,
  });
  expect(bilan).toEqual({ envoyes: 3, retires: 1 });

  const cles = (await client.send(new ListObjectsV2Command({ Bucket: 'site' }))).Contents!.map((o) => o.Key).sort();
  expect(cles).toEqual(['assets/index-4f2a.js', 'assets/index-77aa.css', 'index.html']);
  const index = await client.send(new HeadObjectCommand({ Bucket: 'site', Key: 'index.html' }));
  expect(index).toMatchObject({ ContentType: 'text/html; charset=utf-8', CacheControl: 'no-cache' });
  const script = await client.send(new HeadObjectCommand({ Bucket: 'site', Key: 'assets/index-4f2a.js' }));
  expect(script).toMatchObject({ ContentType: 'text/javascript; charset=utf-8', CacheControl: 'public, max-age=31536000, immutable' });
  const invalidations = cloudfront.commandCalls(CreateInvalidationCommand);
  expect(invalidations).toHaveLength(1);
  expect(invalidations[0]!.args[0].input).toMatchObject({ DistributionId: 'E123', InvalidationBatch: { Paths: { Items: ['/index.html'] } } });
  cloudfront.restore();
});
