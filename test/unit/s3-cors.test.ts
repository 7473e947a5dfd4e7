/**
 * The local S3's CORS (local/s3-verifiant.ts), as the bucket's rule makes S3 answer on AWS (lib/stockage.ts):
 * the web site's studio PUTs photos to POST /televersements' URLs from another origin, so the browser asks
 * first (an OPTIONS preflight, never signed), then reads the PUT's answer only if it carries
 * Access-Control-Allow-Origin. PUT only, any origin, Content-Type and Content-Length, 3000 s; nothing more.
 */
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Objets } from '../../lambdas/core/infra/objets';
import { demarrerS3, objetsLocaux, type S3Local } from '../../local/s3';

const SEAU = 'retouche-cors';
const ORIGINE = 'http://localhost:3000';

let dossier: string;
let s3: S3Local;
let objets: Objets;

interface Reponse {
  statut: number;
  entetes: http.IncomingHttpHeaders;
  corps: string;
}

/** node:http rather than fetch: a preflight's own headers (Origin, Access-Control-Request-*) are sent as written. */
const envoyer = (methode: string, url: string, entetes: Record<string, string>, corps?: Buffer): Promise<Reponse> =>
  new Promise((resoudre, rejeter) => {
    const requete = http.request(url, { method: methode, headers: { ...entetes, ...(corps ? { 'content-length': String(corps.length) } : {}) } }, (reponse) => {
      const morceaux: Buffer[] = [];
      reponse.on('data', (m: Buffer) => morceaux.push(m));
      reponse.on('end', () => resoudre({ statut: reponse.statusCode ?? 0, entetes: reponse.headers, corps: Buffer.concat(morceaux).toString('utf8') }));
    });
    requete.on('error', rejeter);
    requete.end(corps);
  });

const preflight = (url: string, entetes: Record<string, string>) => envoyer('OPTIONS', url, entetes);
const photo = Buffer.from('\xff\xd8\xff\xe0 not really a photo', 'latin1');

beforeAll(async () => {
  dossier = await mkdtemp(join(tmpdir(), 'retouche-s3-cors-'));
  s3 = await demarrerS3({ dossier, seaux: [SEAU] });
  objets = objetsLocaux(s3.endpoint, SEAU);
});

afterAll(async () => {
  await s3?.arreter();
  await rm(dossier, { recursive: true, force: true });
});

afterEach(() => {
  // Every refusal is taken by the test that expects it.
  expect(s3.refus.splice(0)).toEqual([]);
});

describe('the local S3 answers CORS as the bucket’s rule makes S3 answer', () => {
  it('allows a page’s PUT to an upload URL: the preflight, unsigned, then the PUT’s answer readable', async () => {
    const url = await objets.urlDepot('televersements/compte/cors-1', 'image/jpeg', photo.length, 60);
    const avant = await preflight(url, { Origin: ORIGINE, 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': 'content-type' });
    expect(avant.statut).toBe(200);
    expect(avant.entetes).toMatchObject({
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'PUT',
      'access-control-allow-headers': 'content-type',
      'access-control-max-age': '3000',
      vary: 'Origin, Access-Control-Request-Headers, Access-Control-Request-Method',
    });
    // Not a credentialed rule: a wildcard origin and no Allow-Credentials, as S3 answers.
    expect(avant.entetes['access-control-allow-credentials']).toBeUndefined();

    const depot = await envoyer('PUT', url, { Origin: ORIGINE, 'Content-Type': 'image/jpeg' }, photo);
    expect(depot.statut).toBe(200);
    expect(depot.entetes).toMatchObject({ 'access-control-allow-origin': '*', 'access-control-allow-methods': 'PUT', 'access-control-max-age': '3000' });
    expect(depot.entetes.vary).toContain('Origin');
    expect((await objets.lireDebut('televersements/compte/cors-1', 4))?.taille).toBe(photo.length);
  });

  it('takes header names in any case, and a preflight that asks for no header', async () => {
    const url = await objets.urlDepot('televersements/compte/cors-2', 'image/png', 3, 60);
    const casse = await preflight(url, {
      Origin: 'https://agence.example',
      'Access-Control-Request-Method': 'PUT',
      'Access-Control-Request-Headers': 'Content-Type, Content-Length',
    });
    expect(casse.statut).toBe(200);
    expect(casse.entetes['access-control-allow-headers']).toBe('content-type, content-length');
    const sans = await preflight(url, { Origin: ORIGINE, 'Access-Control-Request-Method': 'PUT' });
    expect(sans.statut).toBe(200);
    expect(sans.entetes['access-control-allow-headers']).toBeUndefined();
  });

  it('refuses what the rule does not name, with S3’s answers, and stores nothing', async () => {
    const url = await objets.urlDepot('televersements/compte/cors-3', 'image/jpeg', photo.length, 60);
    const refus = [
      await preflight(url, { Origin: ORIGINE, 'Access-Control-Request-Method': 'GET' }),
      await preflight(url, { Origin: ORIGINE, 'Access-Control-Request-Method': 'DELETE' }),
      await preflight(url, { Origin: ORIGINE, 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': 'content-type, x-amz-acl' }),
    ];
    for (const r of refus) {
      expect(r.statut).toBe(403);
      expect(r.corps).toContain('<Code>AccessForbidden</Code>');
      expect(r.corps).toContain('CORSResponse');
      expect(r.entetes['access-control-allow-origin']).toBeUndefined();
    }
    const sansOrigine = await preflight(url, { 'Access-Control-Request-Method': 'PUT' });
    expect(sansOrigine.statut).toBe(400);
    expect(sansOrigine.corps).toContain('Origin request header needed');
    const sansMethode = await preflight(url, { Origin: ORIGINE });
    expect(sansMethode.statut).toBe(400);
    expect(sansMethode.corps).toContain('Invalid Access-Control-Request-Method');
    expect(s3.refus.splice(0).map((r) => r.code)).toEqual(['AccessForbidden', 'AccessForbidden', 'AccessForbidden', 'BadRequest', 'BadRequest']);
    expect(await objets.lireDebut('televersements/compte/cors-3', 4)).toBeUndefined();
  });

  it('gives a refused PUT its CORS headers, so that the page reads the 403; a PUT without Origin gets none', async () => {
    const url = await objets.urlDepot('televersements/compte/cors-4', 'image/jpeg', photo.length, 60);
    // Another type than the one signed: the signature's refusal, readable by the page.
    const refuse = await envoyer('PUT', url, { Origin: ORIGINE, 'Content-Type': 'image/png' }, photo);
    expect(refuse.statut).toBe(403);
    expect(refuse.corps).toContain('<Code>SignatureDoesNotMatch</Code>');
    expect(refuse.entetes['access-control-allow-origin']).toBe('*');
    expect(s3.refus.splice(0).map((r) => r.code)).toEqual(['SignatureDoesNotMatch']);

    const sansOrigine = await envoyer('PUT', url, { 'Content-Type': 'image/jpeg' }, photo);
    expect(sansOrigine.statut).toBe(200);
    expect(sansOrigine.entetes['access-control-allow-origin']).toBeUndefined();
  });

  it('lets nothing else be read cross-origin: a GET from a page gets no CORS header', async () => {
    await objets.deposer('resultats/compte/cors-5.jpg', photo, 'image/jpeg');
    const lecture = await objets.urlLecture('resultats/compte/cors-5.jpg', 'cors-5.jpg', 60);
    const reponse = await envoyer('GET', lecture, { Origin: ORIGINE });
    expect(reponse.statut).toBe(200);
    expect(reponse.entetes['access-control-allow-origin']).toBeUndefined();
  });
});
