/**
 * `fusion` measured (lambdas/moteurs/commun/fusion/): on brackets made from the real photos of test/photos
 * (test/support/crochets.ts: ×¼, ×1, ×4, a hand's motion, noise, a figure walking through), the figures the
 * photos test holds (test/support/mesures-fusion.ts); then the time and memory of 5 × 24 MP brackets
 * (a real photo enlarged to 6000 × 4000, 5 frames 1 EV apart, JPEG quality 97), each run in a fresh Node
 * process as a cold Lambda container would, split by stage, median of 3. Prints markdown tables.
 *
 *   npm run bench:fusion
 *   npx tsx bench/fusion.ts --repetitions 5 --photo sejour_polyhaven-wooden-lounge.jpg
 *   npm run bench:fusion -- --planche      # writes docs/engines/fusion-planche.png instead
 *
 * About 2 minutes on 2 cores (making the 24 MP frames takes half of it). Times are wall times on the
 * machine as it is: another process on the same cores (a CI run) makes them longer, so the load average
 * is printed beside them.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { fabriquerCrochets, PHOTOS_FUSION } from '../test/support/crochets';
import { juger } from '../test/support/mesures-fusion';
import { lancerEnfant } from './enfant';

/** What a child prints: one run on the 24 MP frames. */
interface Tour {
  decodage: number;
  alignement: number;
  fusion: number;
  redressement: number;
  encodage: number;
  total: number;
  picMo: number;
  octets: number;
}

const enfant = async (dossier: string, n: number): Promise<void> => {
  const { fusionner } = await import('../lambdas/moteurs/commun/fusion/index');
  const { encoderResultat } = await import('../lambdas/moteurs/commun/resultat');
  const photos = await Promise.all(Array.from({ length: n }, (_, i) => readFile(join(dossier, `${i}.jpg`))));
  const debut = performance.now();
  const r = await fusionner(photos);
  const avantEncodage = performance.now();
  const fichier = await encoderResultat(r.pixels, r.format, { outil: 'fusion', apercu: false, graine: null });
  const fin = performance.now();
  const tour: Tour = {
    ...r.mesures.durees,
    encodage: Math.round(fin - avantEncodage),
    total: Math.round(fin - debut),
    picMo: Math.round(process.resourceUsage().maxRSS / 1024),
    octets: fichier.length,
  };
  console.log(JSON.stringify(tour));
};

const lancer = async (dossier: string, n: number): Promise<Tour> => {
  const [tour] = await lancerEnfant<Tour>(fileURLToPath(import.meta.url), [dossier, String(n)]);
  if (!tour) throw new Error('the child printed no measure');
  return tour;
};

const mediane = (v: number[]) => {
  const t = [...v].sort((a, b) => a - b);
  return t.length % 2 ? t[(t.length - 1) / 2]! : (t[t.length / 2 - 1]! + t[t.length / 2]!) / 2;
};

const f = (v: number, n = 2) => v.toFixed(n);
const blancs = (b: { part: number; luminance: number; ecart: number; couleur: number }) =>
  b.part > 0 ? `${f(b.part)}, ${f(b.luminance, 1)} / ${f(b.ecart, 1)} / ${f(b.couleur, 1)}` : 'none';

/** The per-photo table: what the photos test holds, measured. */
const parPhoto = async (): Promise<void> => {
  const { fusionner } = await import('../lambdas/moteurs/commun/fusion/index');
  const { ecartMax, similitude } = await import('../lambdas/moteurs/commun/fusion/transformation');
  console.log(
    '| Photo (640 px wide) | Alignment error, px (worst frame) | Blown % original → result | Blocked % original → result | SSIM structure: all / edges | Edge sharpness kept where merged | Second copy (result / original) | Ghost | White kept: share %, luminance / spread / colour | Structure check | ms |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const nom of PHOTOS_FUSION) {
    const photo = await readFile(`test/photos/${nom}`);
    const [c, sansFigure] = await Promise.all([fabriquerCrochets(photo), fabriquerCrochets(photo, { personne: false })]);
    const debut = performance.now();
    const r = await fusionner(c.photos);
    const ms = performance.now() - debut;
    const j = await juger(c, r.pixels, r.mesures.verticales, (await fusionner(sansFigure.photos)).pixels);
    const { largeur: l, hauteur: h } = c.original;
    const erreur = Math.max(
      ...r.mesures.photos.map((p, k) => ecartMax(similitude((p.rotation * Math.PI) / 180, p.echelle, p.decalage.x, p.decalage.y), c.transformations[k]!, l, h)),
    );
    const garde = (j.ailleurs.aretes - j.ailleurs.decalees) / (1 - j.ailleurs.decaleesOriginal);
    console.log(
      `| ${nom} | ${f(erreur)} | ${f(j.original.hautes)} → ${f(j.resultat.hautes)} | ${f(j.original.basses)} → ${f(j.resultat.basses)} | ` +
        `${f(j.tout.structure, 3)} / ${f(j.tout.aretes, 3)} | ${f(100 * garde, 0)} % | ${f(j.tout.secondeCopie, 3)} / ${f(j.tout.secondeCopieOriginal, 3)} | ` +
        `${f(j.fantome, 3)} | ${blancs(j.blancs)} | ${f(r.structure.score, 3)} | ${f(ms, 0)} |`,
    );
  }
};

/** The 24 MP table: stages, median of the runs, each in a fresh process. */
const grandeTaille = async (photo: string, repetitions: number): Promise<void> => {
  const dossier = mkdtempSync(join(tmpdir(), 'retouche-fusion-'));
  try {
    const c = await fabriquerCrochets(await readFile(`test/photos/${photo}`), {
      largeur: 6000,
      hauteur: 4000,
      expositions: [0.25, 0.5, 1, 2, 4],
      qualite: 97,
    });
    c.photos.forEach((p, i) => writeFileSync(join(dossier, `${i}.jpg`), p));
    const mo = c.photos.map((p) => (p.length / 2 ** 20).toFixed(1)).join(', ');
    const tours: Tour[] = [];
    for (let i = 0; i < repetitions; i++) tours.push(await lancer(dossier, c.photos.length));
    console.log(`\n5 × 24 MP (6000 × 4000, ${photo} enlarged; JPEGs of ${mo} MB), ${repetitions} fresh processes, load average ${loadavg()[0]!.toFixed(2)}:\n`);
    const etapes = [
      ['decode (5 photos, and their analysis copies)', 'decodage'],
      ['align (+ exposures and ghosts, on the copies)', 'alignement'],
      ['fuse (warp by libvips overlapping, merge)', 'fusion'],
      ['redress (verticals, light, structure check)', 'redressement'],
      ['encode (JPEG q90, provenance EXIF/XMP)', 'encodage'],
      ['**total**', 'total'],
      ['peak RSS, MB', 'picMo'],
    ] as const;
    console.log(`| Stage | median | runs |`);
    console.log('|---|---|---|');
    for (const [nom, cle] of etapes) console.log(`| ${nom} | ${mediane(tours.map((t) => t[cle]))} | ${tours.map((t) => t[cle]).join(', ')} |`);
  } finally {
    rmSync(dossier, { recursive: true, force: true });
  }
};

/** The photos of the contact sheet: a room with windows, a dark bedroom with a lamp, a facade under a blue sky. */
const PLANCHE = ['cuisine-sejour_coco180239.jpg', 'chambre_coco403353.jpg', 'facade-ciel-bleu_polyhaven-palermo.jpg'];
const TUILE = 300;

const etiquette = (texte: string, largeur: number, hauteur: number, taille = 17): Buffer =>
  Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${largeur}" height="${hauteur}"><rect width="100%" height="100%" fill="white"/>` +
      `<text x="4" y="${hauteur - 8}" font-family="sans-serif" font-size="${taille}" fill="#222">${texte}</text></svg>`,
  );

/**
 * docs/engines/fusion-planche.png: per photo, the three frames as shot (moved by the hand, the figure
 * elsewhere in each) and the merged result, 300 px wide each, under a row of labels. A palette PNG (under
 * 600 KB); the result's tiles are the delivered photo reduced, nothing retouched.
 */
const planche = async (): Promise<void> => {
  const { default: sharp } = await import('sharp');
  const { fusionner } = await import('../lambdas/moteurs/commun/fusion/index');
  const titres = ['×¼ (−2 EV)', '×1 (metered: the reference)', '×4 (+2 EV)', 'fusion (delivered)'];
  const morceaux: { input: Buffer; left: number; top: number }[] = titres.map((t, i) => ({ input: etiquette(t, TUILE, 28), left: i * (TUILE + 6), top: 0 }));
  let haut = 30;
  for (const nom of PLANCHE) {
    const c = await fabriquerCrochets(await readFile(`test/photos/${nom}`));
    const r = await fusionner(c.photos);
    const h = Math.round((TUILE * r.pixels.hauteur) / r.pixels.largeur);
    const tuiles = [
      ...c.photos.map((p) => sharp(p).resize(TUILE, h).png().toBuffer()),
      sharp(r.pixels.data, { raw: { width: r.pixels.largeur, height: r.pixels.hauteur, channels: 3 } })
        .resize(TUILE, h)
        .png()
        .toBuffer(),
    ];
    (await Promise.all(tuiles)).forEach((input, i) => morceaux.push({ input, left: i * (TUILE + 6), top: haut }));
    morceaux.push({ input: etiquette(nom, TUILE * 4 + 18, 22, 13), left: 0, top: haut + h });
    haut += h + 28;
  }
  const fichier = fileURLToPath(new URL('../docs/engines/fusion-planche.png', import.meta.url));
  mkdirSync(join(fichier, '..'), { recursive: true });
  await sharp({ create: { width: TUILE * 4 + 18, height: haut, channels: 3, background: '#ffffff' } })
    .composite(morceaux)
    .png({ palette: true, quality: 90, compressionLevel: 9 })
    .toFile(fichier);
  console.log(`wrote ${fichier}`);
};

if (process.argv[2] === '--enfant') {
  await enfant(process.argv[3]!, Number(process.argv[4]));
} else {
  const { values } = parseArgs({
    options: {
      repetitions: { type: 'string', default: '3' },
      photo: { type: 'string', default: 'cuisine-sejour_coco180239.jpg' },
      'sans-photos': { type: 'boolean' },
      planche: { type: 'boolean' },
    },
  });
  if (values.planche) await planche();
  else {
    if (!values['sans-photos']) await parPhoto();
    await grandeTaille(values.photo, Number(values.repetitions));
  }
}
