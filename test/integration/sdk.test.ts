/**
 * The TypeScript SDK (clients/sdk) against the real local stack, as a customer's code uses it: the tools
 * and the balance, a real photo uploaded by path with its progress, a job waited for and its result
 * downloaded, a batch and its ZIP, an erasure; then what the SDK is for beyond plain calls: a 429 waited
 * out for its Retry-After, a POST /travaux whose answer was lost retried and charged once, a transient
 * 5xx retried, errors typed by their code. Last, the package itself: packed, installed outside the
 * repository, imported from a plain .mjs script.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErreurRetouche, estLot, Retouche, type DemandeLancement, type Travail } from '../../clients/sdk/src/index';
import { demarrerPileTest } from '../support/pile';
import { lireZip } from '../support/zip';

type Pile = Awaited<ReturnType<typeof demarrerPileTest>>;

const RACINE = fileURLToPath(new URL('../../', import.meta.url));
const DOSSIER_SDK = join(RACINE, 'clients', 'sdk');
const PHOTO_A = join(RACINE, 'test/photos/facade-ciel-blanc_polyhaven-cambridge-a.jpg');
const PHOTO_B = join(RACINE, 'test/photos/facade-ciel-blanc_polyhaven-cambridge-b.jpg');
const executer = promisify(execFile);

/**
 * The stack's clock: the real one, unless the rate-limit test sets its own (the limit counts requests
 * per calendar minute of this clock).
 */
let horloge: () => number = () => Date.now();
let pile: Pile;
let dossier: string;

beforeAll(async () => {
  pile = await demarrerPileTest({ horloge: () => new Date(horloge()) });
  dossier = mkdtempSync(join(tmpdir(), 'retouche-sdk-'));
});
afterAll(async () => {
  await pile?.arreter();
  if (dossier) rmSync(dossier, { recursive: true, force: true });
});

/** A fetch that lets the test see and change what goes through, as the client's `fetch` option allows. */
type Fetch = typeof fetch;
const urlDe = (entree: Parameters<Fetch>[0]) => (entree instanceof Request ? entree.url : String(entree));

describe('the SDK, as a customer uses it', () => {
  let retouche: Retouche;
  let travailCiel: Travail;
  beforeAll(async () => {
    const { cle } = await pile.creerCompte(20);
    retouche = new Retouche({ base: pile.urlBase, cle });
  });

  it('lists the tools and reads the balance', async () => {
    const outils = await retouche.outils();
    expect(outils.map((o) => o.id)).toEqual(['vider', 'staging', 'renovation', 'saison', 'ciel', 'annonce']);
    expect(outils.find((o) => o.id === 'ciel')).toMatchObject({ cout: 2, images: { min: 1, max: 50, par_lot: true } });
    expect(await retouche.solde()).toEqual({ credits: 20 });
  });

  it('uploads a real photo by its path with its progress, runs ciel, waits for it and downloads the result', async () => {
    const taille = statSync(PHOTO_A).size;
    const progres: [number, number][] = [];
    const lancement = await retouche.lancer({ outil: 'ciel', images: [PHOTO_A] }, { progression: (envoye, total) => progres.push([envoye, total]) });
    expect(progres[0]).toEqual([0, taille]);
    expect(progres.at(-1)).toEqual([taille, taille]);
    expect(progres.every(([envoye], i) => i === 0 || envoye >= progres[i - 1]![0])).toBe(true);
    expect(lancement).toMatchObject({ lot: null, outil: 'ciel', cout_total: 2, echecs: [] });
    // Started from an upload (docs/api.md: a one-image job takes the upload's id), named after the file.
    expect(lancement.travaux[0]).toMatchObject({ statut: 'en_attente', nom: 'facade-ciel-blanc_polyhaven-cambridge-a.jpg' });

    travailCiel = await retouche.attendre(lancement.travaux[0]!);
    expect(travailCiel).toMatchObject({ statut: 'termine', rembourse: false });
    expect(travailCiel.resultats).toHaveLength(1);

    const vers = join(dossier, 'ciel.jpg');
    expect(await retouche.telechargerResultat(travailCiel, { vers })).toBe(vers);
    const fichier = await readFile(vers);
    // From memory: the stack in this process lets libvips load images from buffers only (moteurs/commun/pixels.ts).
    const original = await sharp(await readFile(PHOTO_A)).metadata();
    expect(await sharp(fichier).metadata()).toMatchObject({ format: 'jpeg', width: original.width, height: original.height });
    // By id: the job is read again for a fresh link; the same file.
    expect(Buffer.from(await retouche.telechargerResultat(travailCiel.id)).equals(fichier)).toBe(true);
    expect(readdirSync(dossier)).toEqual(['ciel.jpg']);
    expect(await retouche.solde()).toEqual({ credits: 18 });
    const liste = await retouche.travaux({ limite: 5, outil: 'ciel' });
    expect(liste.map((t) => t.id)).toContain(travailCiel.id);
  });

  it('launches a batch of two (a path and a Buffer), waits for its ZIP and downloads it', async () => {
    const lancement = await retouche.lancer({ outil: 'ciel', images: [PHOTO_B, { octets: await readFile(PHOTO_A), nom: 'encore.jpg' }] });
    expect(lancement).toMatchObject({ outil: 'ciel', cout_total: 4, lot: expect.any(String) });
    expect(lancement.travaux.map((t) => t.nom)).toEqual(['facade-ciel-blanc_polyhaven-cambridge-b.jpg', 'encore.jpg']);
    const etats: string[] = [];
    const lot = await retouche.attendre(lancement, { surEtat: (e) => etats.push(e.statut) });
    if (!estLot(lot)) throw new Error('a batch was expected');
    expect(lot).toMatchObject({ statut: 'termine', total: 2, termines: 2, en_cours: 0 });
    expect(lot.zip).not.toBeNull();
    expect(etats.at(-1)).toBe('termine');

    const zip = await retouche.telechargerZip(lot.id);
    const fichiers = await lireZip(Buffer.from(zip));
    expect([...fichiers.keys()]).toHaveLength(2);
    for (const octets of fichiers.values()) expect((await sharp(octets).metadata()).format).toBe('jpeg');
    expect(await retouche.telechargerZip(lot, { vers: join(dossier, 'lot.zip') })).toBe(join(dossier, 'lot.zip'));
    expect(await retouche.solde()).toEqual({ credits: 14 });
  });

  it('erases a job: it is gone, a typed 404 after', async () => {
    const effacement = await retouche.effacerTravail(travailCiel.id);
    expect(effacement).toMatchObject({ travaux: [travailCiel.id], lots: [] });
    const erreur = await retouche.travail(travailCiel.id).catch((e: unknown) => e);
    expect(erreur).toBeInstanceOf(ErreurRetouche);
    expect(erreur).toMatchObject({ statut: 404, code: 'not_found' });
    // Credits do not move with an erasure.
    expect(await retouche.solde()).toEqual({ credits: 14 });
  });

  it('throws errors typed by their code, with the details of the API', async () => {
    const demande = { outil: 'peinture', images: [{ url: 'https://photos.example.com/salon.jpg' }] } as unknown as DemandeLancement;
    const outil = await retouche.lancer(demande).catch((e: unknown) => e);
    expect(outil).toBeInstanceOf(ErreurRetouche);
    expect(outil).toMatchObject({ name: 'ErreurRetouche', statut: 422, code: 'invalid_tool', methode: 'POST' });
    expect((outil as ErreurRetouche).details[0]).toMatchObject({ chemin: 'outil', message: expect.stringContaining('peinture') });

    const reglage = await retouche
      .lancer({ outil: 'staging', valeurs: { style: 'baroque' }, images: [{ url: 'https://photos.example.com/salon.jpg' }] } as unknown as DemandeLancement)
      .catch((e: unknown) => e);
    expect(reglage).toMatchObject({ statut: 422, code: 'invalid_settings', details: [{ chemin: 'valeurs.style' }] });

    const cle = await new Retouche({ base: pile.urlBase, cle: `rtch_${'x'.repeat(43)}` }).solde().catch((e: unknown) => e);
    expect(cle).toMatchObject({ statut: 401, code: 'unauthorized' });

    // Bytes that are no image are refused before anything is sent: no upload is announced.
    const octets = await retouche.lancer({ outil: 'ciel', images: [new Uint8Array([1, 2, 3, 4])] }).catch((e: unknown) => e);
    expect(octets).toMatchObject({ statut: 0, code: 'unsupported_image' });
    expect(await retouche.solde()).toEqual({ credits: 14 });
  });

  it('pages through the jobs: pageTravaux gives a cursor, parcourirTravaux every job once', async () => {
    const tous = await retouche.travaux({ limite: 100 });
    expect(tous.length).toBeGreaterThanOrEqual(2);
    const premiere = await retouche.pageTravaux({ limite: 1 });
    expect(premiere.travaux.map((t) => t.id)).toEqual([tous[0]!.id]);
    expect(premiere.suivant).toEqual(expect.any(String));
    const lus: string[] = [];
    for await (const travail of retouche.parcourirTravaux({ limite: 1 })) lus.push(travail.id);
    expect(lus).toEqual(tous.map((t) => t.id));
  });

  it('checks a request with local photos against GET /outils before uploading them: a typo costs no upload', async () => {
    const appels: string[] = [];
    const observee: Fetch = (entree, init) => {
      appels.push(`${init?.method ?? 'GET'} ${new URL(String(entree)).pathname}`);
      return fetch(entree, init);
    };
    const { cle } = await pile.creerCompte(10);
    const client = new Retouche({ base: pile.urlBase, cle, fetch: observee });
    const outil = await client.lancer({ outil: 'stagin', images: [PHOTO_A, PHOTO_B] } as unknown as DemandeLancement).catch((e: unknown) => e);
    expect(outil).toMatchObject({ statut: 0, code: 'invalid_tool', details: [{ chemin: 'outil' }] });
    expect((outil as Error).message).toContain('did you mean "staging"?');
    expect((outil as Error).message).toContain('Nothing was uploaded');
    const reglages = await client
      .lancer({ outil: 'annonce', valeurs: { langue: 'Klingon', couleur: 'rouge' }, images: [PHOTO_A] } as unknown as DemandeLancement)
      .catch((e: unknown) => e);
    expect(reglages).toMatchObject({ statut: 0, code: 'invalid_settings' });
    expect((reglages as ErreurRetouche).details.map((d) => d.chemin)).toEqual(['valeurs.langue', 'valeurs.couleur', 'valeurs.lieu']);
    // Nothing was announced nor sent to POST /travaux: only the catalogue was read, first, and again before
    // the second refusal (a request refused on a catalogue read earlier is checked on a fresh one).
    expect(appels).toEqual(['GET /api/v1/outils', 'GET /api/v1/outils']);
    // A right request goes on, on the catalogue already read.
    const lancement = await client.lancer({ outil: 'ciel', images: [PHOTO_A] });
    expect(lancement.cout_total).toBe(2);
    expect(appels.filter((a) => a.endsWith('/outils'))).toHaveLength(2);
    expect(appels).toContain('POST /api/v1/televersements');
  });
});

describe('retries', () => {
  it('a POST /travaux whose answer is lost is sent again with the same Idempotency-Key, and charged once', async () => {
    const { cle } = await pile.creerCompte(10);
    const cles: (string | null)[] = [];
    let perdre = true;
    const perdante: Fetch = async (entree, init) => {
      const reponse = await fetch(entree, init);
      if (init?.method === 'POST' && urlDe(entree).endsWith('/travaux')) {
        cles.push(new Headers(init.headers).get('idempotency-key'));
        if (perdre) {
          // The request was served and charged; its answer never reaches the client.
          perdre = false;
          await reponse.arrayBuffer();
          throw new TypeError('fetch failed', { cause: new Error('other side closed (injected by the test)') });
        }
      }
      return reponse;
    };
    const retouche = new Retouche({ base: pile.urlBase, cle, fetch: perdante, delaiInitialMs: 20 });
    const lancement = await retouche.lancer({ outil: 'ciel', images: [PHOTO_A] });
    expect(cles).toHaveLength(2);
    expect(cles[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(cles[1]).toBe(cles[0]);
    expect(lancement).toMatchObject({ cout_total: 2, lot: null });
    // One job, charged once: the retry got the first answer back.
    expect((await retouche.travaux()).map((t) => t.id)).toEqual([lancement.travaux[0]!.id]);
    expect(await retouche.solde()).toEqual({ credits: 8 });
    expect(await retouche.attendre(lancement.travaux[0]!)).toMatchObject({ statut: 'termine' });
    // Each call its own key.
    await retouche.lancer({ outil: 'ciel', images: [{ televersement: (await retouche.televerser([PHOTO_B]))[0]!.id }] });
    expect(cles).toHaveLength(3);
    expect(cles[2]).not.toBe(cles[0]);
    expect(await retouche.solde()).toEqual({ credits: 6 });
    await pile.attendreInactivite();
  });

  it('a transient 5xx is retried after a pause; a 4xx is not', async () => {
    const { cle } = await pile.creerCompte(3);
    const statuts: number[] = [];
    let pannes = 2;
    const capricieuse: Fetch = async (entree, init) => {
      const reponse =
        pannes-- > 0
          ? new Response(JSON.stringify({ error: { code: 'internal_error', message: 'injected' } }), { status: pannes === 1 ? 502 : 500 })
          : await fetch(entree, init);
      statuts.push(reponse.status);
      return reponse;
    };
    const retouche = new Retouche({ base: pile.urlBase, cle, fetch: capricieuse, delaiInitialMs: 20 });
    expect(await retouche.solde()).toEqual({ credits: 3 });
    expect(statuts).toEqual([502, 500, 200]);
    statuts.length = 0;
    await expect(retouche.lot('00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({ statut: 404, code: 'not_found' });
    expect(statuts).toEqual([404]);
    // Past its retries, the last answer is the error.
    pannes = 10;
    const sansFin = new Retouche({ base: pile.urlBase, cle, fetch: capricieuse, reessais: 2, delaiInitialMs: 5 });
    await expect(sansFin.solde()).rejects.toMatchObject({ statut: 500, code: 'internal_error' });
  });

  it('a 429 is waited out for its Retry-After, then the call goes on', async () => {
    const { cle } = await pile.creerCompte(10);
    // One second before a minute ends, and held there while the key spends its 120 requests.
    const minute = Math.floor(Date.now() / 60_000) * 60_000 + 60_000;
    horloge = () => minute - 1_000;
    const refus: { retryAfter: string | null; code: unknown; a: number }[] = [];
    const observee: Fetch = async (entree, init) => {
      const reponse = await fetch(entree, init);
      if (reponse.status === 429) {
        const corps = (await reponse.clone().json()) as { error: { code: string } };
        refus.push({ retryAfter: reponse.headers.get('retry-after'), code: corps.error.code, a: Date.now() });
        // From the refusal on, the stack's time runs: the next minute starts one second later, no sooner.
        const depuis = Date.now();
        horloge = () => minute - 1_000 + (Date.now() - depuis);
      }
      return reponse;
    };
    const retouche = new Retouche({ base: pile.urlBase, cle, fetch: observee });
    try {
      for (let paquet = 0; paquet < 12; paquet++) await Promise.all(Array.from({ length: 10 }, () => retouche.solde()));
      expect(refus).toEqual([]);
      const debut = Date.now();
      expect(await retouche.solde()).toEqual({ credits: 10 });
      // One refusal: the retry came after Retry-After, not before (a second 429 would say so).
      expect(refus).toEqual([{ retryAfter: '1', code: 'rate_limited', a: expect.any(Number) }]);
      expect(Date.now() - debut).toBeGreaterThanOrEqual(1_000);
    } finally {
      horloge = () => Date.now();
    }
  });
});

describe('the package', () => {
  /** npm's own variables of a run under `npm test` would point the child npm at this project. */
  const env = Object.fromEntries(Object.entries(process.env).filter(([nom]) => !/^npm_/i.test(nom)));

  it('is packed by npm pack, installs offline outside the repository, and is imported by a .mjs script', async () => {
    const dehors = mkdtempSync(join(tmpdir(), 'retouche-sdk-paquet-'));
    try {
      // prepack builds dist/ first.
      await executer('npm', ['pack', '--pack-destination', dehors], { cwd: DOSSIER_SDK, env });
      const archive = readdirSync(dehors).find((f) => f.endsWith('.tgz'));
      expect(archive).toBe('retouche-sdk-1.1.0.tgz');
      const { stdout: contenu } = await executer('tar', ['-tzf', join(dehors, archive!)]);
      const fichiers = contenu.trim().split('\n');
      expect(fichiers).toEqual(expect.arrayContaining(['package/package.json', 'package/README.md', 'package/dist/index.js', 'package/dist/index.d.ts']));
      expect(fichiers.filter((f) => !f.startsWith('package/dist/') && !['package/package.json', 'package/README.md'].includes(f))).toEqual([]);

      const appli = join(dehors, 'appli');
      mkdirSync(appli);
      writeFileSync(join(appli, 'package.json'), JSON.stringify({ name: 'appli', version: '1.0.0', private: true, type: 'module' }));
      // No dependency to fetch: installed offline, from the tarball alone.
      await executer('npm', ['install', join(dehors, archive!), '--offline', '--no-audit', '--no-fund'], { cwd: appli, env });
      const { cle } = await pile.creerCompte(7);
      writeFileSync(
        join(appli, 'essai.mjs'),
        [
          "import { ErreurRetouche, Retouche } from '@retouche/sdk';",
          'const retouche = new Retouche({ base: process.env.RETOUCHE_BASE, cle: process.env.RETOUCHE_CLE });',
          'const solde = await retouche.solde();',
          "const refus = await new Retouche({ base: process.env.RETOUCHE_BASE, cle: 'rtch_inconnue' }).solde().catch((e) => e);",
          'console.log(JSON.stringify({ solde, refus: refus instanceof ErreurRetouche ? refus.code : String(refus) }));',
          '',
        ].join('\n'),
      );
      const { stdout } = await executer(process.execPath, ['essai.mjs'], { cwd: appli, env: { ...env, RETOUCHE_BASE: pile.urlBase, RETOUCHE_CLE: cle } });
      expect(JSON.parse(stdout)).toEqual({ solde: { credits: 7 }, refus: 'unauthorized' });

      // Its declarations, as a TypeScript project that installed it reads them (NodeNext, strict).
      writeFileSync(
        join(appli, 'consommateur.ts'),
        [
          "import { ErreurRetouche, Retouche, type DemandeLancement, type Travail } from '@retouche/sdk';",
          "const retouche = new Retouche({ base: 'http://localhost:3000/api/v1', cle: 'rtch_cle' });",
          "export const lancer = () => retouche.lancer({ outil: 'staging', valeurs: { style: 'japandi' }, images: ['salon.jpg', new Uint8Array(0)] });",
          'export const statut = async (id: string): Promise<Travail["statut"]> => (await retouche.attendreTravail(id)).statut;',
          'export const code = (e: unknown): string | null => (e instanceof ErreurRetouche ? e.code : null);',
          '// @ts-expect-error: a style staging does not have',
          "export const faux: DemandeLancement = { outil: 'staging', valeurs: { style: 'baroque' }, images: [] };",
          '',
        ].join('\n'),
      );
      const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
      const types = join(RACINE, 'node_modules', '@types');
      const options = ['--noEmit', '--strict', '--target', 'es2022', '--lib', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext'];
      const verification = await executer(process.execPath, [tsc, ...options, '--typeRoots', types, '--types', 'node', 'consommateur.ts'], {
        cwd: appli,
      }).catch((e: { stdout: string }) => e);
      expect(verification.stdout).toBe('');
    } finally {
      rmSync(dehors, { recursive: true, force: true });
    }
  });
});
