/**
 * Local preview engine: time per tool on 12 MP JPEGs (4000 × 3000), as `npm start` runs it (NanoDet
 * for every tool): real photos of test/photos enlarged — a living room with its sofa for vider (one it
 * delivers: the bedrooms' beds are most of the frame, refused as remplissage_insuffisant), the empty room
 * for staging, a facade under a blue sky for renovation and ciel, a courtyard under a grey winter sky
 * for saison (a blue sky has nothing for it to turn). Each
 * figure includes decoding, detection, the zone, the structure check, the C2PA signing and encoding.
 * Run: npx tsx bench/moteur-local.ts [repetitions=5]
 */
import sharp from 'sharp';
import type { OutilImage } from '../lambdas/core/modele/outils';
import { creerMoteurLocal } from '../lambdas/moteurs/local/index';
import { photo } from '../test/support/verite';

const repetitions = Number(process.argv[2] ?? 5);
const [largeur, hauteur] = [4000, 3000];
const agrandir = (nom: string) => sharp(photo(nom)).resize(largeur, hauteur, { fit: 'fill' }).jpeg({ quality: 90 }).toBuffer();
const PHOTOS: Record<OutilImage, string> = {
  vider: 'sejour_polyhaven-fireplace-b.jpg',
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
