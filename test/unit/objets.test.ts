/**
 * The S3 port without the S3 client (core/infra/objets.ts), against the local S3: s3rver behind the front
 * that checks signatures as S3 does (local/s3-verifiant.ts), since s3rver checks none. The front is
 * trusted because it is checked first against the real SDK: it accepts what the SDK signs and refuses
 * what S3 would refuse. Then the port is held to the same front, and its presigned URLs to the SDK's shape.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client, type ServiceInputTypes, type ServiceOutputTypes } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { HttpResponse, type HttpHandler } from '@smithy/core/protocols';
import type { FinalizeRequestMiddleware } from '@smithy/types';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { clientS3 } from '../../lambdas/core/infra/client-s3';
import { ErreurObjets, objetsDepuisEnv, objetsSignes, type Objets } from '../../lambdas/core/infra/objets';
import { dispositionPieceJointe } from '../../lambdas/core/modele/disposition';
import { demarrerS3, identifiantsS3Local, type S3Local } from '../../local/s3';

const SEAU = 'retouche-objets';
/** Segments, a space, '+', accents, and the characters encodeURIComponent leaves but S3 encodes. */
const CLE_DIFFICILE = "televersements/compte 1/dossier+x/été (2)!'*.jpg";
const octets = (texte: string) => Buffer.from(texte, 'utf8');
const ilYA = (ms: number) => () => new Date(Date.now() - ms);

let dossier: string;
let verifiant: S3Local;
let sdk: S3Client;
let objets: Objets;

const sdkAvec = (options: ConstructorParameters<typeof S3Client>[0] = {}) =>
  clientS3(true, { endpoint: verifiant.endpoint, region: 'us-east-1', credentials: identifiantsS3Local, maxAttempts: 1, ...options });
const objetsAvec = (config: Partial<Parameters<typeof objetsSignes>[0]> = {}) =>
  objetsSignes({ bucket: SEAU, region: 'us-east-1', endpoint: verifiant.endpoint, cheminStyle: true, identifiants: identifiantsS3Local, ...config });

/** The refusals so far, taken: any left at the end of a test is a request refused unexpectedly. */
const prendreRefus = () => verifiant.refus.splice(0);

beforeAll(async () => {
  dossier = await mkdtemp(join(tmpdir(), 'retouche-objets-'));
  verifiant = await demarrerS3({ dossier, seaux: [SEAU] });
  sdk = sdkAvec();
  objets = objetsAvec();
});

afterAll(async () => {
  sdk?.destroy();
  await verifiant?.arreter();
  await rm(dossier, { recursive: true, force: true });
});

afterEach(() => {
  vi.unstubAllEnvs();
  expect(prendreRefus()).toEqual([]);
});

describe('the verifying front, against the real SDK', () => {
  it('accepts PutObject, a ranged GetObject and DeleteObject, even for a key S3 must re-encode', async () => {
    await sdk.send(new PutObjectCommand({ Bucket: SEAU, Key: CLE_DIFFICILE, Body: octets('0123456789'), ContentType: 'image/jpeg' }));
    const lu = await sdk.send(new GetObjectCommand({ Bucket: SEAU, Key: CLE_DIFFICILE, Range: 'bytes=0-3' }));
    expect(Buffer.from(await lu.Body!.transformToByteArray()).toString()).toBe('0123');
    expect(lu.ContentRange).toBe('bytes 0-3/10');
    await sdk.send(new DeleteObjectCommand({ Bucket: SEAU, Key: CLE_DIFFICILE }));
    await expect(sdk.send(new GetObjectCommand({ Bucket: SEAU, Key: CLE_DIFFICILE }))).rejects.toMatchObject({ name: 'NoSuchKey' });
  });

  it('accepts presigned PUT (type and size signed) and GET (with a download name) URLs', async () => {
    const cle = 'sdk/presigne.jpg';
    const depot = await getSignedUrl(sdk, new PutObjectCommand({ Bucket: SEAU, Key: cle, ContentType: 'image/jpeg', ContentLength: 5 }), {
      expiresIn: 60,
      signableHeaders: new Set(['content-type', 'content-length']),
    });
    expect(new URL(depot).searchParams.get('X-Amz-SignedHeaders')).toBe('content-length;content-type;host');
    expect((await fetch(depot, { method: 'PUT', headers: { 'Content-Type': 'image/jpeg' }, body: octets('abcde') })).status).toBe(200);

    const disposition = `attachment; filename*=UTF-8''${encodeURIComponent('été.jpg')}`;
    const lecture = await getSignedUrl(sdk, new GetObjectCommand({ Bucket: SEAU, Key: cle, ResponseContentDisposition: disposition }), { expiresIn: 60 });
    const reponse = await fetch(lecture);
    expect(reponse.status).toBe(200);
    expect(reponse.headers.get('content-disposition')).toBe(disposition);
    expect(await reponse.text()).toBe('abcde');
  });

  it('refuses a wrong secret, a tampered signature and a changed path', async () => {
    await expect(
      sdkAvec({ credentials: { ...identifiantsS3Local, secretAccessKey: 'autre' } }).send(new GetObjectCommand({ Bucket: SEAU, Key: 'x' })),
    ).rejects.toMatchObject({
      name: 'SignatureDoesNotMatch',
      $metadata: { httpStatusCode: 403 },
    });
    await sdk.send(new PutObjectCommand({ Bucket: SEAU, Key: 'sdk/a.txt', Body: octets('a') }));
    const url = new URL(await getSignedUrl(sdk, new GetObjectCommand({ Bucket: SEAU, Key: 'sdk/a.txt' }), { expiresIn: 60 }));
    const signature = url.searchParams.get('X-Amz-Signature')!;
    const alteree = new URL(url);
    alteree.searchParams.set('X-Amz-Signature', `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`);
    const autreChemin = new URL(url);
    autreChemin.pathname = autreChemin.pathname.replace('a.txt', 'b.txt');
    expect(prendreRefus().map((r) => r.code)).toEqual(['SignatureDoesNotMatch']);

    for (const u of [alteree, autreChemin]) {
      const reponse = await fetch(u);
      expect(reponse.status).toBe(403);
      expect(await reponse.text()).toContain('<Code>SignatureDoesNotMatch</Code>');
    }
    expect((await fetch(url)).status).toBe(200);
    expect(prendreRefus().map((r) => r.code)).toEqual(['SignatureDoesNotMatch', 'SignatureDoesNotMatch']);
  });

  it('refuses a presigned PUT sent with another Content-Type, and stores nothing', async () => {
    const cle = 'sdk/type.jpg';
    const depot = await getSignedUrl(sdk, new PutObjectCommand({ Bucket: SEAU, Key: cle, ContentType: 'image/jpeg', ContentLength: 3 }), {
      expiresIn: 60,
      signableHeaders: new Set(['content-type', 'content-length']),
    });
    expect((await fetch(depot, { method: 'PUT', headers: { 'Content-Type': 'text/html' }, body: octets('abc') })).status).toBe(403);
    expect(prendreRefus().map((r) => r.code)).toEqual(['SignatureDoesNotMatch']);
    await expect(sdk.send(new GetObjectCommand({ Bucket: SEAU, Key: cle }))).rejects.toMatchObject({ name: 'NoSuchKey' });
  });

  it('refuses an expired presigned URL', async () => {
    const url = await getSignedUrl(sdk, new GetObjectCommand({ Bucket: SEAU, Key: 'sdk/a.txt' }), { expiresIn: 60, signingDate: ilYA(3600_000)() });
    expect((await fetch(url)).status).toBe(403);
    // Refused by the front, not by s3rver (which checks expiry too).
    expect(prendreRefus()).toMatchObject([{ code: 'AccessDenied', raison: 'Request has expired' }]);
  });

  it('refuses a body other than the one whose hash was signed, and stores nothing', async () => {
    const tricheur = sdkAvec();
    // After signing, the same number of other bytes: only the payload hash can tell.
    const remplacer: FinalizeRequestMiddleware<ServiceInputTypes, ServiceOutputTypes> = (next) => async (args) => {
      (args.request as { body: unknown }).body = octets('ABCDE');
      return next(args);
    };
    tricheur.middlewareStack.addRelativeTo(remplacer, { relation: 'after', toMiddleware: 'awsAuthMiddleware', name: 'remplacerCorps' });
    await expect(tricheur.send(new PutObjectCommand({ Bucket: SEAU, Key: 'sdk/hash.txt', Body: octets('abcde') }))).rejects.toMatchObject({
      name: 'XAmzContentSHA256Mismatch',
    });
    tricheur.destroy();
    expect(prendreRefus().map((r) => r.code)).toEqual(['XAmzContentSHA256Mismatch']);
    await expect(sdk.send(new GetObjectCommand({ Bucket: SEAU, Key: 'sdk/hash.txt' }))).rejects.toMatchObject({ name: 'NoSuchKey' });
  });
});

describe('objetsSignes, against the verifying front', () => {
  it('deposer then lireDebut: the first bytes and the whole size', async () => {
    await objets.deposer('entrees/a.jpg', octets('0123456789'), 'image/jpeg');
    expect(await objets.lireDebut('entrees/a.jpg', 4)).toMatchObject({ octets: octets('0123'), taille: 10 });
    expect(await objets.lireDebut('entrees/a.jpg', 512 * 1024)).toMatchObject({ octets: octets('0123456789'), taille: 10 });
    const lu = await sdk.send(new GetObjectCommand({ Bucket: SEAU, Key: 'entrees/a.jpg' }));
    expect(lu.ContentType).toBe('image/jpeg');
    // The ETag of the object read: what the tool step reads again with If-Match (pipeline/outil.ts).
    expect((await objets.lireDebut('entrees/a.jpg', 4))?.etag).toBe(lu.ETag);
  });

  it('a GET with If-Match gets the object while it is the one named, 412 PreconditionFailed once it was PUT again', async () => {
    await objets.deposer('televersements/c/im', octets('premier'), 'image/jpeg');
    const { etag } = (await objets.lireDebut('televersements/c/im', 4))!;
    const lu = await sdk.send(new GetObjectCommand({ Bucket: SEAU, Key: 'televersements/c/im', IfMatch: etag }));
    expect(await lu.Body!.transformToString()).toBe('premier');
    await objets.deposer('televersements/c/im', octets('second!'), 'image/jpeg');
    await expect(sdk.send(new GetObjectCommand({ Bucket: SEAU, Key: 'televersements/c/im', IfMatch: etag }))).rejects.toMatchObject({
      name: 'PreconditionFailed',
      $metadata: { httpStatusCode: 412 },
    });
  });

  it('lireDebut: undefined for a missing key, nothing of size 0 for an empty object', async () => {
    expect(await objets.lireDebut('entrees/absent.jpg', 16)).toBeUndefined();
    await objets.deposer('entrees/vide.jpg', new Uint8Array(0), 'image/jpeg');
    expect(await objets.lireDebut('entrees/vide.jpg', 16)).toMatchObject({ octets: Buffer.alloc(0), taille: 0 });
  });

  it('supprimer: gone after, and a missing key or none is not an error', async () => {
    const cles = Array.from({ length: 11 }, (_, i) => `entrees/suppr-${i}.jpg`);
    await Promise.all(cles.map((cle) => objets.deposer(cle, octets('x'), 'image/jpeg')));
    await objets.supprimer([...cles, 'entrees/jamais.jpg']);
    for (const cle of cles) expect(await objets.lireDebut(cle, 1)).toBeUndefined();
    await objets.supprimer(['entrees/jamais.jpg']);
    await objets.supprimer([]);
  });

  it('urlDepot: a PUT with the announced type and size is stored; another type or size is refused', async () => {
    const url = await objets.urlDepot('televersements/c/u1', 'image/png', 6, 60);
    const mauvais = [
      await fetch(url, { method: 'PUT', headers: { 'Content-Type': 'image/jpeg' }, body: octets('abcdef') }),
      await fetch(url, { method: 'PUT', headers: { 'Content-Type': 'image/png' }, body: octets('abcdefg') }),
    ];
    expect(mauvais.map((r) => r.status)).toEqual([403, 403]);
    expect(prendreRefus().map((r) => r.code)).toEqual(['SignatureDoesNotMatch', 'SignatureDoesNotMatch']);
    expect(await objets.lireDebut('televersements/c/u1', 16)).toBeUndefined();

    const bon = await fetch(url, { method: 'PUT', headers: { 'Content-Type': 'image/png' }, body: octets('abcdef') });
    expect(bon.status).toBe(200);
    expect(await objets.lireDebut('televersements/c/u1', 16)).toMatchObject({ octets: octets('abcdef'), taille: 6 });
  });

  it('urlLecture: 200 with the download name as Content-Disposition (RFC 6266), none without a name; refused once expired', async () => {
    await objets.deposer('resultats/r.jpg', octets('resultat'), 'image/jpeg');
    const reponse = await fetch(await objets.urlLecture('resultats/r.jpg', 'photo été (1).jpg', 60));
    expect(reponse.status).toBe(200);
    expect(reponse.headers.get('content-disposition')).toBe(`attachment; filename="photo ete (1).jpg"; filename*=UTF-8''photo%20%C3%A9t%C3%A9%20%281%29.jpg`);
    expect(await reponse.text()).toBe('resultat');
    const affichage = await fetch(await objets.urlLecture('resultats/r.jpg', null, 60));
    expect(affichage.status).toBe(200);
    expect(affichage.headers.get('content-disposition')).toBeNull();
    expect(await affichage.text()).toBe('resultat');

    const perimee = await objetsAvec({ horloge: ilYA(3600_000) }).urlLecture('resultats/r.jpg', 'r.jpg', 60);
    expect((await fetch(perimee)).status).toBe(403);
    expect(prendreRefus()).toMatchObject([{ raison: 'Request has expired' }]);
  });

  it('keys with segments, spaces, "+", accents and !\'()*, through every call', async () => {
    await objets.deposer(CLE_DIFFICILE, octets('difficile'), 'image/jpeg');
    expect(await objets.lireDebut(CLE_DIFFICILE, 4)).toMatchObject({ octets: octets('diff'), taille: 9 });
    // The same object for the SDK: the key is the one given, not a re-encoded one.
    const lu = await sdk.send(new GetObjectCommand({ Bucket: SEAU, Key: CLE_DIFFICILE }));
    expect(await lu.Body!.transformToString()).toBe('difficile');
    expect(await (await fetch(await objets.urlLecture(CLE_DIFFICILE, 'd.jpg', 60))).text()).toBe('difficile');
    const depot = await objets.urlDepot(`${CLE_DIFFICILE}.2`, 'image/jpeg', 2, 60);
    expect((await fetch(depot, { method: 'PUT', headers: { 'Content-Type': 'image/jpeg' }, body: octets('ok') })).status).toBe(200);
    // One at a time: s3rver answers 500 to a DELETE whose folder another DELETE just emptied and removed.
    await objets.supprimer([CLE_DIFFICILE]);
    await objets.supprimer([`${CLE_DIFFICILE}.2`]);
    expect(await objets.lireDebut(CLE_DIFFICILE, 4)).toBeUndefined();
  });

  it('temporary credentials: the session token is sent and signed', async () => {
    const avecJeton = objetsAvec({ identifiants: async () => ({ ...identifiantsS3Local, sessionToken: 'jeton' }) });
    await avecJeton.deposer('entrees/jeton.jpg', octets('j'), 'image/jpeg');
    const url = new URL(await avecJeton.urlLecture('entrees/jeton.jpg', 'j.jpg', 60));
    expect(url.searchParams.get('X-Amz-Security-Token')).toBe('jeton');
    expect((await fetch(url)).status).toBe(200);
  });

  it('an error answer throws ErreurObjets with the status, the S3 code and the operation', async () => {
    // Its own object, so that what the refusals must leave untouched is there whichever test ran first.
    await objets.deposer('entrees/a.jpg', octets('0123456789'), 'image/jpeg');
    await expect(objetsAvec({ bucket: 'seau-inexistant' }).deposer('a', octets('a'), 'image/jpeg')).rejects.toMatchObject({
      name: 'ErreurObjets',
      statut: 404,
      code: 'NoSuchBucket',
      operation: 'PutObject',
    });
    // A request S3 refuses is an error, never "not there": lireDebut only reads AccessDenied that way.
    const erreur = await objetsAvec({ identifiants: { ...identifiantsS3Local, secretAccessKey: 'autre' } })
      .lireDebut('entrees/a.jpg', 4)
      .catch((e: unknown) => e);
    expect(erreur).toBeInstanceOf(ErreurObjets);
    expect(erreur).toMatchObject({ statut: 403, code: 'SignatureDoesNotMatch', operation: 'GetObject' });
    await expect(objetsAvec({ horloge: ilYA(3600_000) }).supprimer(['entrees/a.jpg'])).rejects.toMatchObject({ statut: 403, code: 'RequestTimeTooSkewed' });
    await expect(objetsAvec({ region: 'eu-west-1' }).lireDebut('entrees/a.jpg', 4)).rejects.toMatchObject({
      statut: 400,
      code: 'AuthorizationHeaderMalformed',
    });
    expect(prendreRefus().map((r) => r.code)).toEqual(['SignatureDoesNotMatch', 'RequestTimeTooSkewed', 'AuthorizationHeaderMalformed']);
    // The object is still there: the refused DELETE did not reach s3rver.
    expect(await objets.lireDebut('entrees/a.jpg', 1)).toMatchObject({ octets: octets('0'), taille: 10 });
  });

  it("AWS's 403 AccessDenied for a missing key reads as not there (the local S3 answers 404)", async () => {
    const repondre = (statut: number, corps: string): HttpHandler => ({
      handle: async () => ({
        response: new HttpResponse({ statusCode: statut, headers: { 'content-type': 'application/xml' }, body: Readable.from([octets(corps)]) }),
      }),
      updateHttpClientConfig: () => undefined,
      httpHandlerConfigs: () => ({}),
    });
    const sur = (gestionnaire: HttpHandler) =>
      objetsSignes({ bucket: 'b', region: 'eu-west-1', cheminStyle: false, identifiants: identifiantsS3Local, gestionnaire });
    expect(await sur(repondre(403, '<Error><Code>AccessDenied</Code></Error>')).lireDebut('k', 4)).toBeUndefined();
    await expect(sur(repondre(403, '<Error><Code>InvalidAccessKeyId</Code></Error>')).lireDebut('k', 4)).rejects.toMatchObject({ code: 'InvalidAccessKeyId' });
    expect(await sur(repondre(416, '<Error><Code>InvalidRange</Code></Error>')).lireDebut('k', 4)).toEqual({ octets: Buffer.alloc(0), taille: 0 });
  });

  it('500, 503 and a reset connection are tried again, three times in all', async () => {
    const reponses: (number | Error)[] = [503, Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }), 200];
    const envois: string[] = [];
    const gestionnaire: HttpHandler = {
      handle: async (requete) => {
        envois.push(requete.method);
        const suivante = reponses.shift()!;
        if (suivante instanceof Error) throw suivante;
        return {
          response: new HttpResponse({
            statusCode: suivante,
            headers: {},
            body: Readable.from([octets(suivante === 200 ? '' : '<Error><Code>SlowDown</Code></Error>')]),
          }),
        };
      },
      updateHttpClientConfig: () => undefined,
      httpHandlerConfigs: () => ({}),
    };
    const o = objetsSignes({ bucket: 'b', region: 'eu-west-1', cheminStyle: false, identifiants: identifiantsS3Local, gestionnaire });
    await o.deposer('k', octets('x'), 'image/jpeg');
    expect(envois).toEqual(['PUT', 'PUT', 'PUT']);

    reponses.push(500, 500, 500, 200);
    await expect(o.supprimer(['k'])).rejects.toMatchObject({ statut: 500, operation: 'DeleteObject' });
    expect(reponses).toEqual([200]);
  });
});

describe('on AWS (no endpoint): the URLs have the shape of the SDK', () => {
  const identifiants = { accessKeyId: 'AKIAEXEMPLE', secretAccessKey: 'secret' };
  const cle = 'televersements/compte-1/photo été (1).jpg';
  const nomsAmz = (url: URL) => [...url.searchParams.keys()].filter((n) => n.startsWith('X-Amz-')).sort();

  for (const cheminStyle of [false, true]) {
    it(cheminStyle ? 'path-style' : 'virtual-hosted', async () => {
      const aws = objetsSignes({ bucket: 'retouche-medias', region: 'eu-west-1', cheminStyle, identifiants });
      const client = clientS3(cheminStyle, { region: 'eu-west-1', credentials: identifiants });
      const comparer = (notre: URL, sdkUrl: URL) => {
        expect(notre.origin).toBe(sdkUrl.origin);
        expect(notre.pathname).toBe(sdkUrl.pathname);
        expect(nomsAmz(notre)).toEqual(nomsAmz(sdkUrl));
        for (const nom of ['X-Amz-Expires', 'X-Amz-SignedHeaders', 'X-Amz-Content-Sha256', 'X-Amz-Algorithm']) {
          expect(notre.searchParams.get(nom), nom).toBe(sdkUrl.searchParams.get(nom));
        }
      };

      const depot = new URL(await aws.urlDepot(cle, 'image/jpeg', 1234, 900));
      expect(depot.origin).toBe(cheminStyle ? 'https://s3.eu-west-1.amazonaws.com' : 'https://retouche-medias.s3.eu-west-1.amazonaws.com');
      expect(depot.searchParams.get('X-Amz-SignedHeaders')).toBe('content-length;content-type;host');
      expect(depot.searchParams.get('X-Amz-Expires')).toBe('900');
      comparer(
        depot,
        new URL(
          await getSignedUrl(client, new PutObjectCommand({ Bucket: 'retouche-medias', Key: cle, ContentType: 'image/jpeg', ContentLength: 1234 }), {
            expiresIn: 900,
            signableHeaders: new Set(['content-type', 'content-length']),
          }),
        ),
      );

      const lecture = new URL(await aws.urlLecture(cle, 'photo été (1).jpg', 60));
      const disposition = dispositionPieceJointe('photo été (1).jpg');
      const sdkLecture = new URL(
        await getSignedUrl(client, new GetObjectCommand({ Bucket: 'retouche-medias', Key: cle, ResponseContentDisposition: disposition }), { expiresIn: 60 }),
      );
      comparer(lecture, sdkLecture);
      expect(lecture.searchParams.get('X-Amz-SignedHeaders')).toBe('host');
      expect(lecture.searchParams.get('response-content-disposition')).toBe(disposition);
      expect(sdkLecture.searchParams.get('response-content-disposition')).toBe(disposition);
      client.destroy();
    });
  }
});

describe('objetsDepuisEnv', () => {
  const identifiantsEnv = () => {
    vi.stubEnv('AWS_PROFILE', undefined);
    vi.stubEnv('AWS_ACCESS_KEY_ID', identifiantsS3Local.accessKeyId);
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', identifiantsS3Local.secretAccessKey);
    vi.stubEnv('AWS_SESSION_TOKEN', undefined);
  };

  it('bucket, region, AWS_ENDPOINT_URL_S3 before AWS_ENDPOINT_URL, path-style, and credentials from the default chain', async () => {
    identifiantsEnv();
    const o = objetsDepuisEnv({
      RETOUCHE_BUCKET: SEAU,
      AWS_REGION: 'us-east-1',
      AWS_ENDPOINT_URL_S3: verifiant.endpoint,
      AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
      RETOUCHE_S3_CHEMIN: '1',
    });
    await o.deposer('env/a.txt', octets('env'), 'text/plain');
    expect(await o.lireDebut('env/a.txt', 8)).toMatchObject({ octets: octets('env'), taille: 3 });
  });

  it('AWS_ENDPOINT_URL alone; AWS without an endpoint, virtual-hosted or path-style; no region or bucket is an error', async () => {
    identifiantsEnv();
    const origine = async (env: NodeJS.ProcessEnv) => new URL(await objetsDepuisEnv(env).urlLecture('k/l', 'l', 60)).href.split('?')[0];
    expect(await origine({ RETOUCHE_BUCKET: 'b', AWS_REGION: 'eu-west-1', AWS_ENDPOINT_URL: 'http://127.0.0.1:4569', RETOUCHE_S3_CHEMIN: '1' })).toBe(
      'http://127.0.0.1:4569/b/k/l',
    );
    expect(await origine({ RETOUCHE_BUCKET: 'b', AWS_REGION: 'eu-west-1' })).toBe('https://b.s3.eu-west-1.amazonaws.com/k/l');
    expect(await origine({ RETOUCHE_BUCKET: 'b', AWS_REGION: 'eu-west-1', RETOUCHE_S3_CHEMIN: '1' })).toBe('https://s3.eu-west-1.amazonaws.com/b/k/l');
    expect(() => objetsDepuisEnv({ RETOUCHE_BUCKET: 'b' })).toThrow(/AWS_REGION/);
    expect(() => objetsDepuisEnv({ AWS_REGION: 'eu-west-1' })).toThrow(/RETOUCHE_BUCKET/);
  });
});
