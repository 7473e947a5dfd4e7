/** The batch ZIP streamed through a real local S3, and the signed links (CloudFront canned policy). */
import { generateKeyPairSync, verify, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HeadObjectCommand, PutObjectCommand, GetObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creerSignataire, verifierLien } from '../../lambdas/core/infra/liens';
import { ecrireZip, nomsUniques } from '../../lambdas/core/infra/zip';
import { clientS3Local, demarrerS3, type S3Local } from '../../local/s3';
import { lireZip } from '../support/zip';

describe('batch ZIP', () => {
  let s3: S3Local;
  let dossier: string;
  const bucket = 'zip-test';
  const client = () => clientS3Local(s3.endpoint);

  beforeAll(async () => {
    dossier = mkdtempSync(join(tmpdir(), 'retouche-zip-'));
    s3 = await demarrerS3({ dossier, seaux: [bucket] });
  });
  afterAll(async () => {
    await s3.arreter();
    rmSync(dossier, { recursive: true, force: true });
  });

  it('streams every file into the archive, bytes intact, names made unique', async () => {
    const fichiers = [
      { cle: 'resultats/a.jpg', octets: randomBytes(3 * 1024 * 1024), nom: 'salon.jpg' },
      { cle: 'resultats/b.jpg', octets: randomBytes(1000), nom: 'salon.jpg' },
      { cle: 'resultats/c.md', octets: Buffer.from('# Annonce\n'.repeat(100)), nom: '../annonce.md' },
    ];
    for (const f of fichiers) await client().send(new PutObjectCommand({ Bucket: bucket, Key: f.cle, Body: f.octets }));
    await ecrireZip({ s3: client(), bucket, cle: 'zips/lot.zip', fichiers: fichiers.map(({ cle, nom }) => ({ cle, nom })) });
    const { Body } = await client().send(new GetObjectCommand({ Bucket: bucket, Key: 'zips/lot.zip' }));
    const entrees = await lireZip(Buffer.from(await Body!.transformToByteArray()));
    expect([...entrees.keys()]).toEqual(['salon.jpg', 'salon (2).jpg', '__annonce.md']);
    expect(entrees.get('salon.jpg')!.equals(fichiers[0]!.octets)).toBe(true);
    expect(entrees.get('salon (2).jpg')!.equals(fichiers[1]!.octets)).toBe(true);
  });

  it('a missing source fails the whole ZIP and leaves no object behind', async () => {
    await client().send(new PutObjectCommand({ Bucket: bucket, Key: 'resultats/present.jpg', Body: randomBytes(10) }));
    await expect(
      ecrireZip({
        s3: client(),
        bucket,
        cle: 'zips/casse.zip',
        fichiers: [
          { cle: 'resultats/present.jpg', nom: 'a.jpg' },
          { cle: 'resultats/absent.jpg', nom: 'b.jpg' },
        ],
      }),
    ).rejects.toThrow();
    await expect(client().send(new HeadObjectCommand({ Bucket: bucket, Key: 'zips/casse.zip' }))).rejects.toThrow();
  });

  it('names inside the archive never carry paths or control characters', () => {
    expect(nomsUniques(['a/b.jpg', 'a\\b.jpg', 'x\u0000y.jpg', '', 'A.jpg', 'a.jpg'])).toEqual([
      'a_b.jpg',
      'a_b (2).jpg',
      'x_y.jpg',
      'fichier',
      'A.jpg',
      'a (2).jpg',
    ]);
  });
});

describe('signed links', () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const privee = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const publique = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const base = 'https://fichiers.example/r';
  const maintenant = new Date('2026-11-23T10:00:00.400Z');
  const signer = creerSignataire({ base, idCle: 'K1', clePrivee: privee }, () => maintenant);
  const cles = { K1: publique };

  it('a link is valid 24 hours, names its file, and verifies like CloudFront does', () => {
    const lien = signer('resultats/c/t/01-séjour été-ciel.jpg');
    expect(lien.expire_le).toBe('2026-11-24T10:00:00.000Z');
    const verification = verifierLien(lien.url, cles, base, maintenant);
    expect(verification).toEqual({ valide: true, cle: 'resultats/c/t/01-séjour été-ciel.jpg' });
    // The signature is RSA-SHA256 over CloudFront's canned policy, independently rebuilt here.
    const url = new URL(lien.url);
    const ressource = lien.url.split('?')[0];
    const politique = `{"Statement":[{"Resource":"${ressource}","Condition":{"DateLessThan":{"AWS:EpochTime":${url.searchParams.get('Expires')}}}}]}`;
    const signature = Buffer.from(url.searchParams.get('Signature')!.replace(/-/g, '+').replace(/_/g, '=').replace(/~/g, '/'), 'base64');
    expect(verify('RSA-SHA256', Buffer.from(politique), publicKey, signature)).toBe(true);
    expect(url.searchParams.get('Key-Pair-Id')).toBe('K1');
  });

  it('refuses tampered, expired, unknown-key and foreign links', () => {
    const lien = signer('resultats/c/t/a.jpg', 'a.jpg');
    const modifier = (nom: string, valeur: string) => {
      const url = new URL(lien.url);
      url.searchParams.set(nom, valeur);
      return url.toString();
    };
    expect(verifierLien(lien.url.replace('/a.jpg', '/b.jpg'), cles, base, maintenant).valide).toBe(false);
    expect(verifierLien(modifier('Expires', '4102444800'), cles, base, maintenant).valide).toBe(false);
    expect(verifierLien(modifier('Signature', 'AAAA'), cles, base, maintenant).valide).toBe(false);
    expect(verifierLien(modifier('Key-Pair-Id', 'K2'), cles, base, maintenant).valide).toBe(false);
    expect(verifierLien(lien.url, cles, base, new Date(maintenant.getTime() + 24 * 3600_000))).toEqual({ valide: false, raison: 'expired' });
    const autre = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    expect(verifierLien(lien.url, { K1: autre }, base, maintenant).valide).toBe(false);
    expect(verifierLien(lien.url.split('?')[0]!, cles, base, maintenant).valide).toBe(false);
  });
});
