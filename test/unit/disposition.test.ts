/**
 * Downloads that download (issue 40, point 5): a result's `url` carries a signed
 * `response-content-disposition` (attachment, its name, RFC 6266 with a UTF-8 `filename*`), its
 * `url_affichage` none; the ZIP's `url` downloads as `retouche-<day>-<tool>-<short id>.zip`. The headers themselves, served
 * by the local stand-ins, are checked end to end in test/integration/telechargements.test.ts.
 */
import { generateKeyPairSync, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { creerSignataire, verifierLien } from '../../lambdas/core/infra/liens';
import { dispositionPieceJointe, nomDeDisposition, queryTelechargement } from '../../lambdas/core/modele/disposition';
import { nomFichier } from '../../lambdas/core/modele/cles-s3';
import { nomZip, versLot, versTravail, type EnregistrementLot, type EnregistrementTravail } from '../../lambdas/core/modele/enregistrements';
import { SchemaLot, SchemaTravail } from '../../lambdas/core/contrat/openapi/schemas';

describe('dispositionPieceJointe (RFC 6266)', () => {
  it('gives an ASCII filename and the UTF-8 filename*, percent-encoded with attr-chars only', () => {
    expect(dispositionPieceJointe('01-jardin-ciel.jpg')).toBe(`attachment; filename="01-jardin-ciel.jpg"; filename*=UTF-8''01-jardin-ciel.jpg`);
    expect(dispositionPieceJointe('01-séjour été-ciel.jpg')).toBe(
      `attachment; filename="01-sejour ete-ciel.jpg"; filename*=UTF-8''01-s%C3%A9jour%20%C3%A9t%C3%A9-ciel.jpg`,
    );
    // Other scripts: no ASCII letters to keep, the UTF-8 name whole.
    expect(dispositionPieceJointe('客厅.jpg')).toBe(`attachment; filename="__.jpg"; filename*=UTF-8''%E5%AE%A2%E5%8E%85.jpg`);
    // Quotes, backslashes and % never reach the quoted fallback; '()* are not RFC 8187 attr-chars.
    expect(dispositionPieceJointe(`l'"été" \\ 100% (2)*.jpg`)).toBe(
      `attachment; filename="l'_ete_ _ 100_ (2)*.jpg"; filename*=UTF-8''l%27%22%C3%A9t%C3%A9%22%20%5C%20100%25%20%282%29%2A.jpg`,
    );
    // A line break cannot split the header; nothing left is still a name.
    expect(dispositionPieceJointe('a\r\nSet-Cookie: x.jpg')).toBe(`attachment; filename="aSet-Cookie: x.jpg"; filename*=UTF-8''aSet-Cookie%3A%20x.jpg`);
    expect(dispositionPieceJointe('\n')).toBe(`attachment; filename="fichier"; filename*=UTF-8''fichier`);
  });

  it('reads back the name it wrote, whatever it holds', () => {
    for (const nom of ['a.jpg', '01-séjour été-ciel.jpg', '客厅.jpg', `l'"été" (2)*.jpg`, '100%.zip']) {
      expect(nomDeDisposition(dispositionPieceJointe(nom))).toBe(nom);
    }
    expect(nomDeDisposition('attachment; filename="a.jpg"')).toBeUndefined();
    expect(nomDeDisposition("attachment; filename*=UTF-8''%E0%A4%A")).toBeUndefined();
  });

  it('puts it in a query of unreserved characters and %XX only, which no client writes again otherwise', () => {
    expect(queryTelechargement(`l'"été" (2)*.jpg`)).toMatch(/^response-content-disposition=[A-Za-z0-9\-._~%]+$/);
  });
});

describe('signed download links', () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const base = 'https://d111.cloudfront.net';
  const maintenant = new Date('2026-11-23T10:00:00Z');
  const signer = creerSignataire({ base, idCle: 'K1', clePrivee: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() }, () => maintenant);
  const cles = { K1: publicKey.export({ type: 'spki', format: 'pem' }).toString() };

  it('sign the disposition with the path (CloudFront canned policy: the whole URL but its signature parameters)', () => {
    const lien = signer('resultats/c/t/01-séjour été-ciel.jpg', '01-séjour été-ciel.jpg');
    const url = new URL(lien.url);
    expect(url.searchParams.get('response-content-disposition')).toBe(dispositionPieceJointe('01-séjour été-ciel.jpg'));
    // Rebuilt independently: the resource holds the disposition, as written in the link.
    const ressource = lien.url.slice(0, lien.url.indexOf('&Expires='));
    expect(ressource).toContain('?response-content-disposition=attachment%3B%20filename%3D%22');
    const politique = `{"Statement":[{"Resource":"${ressource}","Condition":{"DateLessThan":{"AWS:EpochTime":${url.searchParams.get('Expires')}}}}]}`;
    const signature = Buffer.from(url.searchParams.get('Signature')!.replace(/-/g, '+').replace(/_/g, '=').replace(/~/g, '/'), 'base64');
    expect(verify('RSA-SHA256', Buffer.from(politique), publicKey, signature)).toBe(true);

    expect(verifierLien(lien.url, cles, base, maintenant)).toEqual({
      valide: true,
      cle: 'resultats/c/t/01-séjour été-ciel.jpg',
      disposition: dispositionPieceJointe('01-séjour été-ciel.jpg'),
    });
    // The display link of the same file has no disposition, and cannot be given one.
    const affichage = signer('resultats/c/t/01-séjour été-ciel.jpg');
    expect(new URL(affichage.url).searchParams.has('response-content-disposition')).toBe(false);
    expect(verifierLien(affichage.url, cles, base, maintenant)).toEqual({ valide: true, cle: 'resultats/c/t/01-séjour été-ciel.jpg' });
    const ajoutee = affichage.url.replace('?', `?${url.searchParams.toString().split('&')[0]}&`);
    expect(verifierLien(ajoutee, cles, base, maintenant)).toMatchObject({ valide: false, raison: 'bad signature' });
    // Nor can a download link lose it, or change it.
    expect(verifierLien(lien.url.replace(/response-content-disposition=[^&]+&/, ''), cles, base, maintenant)).toMatchObject({ valide: false });
    expect(verifierLien(lien.url.replace('attachment', 'inline'), cles, base, maintenant)).toMatchObject({ valide: false, raison: 'bad signature' });
  });
});

describe('a job and a batch as the API shows them', () => {
  const signer = creerSignataire({
    base: 'https://d111.cloudfront.net',
    idCle: 'K1',
    clePrivee: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  });
  const disposition = (url: string) => new URL(url).searchParams.get('response-content-disposition');
  const travail = (nom: string | null, index = 0): EnregistrementTravail => ({
    id: '3f6d2a0e-8b1c-4c9e-9a57-1d2e3f4a5b6c',
    compte: 'c',
    outil: 'ciel',
    statut: 'termine',
    cout: 2,
    valeurs: {},
    lot: null,
    index,
    nom,
    source: 'web',
    cree_le: '2026-11-23T10:00:00.000Z',
    commence_le: '2026-11-23T10:00:01.000Z',
    termine_le: '2026-11-23T10:00:05.000Z',
    entrees: [],
    resultats: [
      { cle: `resultats/c/3f6d2a0e-8b1c-4c9e-9a57-1d2e3f4a5b6c/${nomFichier(index, nom, 'ciel', 'jpg')}`, fichier: nomFichier(index, nom, 'ciel', 'jpg') },
    ],
    texte: null,
    erreur: null,
    rembourse: false,
    graine: 7,
  });

  it("a result: url downloads under the photo's name, url_affichage shows it, one expiry for both", () => {
    const t = versTravail(travail('Séjour été.jpg'), signer);
    expect(v.safeParse(SchemaTravail, t).issues).toBeUndefined();
    const [r] = t.resultats;
    expect(Object.keys(r!)).toEqual(['url', 'url_affichage', 'avant_affichage', 'expire_le']);
    expect(disposition(r!.url)).toBe(dispositionPieceJointe('01-Séjour été-ciel.jpg'));
    expect(disposition(r!.url_affichage)).toBeNull();
    expect(r!.url.split('?')[0]).toBe(r!.url_affichage.split('?')[0]);
  });

  it('avant_affichage shows the photo a result was made from, while the bucket keeps it (the history slider)', () => {
    const maintenant = Date.now();
    const avec = (entrees: EnregistrementTravail['entrees'], ilYa: number) =>
      versTravail({ ...travail('a.jpg'), entrees, cree_le: new Date(maintenant - ilYa).toISOString() }, signer).resultats[0]!.avant_affichage;
    const heure = 3600_000;
    const envoi = { type: 's3' as const, cle: 'televersements/c/u1.jpg' };
    const entree = { type: 's3' as const, cle: 'entrees/c/3f6d2a0e-8b1c-4c9e-9a57-1d2e3f4a5b6c/0.jpg' };
    const lien = avec([envoi], heure);
    expect(lien).not.toBeNull();
    expect(new URL(lien!).pathname).toBe('/televersements/c/u1.jpg');
    expect(disposition(lien!)).toBeNull();
    // An upload is kept a day, a photo sent or fetched 7 days (core/modele/retention.ts): null after.
    expect(avec([envoi], 25 * heure)).toBeNull();
    expect(avec([entree], 6 * 24 * heure)).not.toBeNull();
    expect(avec([entree], 8 * 24 * heure)).toBeNull();
    // Several photos (a listing's), or one the service fetched and did not store: nothing to compare with.
    expect(avec([entree, envoi], heure)).toBeNull();
    expect(avec([{ type: 'url', url: 'https://exemple.invalid/a.jpg' }], heure)).toBeNull();
  });

  it('a result of a photo without a name downloads as <job id>-<tool>.<extension>', () => {
    const [r] = versTravail(travail(null), signer).resultats;
    expect(disposition(r!.url)).toBe(dispositionPieceJointe('3f6d2a0e-8b1c-4c9e-9a57-1d2e3f4a5b6c-ciel.jpg'));
  });

  it("a batch's ZIP downloads as retouche-<day>-<tool>-<short id>.zip: a name a person recognises, unique by the id's start", () => {
    const lot: EnregistrementLot = {
      id: '7c1e9b42-5d3a-4f86-b0e1-2a3b4c5d6e7f',
      compte: 'c',
      outil: 'ciel',
      statut: 'termine',
      total: 1,
      termines: 1,
      echecs: 0,
      restants: 0,
      travaux: ['3f6d2a0e-8b1c-4c9e-9a57-1d2e3f4a5b6c'],
      zip_cle: 'zips/c/7c1e9b42-5d3a-4f86-b0e1-2a3b4c5d6e7f.zip',
      cree_le: '2026-11-23T10:00:00.000Z',
      termine_le: '2026-11-23T10:00:06.000Z',
    };
    const l = versLot(lot, [travail('a.jpg')], signer);
    expect(v.safeParse(SchemaLot, l).issues).toBeUndefined();
    expect(Object.keys(l.zip!)).toEqual(['url', 'expire_le']);
    expect(disposition(l.zip!.url)).toBe(dispositionPieceJointe('retouche-2026-11-23-ciel-7c1e9b42.zip'));
    expect(nomZip({ ...lot, id: 'a0b1c2d3-0000-4000-8000-000000000000', outil: 'annonce', cree_le: '2026-01-02T23:59:59.000Z' })).toBe(
      'retouche-2026-01-02-annonce-a0b1c2d3.zip',
    );
  });
});
