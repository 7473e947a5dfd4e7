/**
 * `fusion` in the studio as a photographer uses it, in Chromium against `npm start`, on the French site at a phone's
 * width: six JPEGs dropped on the page (two views, each bracketed −2, 0, +2 EV a fraction of a second apart, the
 * second view 40 s later, dropped out of order), their EXIF written as a camera writes it. The studio shows two
 * brackets of three, in capture order, each photo with its exposure; a photo moved to the other bracket by hand and
 * back; one click starts one job per bracket (each POST /travaux with its three photos, each its own key), and each
 * result shows against its bracket's metered frame. On the way: no English on the French page, axe-core, nothing
 * past the phone's width, not one Content Security Policy violation. It takes docs/site/studio-fusion-telephone.png
 * and studio-fusion.png.
 *
 * `npm run test:site`. CHROMIUM names another browser binary.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HTTPRequest, Page } from 'puppeteer-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilite as accessibiliteDe, CAPTURES, demarrerService, RACINE, type Service } from '../support/navigateur';

const PHOTOS = join(RACINE, 'test', 'photos');
const MOT_DE_PASSE = 'Motdepasse1';
const CREDITS = 10;

let service: Service;
let page: Page;
let origine: string;
/** Every POST /travaux the page sends: its Idempotency-Key and body. */
const lancements: { cle?: string; corps: { outil: string; images?: unknown[] } }[] = [];

/**
 * One frame of a bracket: the view's photo made darker or brighter by `ev` stops (on its encoded values, as a
 * camera's JPEG roughly is), with the EXIF a camera writes: when, to the hundredth, and at what exposure. In JPEG,
 * or PNG or WebP as an editor exports them (each keeps its EXIF elsewhere: exif.ts).
 */
const cliche = async (vue: string, ev: number, prise: string, centiemes: number, format: 'jpeg' | 'png' | 'webp') =>
  sharp(join(PHOTOS, vue))
    .resize({ width: 800 })
    .linear(2 ** (ev / 2.2), 0)
    .toFormat(format, { quality: 85 })
    .withExif({
      IFD0: { Make: 'Retouche', Model: 'Test bracket' },
      IFD2: {
        DateTimeOriginal: prise,
        SubSecTimeOriginal: String(centiemes).padStart(2, '0'),
        ExposureBiasValue: `${ev}/1`,
        ExposureTime: `1/${Math.round(60 / 2 ** ev)}`,
        FNumber: '8/1',
        ISOSpeedRatings: '100',
      },
    })
    .toBuffer();

/** Two views bracketed −2, 0, +2 EV (the order a camera shoots: 0 first), 40 s apart; the kitchen's in JPEG, PNG and WebP. */
const cliches = async () => {
  const serie = (vue: string, prefixe: string, seconde: string, formats: readonly ('jpeg' | 'png' | 'webp')[]) =>
    Promise.all(
      [0, -2, 2].map(async (ev, i) => ({
        nom: `${prefixe}-${i + 1}.${formats[i] === 'jpeg' ? 'jpg' : formats[i]}`,
        octets: await cliche(vue, ev, `2025:05:12 10:00:${seconde}`, i * 30, formats[i]!),
      })),
    );
  const [salon, cuisine] = await Promise.all([
    serie('sejour_polyhaven-fireplace-a.jpg', 'salon', '00', ['jpeg', 'jpeg', 'jpeg']),
    serie('cuisine_coco030213.jpg', 'cuisine', '40', ['jpeg', 'png', 'webp']),
  ]);
  // Dropped out of order: the kitchen first, the living room's frames shuffled.
  return [...cuisine, salon[2]!, salon[0]!, salon[1]!];
};

beforeAll(async () => {
  service = await demarrerService({ prefixe: 'retouche-fusion-', langue: 'fr-FR' });
  ({ page, origine } = service);
  page.on('request', (r: HTTPRequest) => {
    if (r.method() === 'POST' && r.url().endsWith('/api/v1/travaux')) {
      lancements.push({ cle: r.headers()['idempotency-key'], corps: JSON.parse(r.postData() ?? '{}') as (typeof lancements)[number]['corps'] });
    }
  });
  await page.setViewport({ width: 390, height: 844 });
}, 180_000);

afterAll(async () => service?.arreter());

const accessibilite = () => accessibiliteDe(page);
const texte = () => page.evaluate('document.body.innerText') as Promise<string>;
const contient = (morceau: string, ms = 30_000) => page.waitForFunction(`document.body.innerText.includes(${JSON.stringify(morceau)})`, { timeout: ms });
const debordement = () => page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth') as Promise<number>;
/** The brackets as shown: each its photos' names, in order. (Page code as text: the tests compile without the DOM's types.) */
const crochets = () =>
  page.evaluate("[...document.querySelectorAll('.crochet')].map((c) => [...c.querySelectorAll('.nom-tuile')].map((e) => e.textContent.trim()))") as Promise<
    string[][]
  >;
const capturer = async (nom: string) => {
  await page.evaluate("document.querySelector('.crochets').scrollIntoView()");
  // The thumbnails drawn, not their grey places.
  await page.waitForFunction("[...document.querySelectorAll('.apercu-tuile')].every((i) => i.complete && i.naturalWidth > 0)");
  await page.screenshot({ path: join(CAPTURES, `${nom}.png`) as `${string}.png` });
};

/** The English of the fusion's words that would show on a French page by mistake (a key missing in French). */
const anglais = () => {
  const { studio } = JSON.parse(readFileSync(join(RACINE, 'site/src/i18n/studio.en.json'), 'utf8')) as { studio: { fusion: unknown } };
  const textes = (v: unknown): string[] => (typeof v === 'string' ? v.split('|') : Object.values(v as object).flatMap(textes));
  return textes(studio.fusion)
    .flatMap((t) => t.split(/\{\w+\}/))
    .map((m) => m.trim())
    .filter((m) => m.length >= 10);
};

describe('fusion in the studio, in French on a phone', () => {
  it('groups six dropped photos into two brackets by their EXIF, each photo with its exposure', async () => {
    const email = `fusion-${Date.now()}@example.com`;
    const cree = spawnSync(
      process.execPath,
      ['--import', 'tsx', join(RACINE, 'exploitation/admin.ts'), 'create-user', '--email', email, '--password', MOT_DE_PASSE, '--credits', String(CREDITS)],
      { cwd: RACINE, env: { ...process.env, RETOUCHE_DATA_DIR: service.dossier }, encoding: 'utf8' },
    );
    expect(cree.status, cree.stderr).toBe(0);
    await page.goto(`${origine}/connexion`, { waitUntil: 'networkidle0' });
    await page.locator('#email').fill(email);
    await page.locator('#mot-de-passe').fill(MOT_DE_PASSE);
    await page.locator('form button[type=submit]').click();
    await page.waitForFunction("location.pathname !== '/connexion'");
    await page.goto(`${origine}/studio`, { waitUntil: 'networkidle0' });
    await contient(`Votre solde : ${CREDITS} crédits`);
    await page.locator('input[name=outil][value=fusion]').click();
    await contient('2 crédits par série');

    // Dropped on the page as a file manager drops them.
    const types = { jpg: 'image/jpeg', png: 'image/png', webp: 'image/webp' } as Record<string, string>;
    const fichiers = (await cliches()).map((f) => ({ nom: f.nom, type: types[f.nom.split('.').pop()!], base64: f.octets.toString('base64') }));
    await page.evaluate(`(() => {
      const transfert = new DataTransfer();
      for (const f of ${JSON.stringify(fichiers)}) {
        transfert.items.add(new File([Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0))], f.nom, { type: f.type }));
      }
      document.querySelector('.depot').dispatchEvent(new DragEvent('drop', { dataTransfer: transfert, bubbles: true, cancelable: true }));
    })()`);
    await page.waitForFunction("document.querySelectorAll('.crochet .tuile').length === 6");
    // In capture order, whatever the drop's: the living room (10:00:00) before the kitchen (10:00:40).
    expect(await crochets()).toEqual([
      ['salon-1.jpg', 'salon-2.jpg', 'salon-3.jpg'],
      ['cuisine-1.jpg', 'cuisine-2.png', 'cuisine-3.webp'],
    ]);
    const page0 = await texte();
    for (const morceau of ['Série 1', 'Série 2', '\u22122\u00a0EV', '1/240\u00a0s', '1/15\u00a0s']) expect(page0).toContain(morceau);
    // What a bracket is, and costs: one job.
    expect(await page.$$eval('.crochet:first-child .resume-crochet span', (s) => s.map((e) => e.textContent))).toEqual([
      '3 photos ·',
      'de \u22122\u00a0EV à +2\u00a0EV ·',
      '1 travail, 2 crédits',
    ]);
    await contient('2 séries × 2 crédits = 4 crédits');
    expect(await page.$eval('form.formulaire button[type=submit]', (b) => b.textContent?.trim())).toBe('Fusionner les 2 séries (4 crédits)');
    // No English on the French page.
    expect(anglais().filter((m) => page0.includes(m))).toEqual([]);
    expect(await debordement()).toBeLessThanOrEqual(0);
    expect(await accessibilite()).toEqual([]);
    await capturer('studio-fusion-telephone');
  });

  it('moves a photo to the other bracket by hand, and back', async () => {
    await page.locator('::-p-text(salon-3.jpg)').click();
    // Its actions, under its bracket: the focus stays on the photo, which says it is open.
    await page.waitForSelector('.actions-photo');
    expect(await page.evaluate("document.activeElement.getAttribute('aria-expanded')")).toBe('true');
    expect(await accessibilite()).toEqual([]);
    await page.locator('.actions-photo ::-p-text(Vers la série 2)').click();
    await contient('salon-3.jpg : série 2.');
    expect(await crochets()).toEqual([
      ['salon-1.jpg', 'salon-2.jpg'],
      ['salon-3.jpg', 'cuisine-1.jpg', 'cuisine-2.png', 'cuisine-3.webp'],
    ]);
    // The focus followed the photo to its new bracket, whose actions show there.
    expect(await page.evaluate("document.activeElement.textContent.includes('salon-3.jpg')")).toBe(true);
    // A living room's frame among the kitchen's, 40 s before them and at an exposure they have: said, not undone.
    await contient('ces photos semblent venir de 2 séries');
    expect(await debordement()).toBeLessThanOrEqual(0);
    await page.setViewport({ width: 1280, height: 800 });
    await capturer('studio-fusion');
    await page.setViewport({ width: 390, height: 844 });
    await page.locator('.actions-photo ::-p-text(Vers la série 1)').click();
    await contient('salon-3.jpg : série 1.');
    expect(await crochets()).toEqual([
      ['salon-1.jpg', 'salon-2.jpg', 'salon-3.jpg'],
      ['cuisine-1.jpg', 'cuisine-2.png', 'cuisine-3.webp'],
    ]);
  });

  it('cuts a bracket, says the photo left alone will not be launched, and joins them again', async () => {
    await page.locator('::-p-text(salon-2.jpg)').click();
    await page.locator('.actions-photo ::-p-text(Nouvelle série à partir d’ici)').click();
    expect(await crochets()).toEqual([['salon-1.jpg'], ['salon-2.jpg', 'salon-3.jpg'], ['cuisine-1.jpg', 'cuisine-2.png', 'cuisine-3.webp']]);
    await contient('Une photo seule ne se fusionne pas');
    // Two jobs still: the photo alone costs nothing and stays.
    await contient('2 séries × 2 crédits = 4 crédits 1 photo seule n’est pas lancée.');
    expect(await accessibilite()).toEqual([]);
    await page.locator('::-p-text(Réunir avec la série 2)').click();
    await contient('Séries 1 et 2 réunies.');
    expect(await crochets()).toEqual([
      ['salon-1.jpg', 'salon-2.jpg', 'salon-3.jpg'],
      ['cuisine-1.jpg', 'cuisine-2.png', 'cuisine-3.webp'],
    ]);
  });

  it('starts one job per bracket, and shows each result against its metered frame', async () => {
    await page.locator('form.formulaire button[type=submit]').click();
    await page.waitForFunction("document.querySelectorAll('section.lancement').length === 2");
    // The form is free again: its photos went with their launches.
    expect(await page.evaluate("document.querySelectorAll('.crochet').length")).toBe(0);
    // Both ended, whichever way; then how: a failure shows its reason here.
    await page.waitForFunction(
      "[...document.querySelectorAll('section.lancement .resume')].filter((r) => ['Terminé.', 'Le travail a échoué.'].includes(r.textContent.trim())).length === 2",
      { timeout: 120_000 },
    );
    const fins = await page.$$eval('section.lancement', (s) => s.map((e) => (e as unknown as { innerText: string }).innerText));
    expect(
      fins.filter((f) => !f.includes('Terminé.')),
      fins.join('\n---\n'),
    ).toEqual([]);
    expect(lancements).toHaveLength(2);
    expect(lancements.map((l) => [l.corps.outil, l.corps.images?.length])).toEqual([
      ['fusion', 3],
      ['fusion', 3],
    ]);
    expect(new Set(lancements.map((l) => l.cle)).size).toBe(2);
    // Each result against its bracket's 0 EV frame (the first shot), both pictures loaded.
    await page.waitForFunction(
      "(() => { const i = [...document.querySelectorAll('section.lancement .avant-apres img')]; return i.length === 4 && i.every((x) => x.complete && x.naturalWidth > 0); })()",
      { timeout: 60_000 },
    );
    const titres = await page.$$eval('section.lancement h2', (h) => h.map((e) => e.textContent?.trim()));
    expect(titres).toEqual(['Fusion d’expositions : 3 photos', 'Fusion d’expositions : 3 photos']);
    const avants = await page.$$eval('section.lancement img.avant', (i) => i.map((e) => e.getAttribute('alt')));
    expect(avants).toEqual(['salon-1.jpg – salon-3.jpg, avant', 'cuisine-1.jpg – cuisine-3.webp, avant']);
    await contient(`Votre solde : ${CREDITS - 4} crédits`);
    const resultats = await texte();
    expect(anglais().filter((m) => resultats.includes(m))).toEqual([]);
    expect(await debordement()).toBeLessThanOrEqual(0);
    expect(await accessibilite()).toEqual([]);
    // For whoever looks at the layout of the results (not the README's).
    await page.screenshot({ path: join(tmpdir(), 'retouche-studio-fusion-resultats.png') as `${string}.png`, fullPage: true });
  });

  it('follows both jobs again after a reload, their results alone (the photos stayed in the tab before)', async () => {
    await page.reload({ waitUntil: 'networkidle0' });
    await page.waitForFunction("document.querySelectorAll('section.lancement img.resultat-seul').length === 2", { timeout: 60_000 });
    expect(await page.$$eval('section.lancement h2', (h) => h.map((e) => e.textContent?.trim()))).toEqual(['Fusion d’expositions', 'Fusion d’expositions']);
    expect(await debordement()).toBeLessThanOrEqual(0);
  });

  it('says on the preview page what fusion does, in French', async () => {
    const onglet = await service.navigateur.newPage();
    try {
      await onglet.goto(`${origine}/apercu`, { waitUntil: 'networkidle0' });
      await onglet.waitForFunction("document.body.innerText.includes('Fusion d’expositions')");
      const texteApercu = (await onglet.evaluate('document.body.innerText')) as string;
      expect(texteApercu).toContain('Fusionne 2 à 9 expositions d’une même vue en une photo');
      expect(texteApercu).toContain('expositions_identiques');
      expect(await accessibiliteDe(onglet)).toEqual([]);
    } finally {
      await onglet.close();
    }
  });

  it('broke no Content Security Policy rule on the way', () => {
    expect(service.violationsCsp).toEqual([]);
  });
});
