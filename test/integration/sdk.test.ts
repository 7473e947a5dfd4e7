/**
 * The TypeScript SDK (clients/sdk) against the real local stack, as a customer's code uses it: the tools
 * and the balance, a real photo uploaded by path with its progress, a job waited for and its result
 * downloaded, a batch and its ZIP, an erasure; then what the SDK is for beyond plain calls: a 429 waited
 * out for its Retry-After, a POST /travaux whose answer was lost retried and charged once, a transient
 * 5xx retried, errors typed by their code. The webhooks (our extension): an endpoint on 127.0.0.1 added,
 * tested, its delivery verified by `verifierWebhook`, its secret rotated, a failed delivery resent, the
 * endpoint removed; and the calls that must not be done twice not retried. Last, the package itself:
 * packed, installed outside the repository, imported from a plain .mjs script.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ErreurRetouche,
  estLot,
  Retouche,
  verifierWebhook,
  WebhookVerificationError,
  type DemandeLancement,
  type DetailProgression,
  type Livraison,
  type Travail,
} from '../../clients/sdk/src/index';
import { creerCle } from '../../lambdas/core/domaine/comptes';
import { demarrerPileTest } from '../support/pile';
import { demarrerRecepteur, type Recepteur } from '../support/recepteur';
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
let recepteur: Recepteur;

beforeAll(async () => {
  recepteur = await demarrerRecepteur();
  pile = await demarrerPileTest({
    horloge: () => new Date(horloge()),
    // Deliveries to the receiver on 127.0.0.1 (tests only), and three attempts a fraction of a second apart.
    webhooks: { boucleLocale: true, calendrierSecondes: [0.2, 0.2] },
  });
  dossier = mkdtempSync(join(tmpdir(), 'retouche-sdk-'));
});
afterAll(async () => {
  await pile?.arreter();
  await recepteur?.arreter();
  if (dossier) rmSync(dossier, { recursive: true, force: true });
});

const attendreQue = async <T>(quoi: string, fn: () => T | undefined | false | Promise<T | undefined | false>, delaiMs = 20_000): Promise<T> => {
  const fin = Date.now() + delaiMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > fin) throw new Error(`still waiting: ${quoi}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

/** A fetch that lets the test see and change what goes through, as the client's `fetch` option allows. */
type Fetch = typeof fetch;
const urlDe = (entree: Parameters<Fetch>[0]) => (entree instanceof Request ? entree.url : String(entree));

// One customer's story: each test goes on from the balance and the jobs the one before left, so never shuffled.
describe('the SDK, as a customer uses it', { shuffle: false }, () => {
  let retouche: Retouche;
  let travailCiel: Travail;
  beforeAll(async () => {
    const { cle } = await pile.creerCompte(20);
    retouche = new Retouche({ base: pile.urlBase, cle });
  });

  it('lists the tools and reads the balance', async () => {
    const outils = await retouche.outils();
    expect(outils.map((o) => o.id)).toEqual(['vider', 'staging', 'renovation', 'saison', 'ciel', 'annonce', 'fusion']);
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

  it('checks the balance against the cost before uploading: too few credits cost no upload, a test key pays nothing', async () => {
    const appels: string[] = [];
    const observee: Fetch = (entree, init) => {
      appels.push(`${init?.method ?? 'GET'} ${new URL(String(entree)).pathname}`);
      return fetch(entree, init);
    };
    const { compte, cle } = await pile.creerCompte(3);
    const client = new Retouche({ base: pile.urlBase, cle, fetch: observee });
    // A batch of two for ciel: 2 × 2 credits, on a balance of 3.
    const lot = await client.lancer({ outil: 'ciel', images: [PHOTO_A, PHOTO_B] }).catch((e: unknown) => e);
    expect(lot).toBeInstanceOf(ErreurRetouche);
    expect(lot).toMatchObject({ statut: 0, code: 'insufficient_credits', erreur: { code: 'insufficient_credits', credits: 3, requis: 4 } });
    expect((lot as Error).message).toBe('This request costs 4 credits (2 images × 2 for ciel); the balance is 3: 1 more needed. Nothing was uploaded.');
    // The catalogue, then the balance: nothing announced, nothing sent.
    expect(appels).toEqual(['GET /api/v1/outils', 'GET /api/v1/solde']);
    // annonce is one job whatever its photos: 3 credits for two, which the balance pays.
    const annonce = await client.lancer({ outil: 'annonce', valeurs: { lieu: 'Gent' }, images: [PHOTO_A, PHOTO_B] });
    expect(annonce.cout_total).toBe(3);
    expect(await client.solde()).toEqual({ credits: 0 });
    const vide = await client.lancer({ outil: 'ciel', images: [PHOTO_A] }).catch((e: unknown) => e);
    expect(vide).toMatchObject({ statut: 0, code: 'insufficient_credits', erreur: { credits: 0, requis: 2 } });
    expect((vide as Error).message).toBe('This request costs 2 credits; the balance is 0: 2 more needed. Nothing was uploaded.');
    // A test key's jobs are free: the same account's balance of 0 starts it.
    const test = new Retouche({ base: pile.urlBase, cle: (await creerCle(pile.deps, compte, { test: true })).cle });
    expect((await test.lancer({ outil: 'ciel', images: [PHOTO_A] })).cout_total).toBe(0);
    await pile.attendreInactivite();
  });

  it('reports the upload per file as well as in total: index among the images, name, bytes sent and in all', async () => {
    const { cle } = await pile.creerCompte(6);
    const client = new Retouche({ base: pile.urlBase, cle, televersementsSimultanes: 1 });
    const [deja] = await client.televerser([PHOTO_A]);
    const octets = await readFile(PHOTO_A);
    const tailleB = statSync(PHOTO_B).size;
    const rapports: { envoye: number; total: number; detail: DetailProgression }[] = [];
    // An upload already made first (not uploaded again), then a path and bytes: images 1 and 2.
    const lancement = await client.lancer(
      { outil: 'ciel', images: [{ televersement: deja!.id }, PHOTO_B, { octets, nom: 'encore.jpg' }] },
      { progression: (envoye, total, detail) => rapports.push({ envoye, total, detail }) },
    );
    expect(lancement.cout_total).toBe(6);
    const total = tailleB + octets.byteLength;
    // The first report, before any byte: every file at 0, none moved.
    expect(rapports[0]).toEqual({
      envoye: 0,
      total,
      detail: {
        fichiers: [
          { index: 1, nom: 'facade-ciel-blanc_polyhaven-cambridge-b.jpg', envoye: 0, total: tailleB },
          { index: 2, nom: 'encore.jpg', envoye: 0, total: octets.byteLength },
        ],
      },
    });
    // Every later report names the file whose bytes moved; the totals are the sum of the files.
    for (const { envoye, total: t, detail } of rapports.slice(1)) {
      expect(detail.fichier).toBeDefined();
      expect(detail.fichiers.find((f) => f.index === detail.fichier!.index)).toEqual(detail.fichier);
      expect(t).toBe(total);
      expect(envoye).toBe(detail.fichiers.reduce((somme, f) => somme + f.envoye, 0));
    }
    const derniers = rapports.at(-1)!;
    expect(derniers.envoye).toBe(total);
    expect(derniers.detail.fichiers.map((f) => [f.index, f.envoye === f.total])).toEqual([
      [1, true],
      [2, true],
    ]);
    // One file at a time here: the first is whole before the second moves.
    const premiereDuSecond = rapports.findIndex((r) => r.detail.fichier?.index === 2);
    expect(rapports[premiereDuSecond]!.detail.fichiers[0]).toMatchObject({ envoye: tailleB, total: tailleB });
    await pile.attendreInactivite();
  });
});

describe('webhooks with the SDK', () => {
  let retouche: Retouche;
  beforeAll(async () => {
    const { cle } = await pile.creerCompte(0);
    retouche = new Retouche({ base: pile.urlBase, cle });
  });

  it('adds a webhook (its secret once), tests it, and verifierWebhook accepts the delivery and refuses a forgery', async () => {
    const w = await retouche.creerWebhook({ url: recepteur.url('/sdk'), evenements: ['travail.fini'] });
    expect(w).toMatchObject({ id: expect.stringMatching(/^wh_[0-9a-f]{24}$/), url: recepteur.url('/sdk'), evenements: ['travail.fini'], etat: 'actif' });
    expect(w.secret).toMatch(/^whsec_/);
    // Read among the account's others (another test adds one), whatever the order.
    const liste = (await retouche.webhooks()).filter((x) => x.id === w.id);
    expect(liste).toEqual([{ id: w.id, url: w.url, evenements: ['travail.fini'], etat: 'actif', cree_le: w.cree_le, test: false }]);

    const test = await retouche.testerWebhook(w.id);
    expect(test).toMatchObject({ id: expect.stringMatching(/^msg_/), webhook: w.id, type: 'webhook.test', statut: 'en_attente', travail: null, lot: null });
    const recu = await attendreQue('the test event', () => recepteur.recus.find((r) => r.chemin === '/sdk'));
    expect(recu.entetes['webhook-id']).toBe(test.id);

    // The raw bytes and Node's headers, as a receiver has them; the same as a string with a fetch Headers.
    const evenement = verifierWebhook(w.secret, recu.octets, recu.entetes);
    expect(evenement).toMatchObject({ type: 'webhook.test', timestamp: expect.any(String), data: { webhook: w.id } });
    const entetes = new Headers(Object.entries(recu.entetes).map(([nom, valeur]) => [nom, String(valeur)] as [string, string]));
    expect(verifierWebhook(w.secret, recu.corps, entetes)).toEqual(evenement);

    // Another secret, a body changed, headers missing: the library's error.
    const autre = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
    expect(() => verifierWebhook(autre, recu.octets, recu.entetes)).toThrow(WebhookVerificationError);
    const falsifie = recu.corps.replace('webhook.test', 'travail.fini');
    expect(() => verifierWebhook(w.secret, falsifie, recu.entetes)).toThrow(WebhookVerificationError);
    expect(() => verifierWebhook(w.secret, recu.octets, { 'webhook-id': test.id })).toThrow(WebhookVerificationError);

    const [livraison] = await attendreQue('the delivery logged', async () => {
      const l = await retouche.livraisons(w.id);
      return l[0]?.statut === 'reussie' && l;
    });
    expect(livraison).toMatchObject({
      id: test.id,
      type: 'webhook.test',
      statut: 'reussie',
      tentatives: 1,
      derniere_tentative: { statut_http: 200, erreur: null },
    });
    // Delivered: not sent again.
    await expect(retouche.renvoyerLivraison(w.id, test.id)).rejects.toMatchObject({ statut: 409, code: 'delivery_not_failed' });
  });

  it('a body signed with the secret verifies, typed as the document says; an old timestamp does not', () => {
    const secret = `whsec_${Buffer.alloc(24, 3).toString('base64')}`;
    const corps = JSON.stringify({ type: 'lot.fini', timestamp: new Date().toISOString(), data: { id: 'x' } });
    const signe = (date: Date) => ({
      'webhook-id': 'msg_test',
      'webhook-timestamp': String(Math.floor(date.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign('msg_test', date, corps),
    });
    const evenement = verifierWebhook(secret, Buffer.from(corps), signe(new Date()));
    const type: 'travail.fini' | 'lot.fini' | 'webhook.test' = evenement.type;
    expect(type).toBe('lot.fini');
    expect(() => verifierWebhook(secret, corps, signe(new Date(Date.now() - 10 * 60_000)))).toThrow(/too old/);
  });

  it('rotates the secret: the new and the previous one both verify a delivery for a day', async () => {
    const w = await retouche.creerWebhook({ url: recepteur.url('/rotation'), evenements: ['lot.fini'] });
    const tourne = await retouche.tournerSecretWebhook(w.id);
    expect(tourne).toMatchObject({ id: w.id, secret: expect.stringMatching(/^whsec_/) });
    expect(tourne.secret).not.toBe(w.secret);
    await retouche.testerWebhook(w.id);
    const recu = await attendreQue('the test event', () => recepteur.recus.find((r) => r.chemin === '/rotation'));
    expect(verifierWebhook(tourne.secret, recu.octets, recu.entetes).type).toBe('webhook.test');
    expect(verifierWebhook(w.secret, recu.octets, recu.entetes).type).toBe('webhook.test');
    expect(JSON.stringify(await retouche.webhooks())).not.toContain('whsec_');
  });

  it('a delivery that failed every attempt is resent by renvoyerLivraison, then removed with its webhook', async () => {
    recepteur.reponses.set('/panne', [503]);
    const w = await retouche.creerWebhook({ url: recepteur.url('/panne'), evenements: ['travail.fini', 'lot.fini'] });
    const test = await retouche.testerWebhook(w.id);
    const echouee = await attendreQue('the delivery en_echec', async () => (await retouche.livraisons(w.id)).find((l) => l.statut === 'en_echec'));
    expect(echouee).toMatchObject({ id: test.id, tentatives: 3, derniere_tentative: { statut_http: 503 } });
    expect((await retouche.webhooks()).find((x) => x.id === w.id)?.etat).toBe('en_echec');

    recepteur.reponses.set('/panne', [204]);
    const renvoi: Livraison = await retouche.renvoyerLivraison(w.id, test.id);
    expect(renvoi).toMatchObject({ id: test.id, statut: 'en_attente', tentatives: 0 });
    await attendreQue('the resend delivered', async () => (await retouche.livraisons(w.id))[0]?.statut === 'reussie');
    const derniere = recepteur.recus.filter((r) => r.chemin === '/panne').at(-1)!;
    expect(derniere.entetes['webhook-id']).toBe(test.id);
    expect(verifierWebhook(w.secret, derniere.octets, derniere.entetes).type).toBe('webhook.test');

    await retouche.supprimerWebhook(w.id);
    expect((await retouche.webhooks()).map((x) => x.id)).not.toContain(w.id);
    await expect(retouche.supprimerWebhook(w.id)).rejects.toMatchObject({ statut: 404, code: 'not_found' });
    await expect(retouche.livraisons(w.id)).rejects.toMatchObject({ statut: 404, code: 'not_found' });
  });

  it('refuses an endpoint that is not https with the API error, typed', async () => {
    const erreur = await retouche.creerWebhook({ url: 'http://example.com/h', evenements: ['lot.fini'] }).catch((e: unknown) => e);
    expect(erreur).toBeInstanceOf(ErreurRetouche);
    expect(erreur).toMatchObject({ statut: 400, code: 'invalid_body', details: [{ chemin: 'url' }] });
  });

  it('does not retry what must not be done twice (adding, rotating) after a 5xx; a DELETE whose answer is lost is done once', async () => {
    const { cle } = await pile.creerCompte(0);
    const appels: string[] = [];
    let panne: 'aucune' | 'reponse-502' | 'reponse-perdue' = 'aucune';
    const capricieuse: Fetch = async (entree, init) => {
      appels.push(`${init?.method ?? 'GET'} ${new URL(urlDe(entree)).pathname.replace('/api/v1', '')}`);
      if (panne === 'reponse-502') {
        // The API did it, and a gateway lost its answer: a 502 for the client.
        await (await fetch(entree, init)).arrayBuffer();
        return new Response(JSON.stringify({ error: { code: 'internal_error', message: 'injected' } }), { status: 502 });
      }
      const reponse = await fetch(entree, init);
      if (panne === 'reponse-perdue') {
        panne = 'aucune';
        await reponse.arrayBuffer();
        throw new TypeError('fetch failed', { cause: new Error('other side closed (injected by the test)') });
      }
      return reponse;
    };
    const client = new Retouche({ base: pile.urlBase, cle, fetch: capricieuse, delaiInitialMs: 5 });

    panne = 'reponse-502';
    await expect(client.creerWebhook({ url: 'https://example.com/h', evenements: ['lot.fini'] })).rejects.toMatchObject({ statut: 502 });
    expect(appels).toEqual(['POST /webhooks']);
    panne = 'aucune';
    // One endpoint, not two (nothing is delivered to example.com: no event happens).
    const [w] = await client.webhooks();
    expect(await client.webhooks()).toHaveLength(1);

    appels.length = 0;
    panne = 'reponse-502';
    await expect(client.tournerSecretWebhook(w!.id)).rejects.toMatchObject({ statut: 502 });
    expect(appels).toEqual([`POST /webhooks/${w!.id}/secret`]);
    // A read is retried as ever.
    appels.length = 0;
    await expect(client.livraisons(w!.id)).rejects.toMatchObject({ statut: 502 });
    expect(appels).toHaveLength(5);

    // Removed by the first attempt, whose answer was lost: the retry's 404 is that same outcome.
    appels.length = 0;
    panne = 'reponse-perdue';
    await client.supprimerWebhook(w!.id);
    expect(appels).toEqual([`DELETE /webhooks/${w!.id}`, `DELETE /webhooks/${w!.id}`]);
    expect(await client.webhooks()).toEqual([]);
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

/** A lockfile for an application that depends on the SDK's tarball: its dependencies' entries, taken from the project's lockfile. */
const verrouAppli = (paquet: string) => {
  const projet = (
    JSON.parse(readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8')) as {
      packages: Record<string, { dependencies?: Record<string, string> }>;
    }
  ).packages;
  const sdk = JSON.parse(readFileSync(join(DOSSIER_SDK, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string> };
  const paquets: Record<string, unknown> = {
    '': { name: 'appli', version: '1.0.0', dependencies: { '@retouche/sdk': paquet } },
    'node_modules/@retouche/sdk': { version: sdk.version, resolved: paquet, dependencies: sdk.dependencies },
  };
  const aVoir = Object.keys(sdk.dependencies);
  for (let nom = aVoir.pop(); nom !== undefined; nom = aVoir.pop()) {
    const entree = projet[`node_modules/${nom}`];
    if (!entree || paquets[`node_modules/${nom}`]) continue;
    paquets[`node_modules/${nom}`] = entree;
    aVoir.push(...Object.keys(entree.dependencies ?? {}));
  }
  return { name: 'appli', version: '1.0.0', lockfileVersion: 3, requires: true, packages: paquets };
};

describe('the package', () => {
  /** npm's own variables of a run under `npm test` would point the child npm at this project. */
  const env = Object.fromEntries(Object.entries(process.env).filter(([nom]) => !/^npm_/i.test(nom)));

  it('is packed by npm pack, installs offline outside the repository, and is imported by a .mjs script', async () => {
    const dehors = mkdtempSync(join(tmpdir(), 'retouche-sdk-paquet-'));
    try {
      // prepack builds dist/ first.
      await executer('npm', ['pack', '--pack-destination', dehors], { cwd: DOSSIER_SDK, env });
      const archive = readdirSync(dehors).find((f) => f.endsWith('.tgz'));
      expect(archive).toBe('retouche-sdk-1.3.0.tgz');
      const { stdout: contenu } = await executer('tar', ['-tzf', join(dehors, archive!)]);
      const fichiers = contenu.trim().split('\n');
      expect(fichiers).toEqual(expect.arrayContaining(['package/package.json', 'package/README.md', 'package/dist/index.js', 'package/dist/index.d.ts']));
      expect(fichiers.filter((f) => !f.startsWith('package/dist/') && !['package/package.json', 'package/README.md'].includes(f))).toEqual([]);

      const appli = join(dehors, 'appli');
      mkdirSync(appli);
      const paquet = `file:../${archive!}`;
      writeFileSync(
        join(appli, 'package.json'),
        JSON.stringify({ name: 'appli', version: '1.0.0', private: true, type: 'module', dependencies: { '@retouche/sdk': paquet } }),
      );
      // Installed offline: its dependency (standardwebhooks, and what it needs) is in npm's cache as tarballs since
      // the project's own `npm ci`, but npm's metadata of those packages may not be (`npm ci` never fetches it), so
      // the application's lockfile names the versions the project's lockfile pinned, as a customer's would.
      writeFileSync(join(appli, 'package-lock.json'), JSON.stringify(verrouAppli(paquet)));
      await executer('npm', ['ci', '--offline', '--no-audit', '--no-fund'], { cwd: appli, env });
      const { cle } = await pile.creerCompte(7);
      writeFileSync(
        join(appli, 'essai.mjs'),
        [
          "import { ErreurRetouche, Retouche, verifierWebhook, WebhookVerificationError } from '@retouche/sdk';",
          "import { Webhook } from 'standardwebhooks';",
          'const retouche = new Retouche({ base: process.env.RETOUCHE_BASE, cle: process.env.RETOUCHE_CLE });',
          'const solde = await retouche.solde();',
          "const refus = await new Retouche({ base: process.env.RETOUCHE_BASE, cle: 'rtch_inconnue' }).solde().catch((e) => e);",
          "const { secret } = await retouche.creerWebhook({ url: 'https://example.com/h', evenements: ['lot.fini'] });",
          "const corps = JSON.stringify({ type: 'webhook.test', timestamp: new Date().toISOString(), data: { webhook: 'wh_x', message: 'test' } });",
          "const entetes = { 'webhook-id': 'msg_a', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': new Webhook(secret).sign('msg_a', new Date(), corps) };",
          'const evenement = verifierWebhook(secret, corps, entetes);',
          "const faux = (() => { try { verifierWebhook(secret, corps + ' ', entetes); } catch (e) { return e instanceof WebhookVerificationError; } })();",
          'console.log(JSON.stringify({ solde, refus: refus instanceof ErreurRetouche ? refus.code : String(refus), webhook: evenement.type, faux }));',
          '',
        ].join('\n'),
      );
      const { stdout } = await executer(process.execPath, ['essai.mjs'], { cwd: appli, env: { ...env, RETOUCHE_BASE: pile.urlBase, RETOUCHE_CLE: cle } });
      expect(JSON.parse(stdout)).toEqual({ solde: { credits: 7 }, refus: 'unauthorized', webhook: 'webhook.test', faux: true });

      // Its declarations, as a TypeScript project that installed it reads them (NodeNext, strict).
      writeFileSync(
        join(appli, 'consommateur.ts'),
        [
          "import { ErreurRetouche, Retouche, verifierWebhook, type DemandeLancement, type Travail, type WebhookAvecSecret } from '@retouche/sdk';",
          "const retouche = new Retouche({ base: 'http://localhost:3000/api/v1', cle: 'rtch_cle' });",
          "export const lancer = () => retouche.lancer({ outil: 'staging', valeurs: { style: 'japandi' }, images: ['salon.jpg', new Uint8Array(0)] });",
          'export const statut = async (id: string): Promise<Travail["statut"]> => (await retouche.attendreTravail(id)).statut;',
          'export const code = (e: unknown): string | null => (e instanceof ErreurRetouche ? e.code : null);',
          '// @ts-expect-error: a style staging does not have',
          "export const faux: DemandeLancement = { outil: 'staging', valeurs: { style: 'baroque' }, images: [] };",
          "export const ajouter = (): Promise<WebhookAvecSecret> => retouche.creerWebhook({ url: 'https://example.com/h', evenements: ['travail.fini'] });",
          'export const secret = async (id: string): Promise<string> => (await retouche.tournerSecretWebhook(id)).secret;',
          "export const type = (corps: string, entetes: Record<string, string>): 'travail.fini' | 'lot.fini' | 'webhook.test' => verifierWebhook('whsec_x', corps, entetes).type;",
          '// @ts-expect-error: an event webhooks do not receive',
          "export const mauvais = () => retouche.creerWebhook({ url: 'https://example.com/h', evenements: ['travail.termine'] });",
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
