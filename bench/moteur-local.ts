/**
 * Local preview engine: time per tool on 12 MP JPEGs (4000 × 3000), as `npm start` runs it (NanoDet
 * for every tool): the drawn living room of docs/engines.md for vider (no real room of test/photos is
 * delivered by the preview's vider: docs/engines.md, "vider on real photographs"), then real photos of
 * test/photos enlarged — the empty room for staging, a facade under a blue sky for renovation and ciel, a courtyard under a grey winter sky
 * for saison (a blue sky has nothing for it to turn). Each
 * figure includes decoding, detection, the zone, the structure check, the C2PA signing and encoding.
 * Run: npx tsx bench/moteur-local.ts [repetitions=5]
 */
import sharp from 'sharp';
import type { OutilImage } from '../lambdas/core/modele/outils';
import { creerMoteurLocal } from '../lambdas/moteurs/local/index';
import { photo } from '../test/support/verite';
import { rendreScenes } from '../docs/exemples/scenes';

const repetitions = Number(process.argv[2] ?? 5);
const [largeur, hauteur] = [4000, 3000];
const SALON = 'salon (docs/exemples/scenes.ts)';
const salon = (await rendreScenes()).salon;
const agrandir = (nom: string) =>
  sharp(nom === SALON ? salon : photo(nom))
    .resize(largeur, hauteur, { fit: 'fill' })
    .jpeg({ quality: 90 })
    .toBuffer();
const PHOTOS: Record<OutilImage, string> = {
  vider: SALON,
  staging: 'piece-vide_polyhaven-old-hall.jpg',
  renovation: 'facade-ciel-bleu_polyhaven-palermo.jpg',
  saison: 'facade-ciel-blanc_polyhaven-cambridge-b.jpg',
  ciel: 'facade-ciel-bleu_polyhaven-palermo.jpg',
};

const moteur = creerMoteurLocal();
console.log(`local engine, ${largeur}x${hauteur} JPEGs (q90), median of ${repetitions} runs after one warm-up, Node ${process.version}, ${process.arch}`);
for (const outil of Object.keys(PHOTOS) as OutilImage[]) {
  const image = await agrandir(PHOTOS[outil]);
  await moteur.retoucher({ outil, valeurs: {}, image, travail: 'bench-chauffe' });
  const durees: number[] = [];
  for (let i = 0; i < repetitions; i++) {
    const debut = performance.now();
    await moteur.retoucher({ outil, valeurs: {}, image, travail: `bench-${i}` });
    durees.push(performance.now() - debut);
  }
  durees.sort((a, b) => a - b);
  console.log(`  ${outil.padEnd(11)} ${durees[Math.floor(durees.length / 2)]!.toFixed(0).padStart(6)} ms  (${PHOTOS[outil]})`);
}
