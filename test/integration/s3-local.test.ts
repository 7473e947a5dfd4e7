/**
 * The local S3 as S3 on AWS, through the real local stack: s3rver checks no signature, so the stack's
 * S3 is its verifying front (local/s3.ts, local/s3-verifiant.ts). A presigned PUT URL stores only the
 * file it was signed for (an empty file PUT to a URL signed for 10 bytes used to be stored, and the
 * job naming it answered 500 after ~18 s of retries), a range on an empty object is S3's 416, only
 * s3rver's keys are accepted, and every call the SDK makes in this project passes.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientS3 } from '../../lambdas/core/infra/client-s3';
import { objetsSignes } from '../../lambdas/core/infra/objets';
import { cleTeleversement } from '../../lambdas/core/modele/cles-s3';
import type { Televersement } from '../../lambdas/core/domaine/televersements';
import { ecrireZip } from '../../lambdas/core/infra/zip';
import { identifiantsLocaux } from '../../local/dynamodb';
import { FICHIER_PILE } from '../../local/pile';
import { identifiantsS3Local } from '../../local/s3';
import { appeler, imageTest } from '../support/client';
import { pilePartagee, type PileTest } from '../support/pile';
import { lireZip } from '../support/zip';

type Pile = PileTest;
let pile: Pile;
/** The stack's S3 endpoint, as it writes it for the admin CLI. */
let endpoint: string;

beforeAll(async () => {
  pile = await pilePartagee();
  endpoint = (JSON.parse(readFileSync(join(pile.dossier, FICHIER_PILE), 'utf8')) as { s3: string }).s3;
});
afterAll(async () => pile?.arreter());

const annoncer = async (cle: string, fichiers: { type: string; taille: number }[]): Promise<Televersement[]> => {
  const { statut, corps } = await appeler<{ televersements: Televersement[] }>(pile.urlBase, 'POST', '/televersements', { cle, json: { fichiers } });
  expect(statut).toBe(201);
  return corps.televersements;
};
const solde = async (cle: string) => (await appeler(pile.urlBase, 'GET', '/solde', { cle })).corps.credits as number;
/** A PUT to a URL; the status and S3's error code. */
const mettre = async (url: string | URL, type: string, octets: Buffer) => {
  const reponse = await fetch(url, { method: 'PUT', headers: { 'Content-Type': type }, body: octets });
  return { statut: reponse.status, code: /<Code>([^<]*)<\/Code>/.exec(await reponse.text())?.[1] };
};
const travail = async (cle: string, televersement: string) => {
  const debut = performance.now();
  const reponse = await appeler(pile.urlBase, 'POST', '/travaux', { cle, json: { outil: 'ciel', images: [{ televersement }] } });
  return { ...reponse, ms: performance.now() - debut };
};
const sdkAvec = (options: ConstructorParameters<typeof S3Client>[0] = {}) =>
  clientS3(true, { endpoint, region: 'us-east-1', credentials: identifiantsS3Local, maxAttempts: 1, ...options });

describe('presigned upload URLs do only what they were signed for', () => {
  it('an empty file PUT to a URL signed for 10 bytes is refused and stores nothing; the job naming the upload is a 422 at once, free', async () => {
    const { cle, compte } = await pile.creerCompte(5);
    const [t] = await annoncer(cle, [{ type: 'image/jpeg', taille: 10 }]);
    expect(await mettre(t!.url, 'image/jpeg', Buffer.alloc(0))).toEqual({ statut: 403, code: 'SignatureDoesNotMatch' });
    expect(await pile.deps.objets.lireDebut(cleTeleversement(compte, t!.id), 16)).toBeUndefined();

    const { statut, corps, ms } = await travail(cle, t!.id);
    expect(statut).toBe(422);
    expect(corps.error).toMatchObject({ code: 'invalid_image', raison: 'non_recu' });
    expect(ms).toBeLessThan(3_000);
    expect(await solde(cle)).toBe(5);
  });

  it('an empty object under an upload (S3 answers a range on it 416) is a 422 at once, not a 500 after retries', async () => {
    const { cle, compte } = await pile.creerCompte(5);
    const [t] = await annoncer(cle, [{ type: 'image/jpeg', taille: 10 }]);
    // No URL accepts it any more: put as only a signed request of the service itself could.
    await pile.deps.objets.deposer(cleTeleversement(compte, t!.id), new Uint8Array(0), 'image/jpeg');
    const plage = await sdkAvec()
      .send(new GetObjectCommand({ Bucket: pile.deps.bucket, Key: cleTeleversement(compte, t!.id), Range: 'bytes=0-15' }))
      .catch((e: unknown) => e);
    expect(plage).toMatchObject({ name: 'InvalidRange', $metadata: { httpStatusCode: 416 } });

    const { statut, corps, ms } = await travail(cle, t!.id);
    expect(statut).toBe(422);
    expect(corps.error).toMatchObject({ code: 'invalid_image' });
    expect(JSON.stringify(corps.error)).toContain('empty');
    expect(ms).toBeLessThan(3_000);
    expect(await solde(cle)).toBe(5);
  });

  it('another Content-Type, a size one byte short or over, or a tampered URL is a 403 and stores nothing; the URL as signed still works', async () => {
    const { cle, compte } = await pile.creerCompte(5);
    const image = await imageTest(3);
    const [t, autre] = await annoncer(cle, [
      { type: 'image/jpeg', taille: image.length },
      { type: 'image/jpeg', taille: image.length },
    ]);
    const url = new URL(t!.url);
    const modifiee = (modifier: (u: URL) => void) => {
      const u = new URL(url);
      modifier(u);
      return u;
    };
    const signature = url.searchParams.get('X-Amz-Signature')!;
    const cas: [string, URL, string, Buffer][] = [
      ['another Content-Type', url, 'image/png', image],
      ['one byte short', url, 'image/jpeg', image.subarray(1)],
      ['one byte over', url, 'image/jpeg', Buffer.concat([image, Buffer.from([0])])],
      [
        'signature changed',
        modifiee((u) => u.searchParams.set('X-Amz-Signature', `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`)),
        'image/jpeg',
        image,
      ],
      ['another upload’s key', modifiee((u) => (u.pathname = u.pathname.replace(t!.id, autre!.id))), 'image/jpeg', image],
      ['a longer life', modifiee((u) => u.searchParams.set('X-Amz-Expires', '604800')), 'image/jpeg', image],
      ['the size no longer signed', modifiee((u) => u.searchParams.set('X-Amz-SignedHeaders', 'content-type;host')), 'image/jpeg', image],
      [
        'another account’s keys',
        modifiee((u) => u.searchParams.set('X-Amz-Credential', u.searchParams.get('X-Amz-Credential')!.replace('S3RVER', 'AKIAAUTRE'))),
        'image/jpeg',
        image,
      ],
      ['no signature', modifiee((u) => (u.search = '')), 'image/jpeg', image],
    ];
    for (const [nom, u, type, octets] of cas) expect((await mettre(u, type, octets)).statut, nom).toBe(403);
    for (const id of [t!.id, autre!.id]) expect(await pile.deps.objets.lireDebut(cleTeleversement(compte, id), 16)).toBeUndefined();
    expect(await travail(cle, t!.id)).toMatchObject({ statut: 422, corps: { error: { code: 'invalid_image', raison: 'non_recu' } } });

    expect(await mettre(url, 'image/jpeg', image)).toEqual({ statut: 200, code: undefined });
    const lance = await travail(cle, t!.id);
    expect(lance.statut).toBe(202);
    await pile.attendreInactivite();
    expect(await solde(cle)).toBe(5 - (lance.corps.cout_total as number));
  });

  it('an expired URL is a 403', async () => {
    const { cle } = await pile.creerCompte(2);
    const [t] = await annoncer(cle, [{ type: 'image/jpeg', taille: 3 }]);
    const cleObjet = decodeURIComponent(new URL(t!.url).pathname).split('/').slice(2).join('/');
    const ilYAUneHeure = () => new Date(Date.now() - 3600_000);
    const perimee = await objetsSignes({
      bucket: pile.deps.bucket,
      region: 'us-east-1',
      endpoint,
      cheminStyle: true,
      identifiants: identifiantsS3Local,
      horloge: ilYAUneHeure,
    }).urlDepot(cleObjet, 'image/jpeg', 3, 900);
    expect(await mettre(perimee, 'image/jpeg', Buffer.from('abc'))).toEqual({ statut: 403, code: 'AccessDenied' });
  });

  it('a client that waits for 100 Continue is refused before it sends its body, and told to continue when its URL holds', async () => {
    const { cle } = await pile.creerCompte(2);
    const octets = randomBytes(2 * 1024 * 1024);
    const [t] = await annoncer(cle, [{ type: 'image/jpeg', taille: octets.length }]);
    /** As curl does above 1 MB: the headers, then the body only after 100 Continue. */
    const envoyer = (type: string) =>
      new Promise<{ statut: number; continuer: boolean }>((resoudre, rejeter) => {
        let continuer = false;
        const requete = http.request(t!.url, { method: 'PUT', headers: { 'Content-Type': type, 'Content-Length': octets.length, Expect: '100-continue' } });
        requete.on('continue', () => {
          continuer = true;
          requete.end(octets);
        });
        requete.on('response', (reponse) => {
          reponse.resume();
          reponse.on('end', () => resoudre({ statut: reponse.statusCode!, continuer }));
        });
        requete.on('error', rejeter);
        requete.flushHeaders();
      });
    expect(await envoyer('image/png')).toEqual({ statut: 403, continuer: false });
    expect(await envoyer('image/jpeg')).toEqual({ statut: 200, continuer: true });
  });

  it('a PUT cut short stores nothing: the object that was there stays whole', async () => {
    const { cle, compte } = await pile.creerCompte(2);
    const octets = randomBytes(256 * 1024);
    const [t] = await annoncer(cle, [{ type: 'image/jpeg', taille: octets.length }]);
    expect(await mettre(t!.url, 'image/jpeg', octets)).toEqual({ statut: 200, code: undefined });
    const autres = randomBytes(octets.length);
    await new Promise<void>((resoudre) => {
      const requete = http.request(t!.url, { method: 'PUT', headers: { 'Content-Type': 'image/jpeg', 'Content-Length': autres.length } });
      requete.on('error', () => resoudre());
      requete.write(autres.subarray(0, autres.length / 2), () => setTimeout(() => requete.destroy(), 100));
    });
    // Time for the front (and s3rver behind it, if the half had reached it) to take the cut.
    await new Promise((r) => setTimeout(r, 200));
    expect(await pile.deps.objets.lireDebut(cleTeleversement(compte, t!.id), octets.length)).toMatchObject({ octets, taille: octets.length });
  });
});

describe("only s3rver's keys", () => {
  it('a request signed with other keys is a 403, whatever it asks', async () => {
    const commande = () => new PutObjectCommand({ Bucket: pile.deps.bucket, Key: 'entrees/intrus.jpg', Body: Buffer.from('x') });
    await expect(sdkAvec({ credentials: identifiantsLocaux }).send(commande())).rejects.toMatchObject({
      name: 'InvalidAccessKeyId',
      $metadata: { httpStatusCode: 403 },
    });
    await expect(sdkAvec({ credentials: { ...identifiantsS3Local, secretAccessKey: 'autre' } }).send(commande())).rejects.toMatchObject({
      name: 'SignatureDoesNotMatch',
      $metadata: { httpStatusCode: 403 },
    });
    const anonyme = await fetch(`${endpoint}/${pile.deps.bucket}/entrees/intrus.jpg`, { method: 'PUT', body: 'x' });
    expect(anonyme.status).toBe(403);
    await expect(pile.deps.s3.send(new HeadObjectCommand({ Bucket: pile.deps.bucket, Key: 'entrees/intrus.jpg' }))).rejects.toMatchObject({
      $metadata: { httpStatusCode: 404 },
    });
  });
});

describe('what the SDK sends in this project passes the front', () => {
  it('a ZIP over one part: CreateMultipartUpload, UploadPart, CompleteMultipartUpload; streamed reads, HEAD, a presigned GET', async () => {
    const { s3, bucket } = pile.deps;
    const sources = [
      { cle: 'resultats/s3-local/grand.jpg', octets: randomBytes(9 * 1024 * 1024), nom: 'grand.jpg' },
      { cle: 'resultats/s3-local/petit.jpg', octets: randomBytes(1000), nom: 'petit.jpg' },
    ];
    for (const f of sources) await s3.send(new PutObjectCommand({ Bucket: bucket, Key: f.cle, Body: f.octets, ContentType: 'image/jpeg' }));
    const operations: string[] = [];
    s3.middlewareStack.add(
      (next, contexte) => async (args) => {
        operations.push(contexte.commandName!);
        return next(args);
      },
      { step: 'initialize', name: 'operationsS3Local' },
    );
    try {
      await ecrireZip({ s3, bucket, cle: 'zips/s3-local.zip', fichiers: sources });
    } finally {
      s3.middlewareStack.remove('operationsS3Local');
    }
    expect(operations).toEqual(expect.arrayContaining(['CreateMultipartUploadCommand', 'UploadPartCommand', 'CompleteMultipartUploadCommand']));
    expect(operations.filter((o) => o === 'UploadPartCommand')).toHaveLength(2);

    const tete = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'zips/s3-local.zip' }));
    const { Body } = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'zips/s3-local.zip' }));
    expect(Body).toBeInstanceOf(Readable);
    const zip = Buffer.from(await Body!.transformToByteArray());
    expect(zip.length).toBe(tete.ContentLength);
    const entrees = await lireZip(zip);
    for (const f of sources) expect(entrees.get(f.nom)!.equals(f.octets)).toBe(true);

    const lecture = await fetch(await pile.deps.objets.urlLecture(sources[1]!.cle, 'petit.jpg', 60));
    expect(lecture.status).toBe(200);
    expect(Buffer.from(await lecture.arrayBuffer()).equals(sources[1]!.octets)).toBe(true);
  });

  it('AbortMultipartUpload drops the parts (s3rver alone answers 405); a ZIP that fails midway leaves nothing', async () => {
    const { s3, bucket } = pile.deps;
    const cle = 'zips/s3-local-abandon.zip';
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: cle }));
    await s3.send(new UploadPartCommand({ Bucket: bucket, Key: cle, UploadId, PartNumber: 1, Body: randomBytes(1000) }));
    expect((await s3.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: cle, UploadId }))).$metadata.httpStatusCode).toBe(204);
    await expect(s3.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: cle, UploadId }))).rejects.toMatchObject({ name: 'NoSuchUpload' });

    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'resultats/s3-local/present.jpg', Body: randomBytes(9 * 1024 * 1024) }));
    const abandons: number[] = [];
    s3.middlewareStack.add(
      (next, contexte) => async (args) => {
        const sortie = await next(args);
        if (contexte.commandName === 'AbortMultipartUploadCommand')
          abandons.push((sortie.output as { $metadata: { httpStatusCode: number } }).$metadata.httpStatusCode);
        return sortie;
      },
      { step: 'initialize', name: 'abandonsS3Local' },
    );
    try {
      await expect(
        ecrireZip({
          s3,
          bucket,
          cle,
          fichiers: [
            { cle: 'resultats/s3-local/present.jpg', nom: 'a.jpg' },
            { cle: 'resultats/s3-local/absent.jpg', nom: 'b.jpg' },
          ],
        }),
      ).rejects.toMatchObject({ name: 'NoSuchKey' });
      await expect.poll(() => abandons).toEqual([204]);
    } finally {
      s3.middlewareStack.remove('abandonsS3Local');
    }
    await expect(s3.send(new HeadObjectCommand({ Bucket: bucket, Key: cle }))).rejects.toMatchObject({ $metadata: { httpStatusCode: 404 } });
  });

  it('DeleteObjects (its checksum header) and ListObjectsV2, though the project uses neither yet', async () => {
    const { s3, bucket } = pile.deps;
    const cles = ['entrees/s3-local/a.jpg', 'entrees/s3-local/b.jpg'];
    for (const cle of cles) await s3.send(new PutObjectCommand({ Bucket: bucket, Key: cle, Body: Buffer.from(cle) }));
    const liste = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'entrees/s3-local/' }));
    expect(liste.Contents?.map((o) => o.Key)).toEqual(cles);
    const supprimes = await s3.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: cles.map((Key) => ({ Key })) } }));
    expect(supprimes.Deleted?.map((o) => o.Key).sort()).toEqual(cles);
    expect((await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'entrees/s3-local/' }))).KeyCount).toBe(0);
  });

  it('aws-chunked bodies (the SDK’s default for streams, which client-s3.ts turns off) are refused loudly, not stored with their framing', async () => {
    const parDefaut = new S3Client({ endpoint, region: 'us-east-1', credentials: identifiantsS3Local, forcePathStyle: true, maxAttempts: 1 });
    const cle = 'entrees/s3-local/chunked.jpg';
    await expect(
      parDefaut.send(new PutObjectCommand({ Bucket: pile.deps.bucket, Key: cle, Body: Readable.from([randomBytes(1000)]), ContentLength: 1000 })),
    ).rejects.toMatchObject({
      name: 'InvalidArgument',
      $metadata: { httpStatusCode: 400 },
    });
    parDefaut.destroy();
    await expect(pile.deps.s3.send(new HeadObjectCommand({ Bucket: pile.deps.bucket, Key: cle }))).rejects.toMatchObject({
      $metadata: { httpStatusCode: 404 },
    });
  });
});
