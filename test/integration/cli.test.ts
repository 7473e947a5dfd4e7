/**
 * The `retouche` command (clients/cli) run as a user runs it: its bin as a child process, against the
 * local stack, checking what matters to a script: the files written, the JSON on stdout and nothing
 * else there, and the exit status (0 all done, 1 a job failed and was refunded, 2 bad usage or an API
 * error, 130 after a Ctrl-C that `suivre` then picks up). And `retouche webhooks`: an endpoint on
 * 127.0.0.1 added (its secret printed once), listed, tested (the delivery verified with that secret),
 * its log read, its secret rotated, removed.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifierWebhook, type Lot, type Travail, type Webhook } from '../../clients/sdk/src/index';
import { ErreurTravail } from '../../lambdas/core/modele/erreurs';
import { creerTelechargeur } from '../../lambdas/core/infra/telechargement';
import { photoGrande } from '../support/photo';
import { demarrerPileTest } from '../support/pile';
import { demarrerRecepteur, type Recepteur } from '../support/recepteur';

type Pile = Awaited<ReturnType<typeof demarrerPileTest>>;
const telechargeurReel = creerTelechargeur();

const RACINE = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(RACINE, 'clients/cli/bin/retouche.mjs');
const PHOTO_A = join(RACINE, 'test/photos/facade-ciel-blanc_polyhaven-cambridge-a.jpg');
const PHOTO_B = join(RACINE, 'test/photos/facade-ciel-blanc_polyhaven-cambridge-b.jpg');
/** Each job takes this long in the engine: long enough for a Ctrl-C to land while the command waits. */
const DELAI_MOTEUR_MS = 2_500;

let pile: Pile;
let dossier: string;
let cle: string;
/** A webhook receiver on 127.0.0.1 (test/support/recepteur.ts). */
let recepteur: Recepteur;

beforeAll(async () => {
  recepteur = await demarrerRecepteur();
  recepteur.reponses.set('/cli', [204]);
  pile = await demarrerPileTest({
    delaiMoteurMs: DELAI_MOTEUR_MS,
    // Webhook deliveries to the receiver on 127.0.0.1, as only tests allow.
    webhooks: { boucleLocale: true },
    // An https host of photos as the service fetches it (the SSRF guard refuses 127.0.0.1): one photo, and a 404.
    telecharger: async (url) => {
      const lien = new URL(url);
      if (lien.hostname !== 'photos.exemple.test') return telechargeurReel(url);
      if (lien.pathname.endsWith('/absente.jpg')) throw new ErreurTravail('telechargement_echoue', 'The image URL answered HTTP 404.');
      return readFileSync(PHOTO_B);
    },
  });
  dossier = mkdtempSync(join(tmpdir(), 'retouche-cli-'));
  ({ cle } = await pile.creerCompte(100));
});
afterAll(async () => {
  await pile?.arreter();
  await recepteur?.arreter();
  if (dossier) rmSync(dossier, { recursive: true, force: true });
});

interface Resultat {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The bin, as `npx retouche` runs it, with the settings from the environment, from another folder than the root. */
const retouche = (args: string[], avec = cle): Promise<Resultat> =>
  new Promise((resoudre) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: dossier, env: { ...process.env, RETOUCHE_API: pile.urlBase, RETOUCHE_CLE: avec }, timeout: 100_000 },
      (erreur, stdout, stderr) => resoudre({ code: erreur ? (typeof erreur.code === 'number' ? erreur.code : null) : 0, stdout, stderr }),
    );
  });

const sortie = (nom: string) => mkdtempSync(join(dossier, `${nom}-`));
const format = async (chemin: string) => (await sharp(readFileSync(chemin)).metadata()).format;

describe('retouche, the command', () => {
  it('solde --json prints the balance alone on stdout', async () => {
    // An account of its own: the file's shared one has spent some by now if this test runs late.
    const { cle: neuve } = await pile.creerCompte(7);
    const { code, stdout } = await retouche(['solde', '--json'], neuve);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ credits: 7 });
  });

  it('lancer ciel --attendre writes the result named after the photo and prints the ended job', async () => {
    const vers = sortie('ciel');
    const { code, stdout, stderr } = await retouche(['lancer', 'ciel', PHOTO_A, '--attendre', '--sortie', vers, '--json']);
    expect(code, stderr).toBe(0);
    const travail = JSON.parse(stdout) as Travail;
    expect(travail).toMatchObject({ outil: 'ciel', statut: 'termine', apercu: true });
    expect(readdirSync(vers)).toEqual(['facade-ciel-blanc_polyhaven-cambridge-a-ciel.jpg']);
    // A preview says so beside its file (issue 39).
    expect(stderr).toMatch(/Saved .*facade-ciel-blanc_polyhaven-cambridge-a-ciel\.jpg \(preview engine, no trained model: marked "Preview"\)/);
    expect(await format(join(vers, 'facade-ciel-blanc_polyhaven-cambridge-a-ciel.jpg'))).toBe('jpeg');
    expect(stderr).toContain('Uploading');
    expect(stderr).toContain(`Job ${travail.id}: termine`);
  });

  it('a photo of 15 MB (6300 × 4200, 14.4 MiB, just under the 15 MiB limit) goes up with its progress and comes back whole', async () => {
    const photo = join(dossier, 'maison.jpg');
    writeFileSync(photo, await photoGrande({ largeur: 6300, hauteur: 4200 }));
    const octets = statSync(photo).size;
    expect(octets).toBeGreaterThan(14 * 1024 * 1024);
    expect(octets).toBeLessThanOrEqual(15 * 1024 * 1024);
    const vers = sortie('grande');
    const { code, stdout, stderr } = await retouche(['lancer', 'ciel', photo, '--attendre', '--sortie', vers, '--json']);
    expect(code, stderr).toBe(0);
    expect(stderr).toContain(`Uploading ${(octets / 1_048_576).toFixed(1)} MB…`);
    expect(stderr).toContain(`Uploaded ${(octets / 1_048_576).toFixed(1)} MB.`);
    expect(JSON.parse(stdout)).toMatchObject({ statut: 'termine', nom: 'maison.jpg' });
    expect(await sharp(readFileSync(join(vers, 'maison-ciel.jpg'))).metadata()).toMatchObject({ format: 'jpeg', width: 6300, height: 4200 });
  }, 120_000);

  it('a batch of two writes two files, one per photo', async () => {
    const vers = sortie('lot');
    const { code, stdout, stderr } = await retouche(['lancer', 'ciel', PHOTO_A, PHOTO_B, '--attendre', '--sortie', vers, '--json']);
    expect(code, stderr).toBe(0);
    expect(JSON.parse(stdout) as Lot).toMatchObject({ statut: 'termine', total: 2, termines: 2, echecs: 0 });
    expect(readdirSync(vers).sort()).toEqual(['facade-ciel-blanc_polyhaven-cambridge-a-ciel.jpg', 'facade-ciel-blanc_polyhaven-cambridge-b-ciel.jpg']);
    expect(stderr).toMatch(/Batch .*: termine, 2 done, 0 failed/);
    // The upload per file as well as in total (issue 41, point 6e).
    expect(stderr).toMatch(/Uploading [\d.]+ MB in 2 files…/);
    expect(stderr).toMatch(/ {2}facade-ciel-blanc_polyhaven-cambridge-a\.jpg: [\d.]+ MB up \([12]\/2\)/);
    expect(stderr).toMatch(/ {2}facade-ciel-blanc_polyhaven-cambridge-b\.jpg: [\d.]+ MB up \([12]\/2\)/);
  });

  it('an annonce with its settings writes a Markdown file with the text', async () => {
    const vers = sortie('annonce');
    const { code, stderr } = await retouche(['lancer', 'annonce', '--reglage', 'lieu=Gent', '--reglage', 'langue=French', '--attendre', '--sortie', vers]);
    expect(code, stderr).toBe(0);
    expect(readdirSync(vers)).toEqual(['annonce.md']);
    expect(readFileSync(join(vers, 'annonce.md'), 'utf8')).toContain('Gent');
  });

  it('lancer fusion a.jpg b.jpg c.jpg: one job for the three exposures, one photo written, not a preview', async () => {
    const expositions = await Promise.all(
      [0.25, 1, 4].map(async (gain, i) => {
        const chemin = join(dossier, `salon-${i + 1}.jpg`);
        writeFileSync(chemin, await sharp(readFileSync(PHOTO_A)).resize({ width: 480 }).linear(gain, 0).jpeg().toBuffer());
        return chemin;
      }),
    );
    const vers = sortie('fusion');
    const { code, stdout, stderr } = await retouche(['lancer', 'fusion', ...expositions, '--attendre', '--sortie', vers, '--json']);
    expect(code, stderr).toBe(0);
    expect(JSON.parse(stdout) as Travail).toMatchObject({ outil: 'fusion', statut: 'termine', apercu: false, cout: 2, nom: 'salon-1.jpg' });
    expect(readdirSync(vers)).toEqual(['salon-1-fusion.jpg']);
    expect(stderr).not.toContain('preview engine');
  });

  it('takes https URLs beside files: each result named after its URL or file', async () => {
    const vers = sortie('url');
    const { code, stderr } = await retouche(['lancer', 'ciel', 'https://photos.exemple.test/maisons/rue%20haute.jpg', PHOTO_A, '--attendre', '--sortie', vers]);
    expect(code, stderr).toBe(0);
    expect(readdirSync(vers).sort()).toEqual(['facade-ciel-blanc_polyhaven-cambridge-a-ciel.jpg', 'rue haute-ciel.jpg']);
    expect(await format(join(vers, 'rue haute-ciel.jpg'))).toBe('jpeg');
  });

  it('a batch where one photo fails (partiel) writes the others, names the failure and its refund, and exits 1', async () => {
    const vers = sortie('partiel');
    const { code, stdout, stderr } = await retouche([
      'lancer',
      'ciel',
      PHOTO_A,
      'https://photos.exemple.test/absente.jpg',
      '--attendre',
      '--sortie',
      vers,
      '--json',
    ]);
    expect(code, stderr).toBe(1);
    const lot = JSON.parse(stdout) as Lot;
    expect(lot).toMatchObject({ statut: 'partiel', termines: 1, echecs: 1 });
    expect(readdirSync(vers)).toEqual(['facade-ciel-blanc_polyhaven-cambridge-a-ciel.jpg']);
    expect(stderr).toMatch(/failed: telechargement_echoue: The image URL answered HTTP 404\. Its 2 credits were refunded\./);
  });

  it('a job that fails exits 1, with its error and its refund', async () => {
    // vider on a plain sky has nothing to remove: echec rien_a_retirer, refunded (as in api.test.ts).
    const ciel = join(dossier, 'ciel-seul.jpg');
    writeFileSync(
      ciel,
      await sharp({ create: { width: 160, height: 120, channels: 3, background: { r: 120, g: 170, b: 230 } } })
        .jpeg()
        .toBuffer(),
    );
    const vers = sortie('echec');
    const { code, stdout, stderr } = await retouche(['lancer', 'vider', ciel, '--attendre', '--sortie', vers, '--json']);
    expect(code, stderr).toBe(1);
    expect(JSON.parse(stdout)).toMatchObject({ statut: 'echec', rembourse: true });
    expect(stderr).toContain('rien_a_retirer');
    expect(stderr).toContain('credits were refunded');
    expect(readdirSync(vers)).toEqual([]);
  });

  it('a tool that does not exist exits 2 with the API error code, and nothing on stdout', async () => {
    const { code, stdout, stderr } = await retouche(['lancer', 'peinture', PHOTO_A, '--json']);
    expect(code).toBe(2);
    expect(stderr).toContain('invalid_tool');
    expect(stdout).toBe('');
  });

  it('too few credits for the photos exits 2 before uploading anything, saying what is needed and what there is', async () => {
    const { cle: pauvre } = await pile.creerCompte(3);
    const { code, stdout, stderr } = await retouche(['lancer', 'ciel', PHOTO_A, PHOTO_B, '--attendre', '--json'], pauvre);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain(
      'Error insufficient_credits: This request costs 4 credits (2 images × 2 for ciel); the balance is 3: 1 more needed. Nothing was uploaded.',
    );
    expect(stderr).not.toContain('Uploading');
    // Nothing started, nothing charged.
    expect(JSON.parse((await retouche(['solde', '--json'], pauvre)).stdout)).toEqual({ credits: 3 });
  });

  it('bad usage exits 2', async () => {
    expect((await retouche(['lancer'])).code).toBe(2);
    expect((await retouche(['travaux', '--limite', 'beaucoup'])).code).toBe(2);
  });

  it('a Ctrl-C during the wait exits at once naming `retouche suivre <id>`, which then gets the result', async () => {
    const vers = sortie('suivre');
    const enfant = spawn(process.execPath, [BIN, 'lancer', 'ciel', PHOTO_A, '--attendre', '--sortie', vers], {
      cwd: dossier,
      env: { ...process.env, RETOUCHE_API: pile.urlBase, RETOUCHE_CLE: cle },
    });
    let stderr = '';
    const id = await new Promise<string>((resoudre, rejeter) => {
      enfant.stderr.on('data', (morceau: Buffer) => {
        stderr += morceau.toString();
        const trouve = /Job ([\da-f-]{36}): (en_attente|en_cours)/.exec(stderr);
        if (trouve) resoudre(trouve[1]!);
      });
      enfant.on('exit', () => rejeter(new Error(`ended before the wait:\n${stderr}`)));
    });
    const debut = Date.now();
    enfant.kill('SIGINT');
    const code = await new Promise<number | null>((resoudre) => enfant.on('exit', (c) => resoudre(c)));
    expect(Date.now() - debut).toBeLessThan(DELAI_MOTEUR_MS);
    expect(code).toBe(130);
    expect(stderr).toContain(`retouche suivre ${id}`);
    expect(readdirSync(vers)).toEqual([]);

    const suite = await retouche(['suivre', id, '--sortie', vers, '--json']);
    expect(suite.code, suite.stderr).toBe(0);
    expect(JSON.parse(suite.stdout)).toMatchObject({ id, statut: 'termine' });
    expect(readdirSync(vers)).toEqual(['facade-ciel-blanc_polyhaven-cambridge-a-ciel.jpg']);
  });
});

describe('retouche webhooks', () => {
  let cleWebhooks: string;
  beforeAll(async () => {
    // An account of its own: what it lists is what these tests added.
    ({ cle: cleWebhooks } = await pile.creerCompte(0));
  });
  const webhooks = (args: string[]) => retouche(['webhooks', ...args], cleWebhooks);

  it('ajouter prints the secret once with its warning; the list shows the webhook, never its secret; tester delivers what the secret verifies', async () => {
    const ajout = await webhooks(['ajouter', recepteur.url('/cli'), '--evenements', 'travail.fini']);
    expect(ajout.code, ajout.stderr).toBe(0);
    const id = /^webhook +(wh_[0-9a-f]{24})$/m.exec(ajout.stdout)?.[1];
    const secret = /^secret +(whsec_\S+)$/m.exec(ajout.stdout)?.[1];
    expect(id).toBeDefined();
    expect(secret).toBeDefined();
    expect(ajout.stderr).toContain('will not be shown again');
    expect(ajout.stderr).toContain(`retouche webhooks secret ${id}`);

    const liste = await webhooks([]);
    expect(liste.code, liste.stderr).toBe(0);
    expect(liste.stdout.trim().split('\n')).toEqual([expect.stringMatching(new RegExp(`^${id}  actif +travail\\.fini +${recepteur.url('/cli')}$`))]);
    const enJson = await webhooks(['lister', '--json']);
    expect((JSON.parse(enJson.stdout) as { webhooks: Webhook[] }).webhooks).toEqual([
      expect.objectContaining({ id, evenements: ['travail.fini'], etat: 'actif' }),
    ]);
    expect(enJson.stdout).not.toContain('whsec_');

    const test = await webhooks(['tester', id!]);
    expect(test.code, test.stderr).toBe(0);
    const livraison = test.stdout.trim();
    expect(livraison).toMatch(/^msg_[a-z2-7]{26}$/);
    expect(test.stderr).toContain(`retouche webhooks livraisons ${id}`);
    const fin = Date.now() + 20_000;
    while (recepteur.de('/cli').length === 0 && Date.now() < fin) await new Promise((r) => setTimeout(r, 50));
    const recu = recepteur.de('/cli')[0]!;
    expect(recu.entetes['webhook-id']).toBe(livraison);
    expect(verifierWebhook(secret!, recu.octets, recu.entetes)).toMatchObject({ type: 'webhook.test', data: { webhook: id } });

    let journal = await webhooks(['livraisons', id!]);
    while (!journal.stdout.includes('reussie') && Date.now() < fin) journal = await webhooks(['livraisons', id!]);
    expect(journal.code, journal.stderr).toBe(0);
    expect(journal.stdout).toMatch(new RegExp(`^${livraison}  webhook\\.test +reussie +\\S+  1 attempt, HTTP 204$`, 'm'));
    // Delivered: not sent again; the API's error, exit 2.
    const renvoi = await webhooks(['renvoyer', id!, livraison]);
    expect(renvoi.code).toBe(2);
    expect(renvoi.stderr).toContain('delivery_not_failed');
  });

  it('secret rotates it (the new secret printed once, --json too); supprimer removes it; an unknown one exits 2', async () => {
    const ajout = await webhooks(['ajouter', 'https://example.com/retouche', '--json']);
    expect(ajout.code, ajout.stderr).toBe(0);
    const w = JSON.parse(ajout.stdout) as Webhook & { secret: string };
    expect(w).toMatchObject({ id: expect.stringMatching(/^wh_/), evenements: ['travail.fini', 'lot.fini'], secret: expect.stringMatching(/^whsec_/) });
    expect(ajout.stderr).toContain('will not be shown again');

    const rotation = await webhooks(['secret', w.id]);
    expect(rotation.code, rotation.stderr).toBe(0);
    const nouveau = /^secret +(whsec_\S+)$/m.exec(rotation.stdout)?.[1];
    expect(nouveau).toMatch(/^whsec_/);
    expect(nouveau).not.toBe(w.secret);
    expect(rotation.stderr).toContain('24 hours');
    expect(rotation.stderr).toContain('will not be shown again');

    const suppression = await webhooks(['supprimer', w.id]);
    expect(suppression.code, suppression.stderr).toBe(0);
    expect(suppression.stdout).toBe('');
    expect((await webhooks([])).stdout).not.toContain(w.id);
    const encore = await webhooks(['supprimer', w.id]);
    expect(encore.code).toBe(2);
    expect(encore.stderr).toContain('not_found');
    expect((await webhooks(['livraisons', w.id])).code).toBe(2);
  });

  it('an endpoint the API refuses, or bad usage, exits 2 with nothing on stdout', async () => {
    const http = await webhooks(['ajouter', 'http://example.com/h', '--json']);
    expect(http.code).toBe(2);
    expect(http.stderr).toContain('invalid_body');
    expect(http.stderr).toContain('url must use https');
    expect(http.stdout).toBe('');
    const evenement = await webhooks(['ajouter', 'https://example.com/h', '--evenements', 'travail.termine']);
    expect(evenement.code).toBe(2);
    expect(evenement.stderr).toContain('invalid_body');
    expect((await webhooks(['ajouter'])).code).toBe(2);
    expect((await webhooks(['ajouter', 'https://example.com/h', '--evenements', ','])).code).toBe(2);
    expect((await webhooks(['renvoyer', 'wh_0'])).code).toBe(2);
  });

  it('an account without webhooks lists none, and says how to add one', async () => {
    const { cle: vide } = await pile.creerCompte(0);
    const liste = await retouche(['webhooks'], vide);
    expect(liste.code).toBe(0);
    expect(liste.stdout).toBe('');
    expect(liste.stderr).toContain('retouche webhooks ajouter');
  });
});
