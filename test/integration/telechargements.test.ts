/**
 * Downloads that download (issue 40, point 5), on the local stack as a browser meets it: a result's
 * `url` and a batch's ZIP answer with `Content-Disposition: attachment` and the file's name (RFC 6266,
 * an ASCII `filename` and a UTF-8 `filename*`), set from the link's signed `response-content-disposition`
 * by the local S3 as S3 does; `url_affichage`, the link the studio's before/after slider shows, answers
 * without. And the links are on the host the request came by (localhost or 127.0.0.1, never another),
 * so a studio opened at 127.0.0.1 can show them under its Content Security Policy ('self').
 */
import { request } from 'node:http';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lancement, Travail } from '../../lambdas/core/modele/enregistrements';
import { SchemaTravail } from '../../lambdas/core/contrat/openapi/schemas';
import { pilePartagee, type PileTest } from '../support/pile';
import { appeler, attendreLot, attendreTravail, enBase64, imageTest } from '../support/client';
import { lireZip } from '../support/zip';

type Pile = PileTest;
let pile: Pile;
/** The API by 127.0.0.1, as the test client calls it, and by localhost, as the README's examples do. */
let parIp: string;
let parNom: string;

beforeAll(async () => {
  pile = await pilePartagee();
  parIp = `http://127.0.0.1:${pile.port}/api/v1`;
  parNom = `http://localhost:${pile.port}/api/v1`;
});
afterAll(async () => pile?.arreter());

const lancer = async (cle: string, noms: (string | null)[]): Promise<Lancement> => {
  const images = await Promise.all(noms.map(async (nom, i) => ({ base64: enBase64(await imageTest(i + 1)), ...(nom ? { nom } : {}) })));
  const { statut, corps } = await appeler<Lancement>(parIp, 'POST', '/travaux', { cle, json: { outil: 'ciel', images } });
  expect(statut).toBe(202);
  return corps;
};

/** GET /travaux/{id} with the Host header a client sends (fetch cannot set it): the job as answered. */
const lireAvecHote = (cle: string, id: string, hote: string): Promise<Travail> =>
  new Promise((resoudre, rejeter) => {
    const req = request(
      { host: '127.0.0.1', port: pile.port, path: `/api/v1/travaux/${id}`, headers: { Host: hote, Authorization: `Bearer ${cle}` } },
      (reponse) => {
        let corps = '';
        reponse.setEncoding('utf8');
        reponse.on('data', (m: string) => (corps += m));
        reponse.on('end', () => (reponse.statusCode === 200 ? resoudre(JSON.parse(corps) as Travail) : rejeter(new Error(`${reponse.statusCode}: ${corps}`))));
      },
    );
    req.on('error', rejeter);
    req.end();
  });

/** A file link fetched with the Host header a client sends: its status. */
const statutAvecHote = (lien: string, hote: string): Promise<number> =>
  new Promise((resoudre, rejeter) => {
    const u = new URL(lien);
    const req = request({ host: '127.0.0.1', port: pile.port, path: `${u.pathname}${u.search}`, headers: { Host: hote } }, (reponse) => {
      reponse.resume();
      reponse.on('end', () => resoudre(reponse.statusCode ?? 0));
    });
    req.on('error', rejeter);
    req.end();
  });

describe('result links', () => {
  it('url downloads the result as attachment under its name (UTF-8 filename*), url_affichage shows it', async () => {
    const { cle } = await pile.creerCompte(10);
    const lancement = await lancer(cle, ['Séjour été.jpg']);
    const travail = await attendreTravail(parIp, cle, lancement.travaux[0]!.id);
    expect(travail.statut).toBe('termine');
    const [lien] = travail.resultats;

    const telechargement = await fetch(lien!.url);
    expect(telechargement.status).toBe(200);
    expect(telechargement.headers.get('content-type')).toBe('image/jpeg');
    expect(telechargement.headers.get('content-disposition')).toBe(
      `attachment; filename="01-Sejour ete-ciel.jpg"; filename*=UTF-8''01-S%C3%A9jour%20%C3%A9t%C3%A9-ciel.jpg`,
    );
    const octets = Buffer.from(await telechargement.arrayBuffer());
    expect([...octets.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);

    const affichage = await fetch(lien!.url_affichage);
    expect(affichage.status).toBe(200);
    expect(affichage.headers.get('content-type')).toBe('image/jpeg');
    expect(affichage.headers.get('content-disposition')).toBeNull();
    expect(Buffer.from(await affichage.arrayBuffer()).equals(octets)).toBe(true);

    // The name is signed: another one, or a display link made a download one, is refused.
    expect((await fetch(lien!.url.replace('ciel.jpg%22', 'autre.jpg%22'))).status).toBe(403);
    const nomSigne = new URL(lien!.url).searchParams.get('response-content-disposition')!;
    expect((await fetch(`${lien!.url_affichage}&response-content-disposition=${encodeURIComponent(nomSigne)}`)).status).toBe(403);
  });

  it('a result of a photo sent without a name downloads as <job id>-<tool>.jpg', async () => {
    const { cle } = await pile.creerCompte(10);
    const lancement = await lancer(cle, [null]);
    const travail = await attendreTravail(parIp, cle, lancement.travaux[0]!.id);
    const reponse = await fetch(travail.resultats[0]!.url);
    expect(reponse.headers.get('content-disposition')).toBe(`attachment; filename="${travail.id}-ciel.jpg"; filename*=UTF-8''${travail.id}-ciel.jpg`);
    await reponse.arrayBuffer();
  });

  it("the batch's ZIP downloads as attachment, retouche-<day>-<tool>-<short id>.zip", async () => {
    const { cle } = await pile.creerCompte(10);
    const jour = new Date().toISOString().slice(0, 10);
    const lancement = await lancer(cle, ['Façade.jpg', 'Jardin d’hiver.jpg']);
    const lot = await attendreLot(parIp, cle, lancement.lot!);
    expect(lot.statut).toBe('termine');
    const zip = await fetch(lot.zip!.url);
    expect(zip.status).toBe(200);
    // A name a person recognises in a downloads folder, not a UUID (issue 41, point 2); the id's start keeps it unique.
    const nom = `retouche-${jour}-ciel-${lot.id.slice(0, 8)}.zip`;
    expect(zip.headers.get('content-disposition')).toBe(`attachment; filename="${nom}"; filename*=UTF-8''${nom}`);
    const entrees = await lireZip(Buffer.from(await zip.arrayBuffer()));
    expect([...entrees.keys()].sort()).toEqual(['01-Façade-ciel.jpg', '02-Jardin d_hiver-ciel.jpg']);
    // Each job of the batch: its own name to download, as in the ZIP.
    const dispositions = await Promise.all(
      lot.travaux.map(async (t) => {
        const r = await fetch(t.resultats[0]!.url);
        await r.arrayBuffer();
        return r.headers.get('content-disposition');
      }),
    );
    expect(dispositions).toEqual([
      `attachment; filename="01-Facade-ciel.jpg"; filename*=UTF-8''01-Fa%C3%A7ade-ciel.jpg`,
      `attachment; filename="02-Jardin d_hiver-ciel.jpg"; filename*=UTF-8''02-Jardin%20d_hiver-ciel.jpg`,
    ]);
  });
});

describe('the host of the links', () => {
  it('a request by 127.0.0.1 gets links on 127.0.0.1, one by localhost links on localhost, and both serve the file', async () => {
    const { cle } = await pile.creerCompte(10);
    const lancement = await lancer(cle, ['salon.jpg']);
    const id = lancement.travaux[0]!.id;
    const ip = await attendreTravail(parIp, cle, id);
    const nom = await attendreTravail(parNom, cle, id);
    for (const [travail, origine] of [
      [ip, `http://127.0.0.1:${pile.port}`],
      [nom, `http://localhost:${pile.port}`],
    ] as const) {
      expect(v.safeParse(SchemaTravail, travail).issues).toBeUndefined();
      const { url, url_affichage } = travail.resultats[0]!;
      expect(url.startsWith(`${origine}/fichiers/resultats/`)).toBe(true);
      expect(url_affichage.startsWith(`${origine}/fichiers/resultats/`)).toBe(true);
      for (const lien of [url, url_affichage]) {
        const reponse = await fetch(lien);
        expect(reponse.status, lien).toBe(200);
        await reponse.arrayBuffer();
      }
    }
    // The host is compared without case.
    expect((await lireAvecHote(cle, id, `LOCALHOST:${pile.port}`)).resultats[0]!.url.startsWith(`http://localhost:${pile.port}/`)).toBe(true);
  });

  it('any other Host header gets links on localhost, never on the host it named; a link asked by another host is refused', async () => {
    const { cle } = await pile.creerCompte(10);
    const lancement = await lancer(cle, ['salon.jpg']);
    const id = lancement.travaux[0]!.id;
    await attendreTravail(parIp, cle, id);
    for (const hote of ['evil.example', `evil.example:${pile.port}`, `127.0.0.1:${pile.port + 1}`, `127.0.0.1.evil.example:${pile.port}`]) {
      const travail = await lireAvecHote(cle, id, hote);
      expect(travail.resultats[0]!.url.startsWith(`http://localhost:${pile.port}/fichiers/`), hote).toBe(true);
      expect(travail.resultats[0]!.url_affichage.startsWith(`http://localhost:${pile.port}/fichiers/`), hote).toBe(true);
    }
    const lien = (await lireAvecHote(cle, id, `127.0.0.1:${pile.port}`)).resultats[0]!.url;
    expect(await statutAvecHote(lien, `127.0.0.1:${pile.port}`)).toBe(200);
    // Signed for 127.0.0.1: by localhost it is another URL, and by a host the stack does not answer on, none of its links.
    expect(await statutAvecHote(lien, `localhost:${pile.port}`)).toBe(403);
    expect(await statutAvecHote(lien, `evil.example:${pile.port}`)).toBe(403);
  });
});
