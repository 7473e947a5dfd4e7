/**
 * Local preview engine: time per tool on 12 MP JPEGs (4000 × 3000): the README's living room, enlarged,
 * for vider and staging (a room to find furniture and a floor in), the drawn house for the others.
 * Run: npx tsx bench/moteur-local.ts [repetitions=5]
 */
import sharp from 'sharp';
import type { OutilImage } from '../lambdas/core/modele/outils';
import { creerMoteurLocal } from '../lambdas/moteurs/local/index';
import { rendreScenes } from '../docs/exemples/scenes';
import { photoGrande } from '../test/support/photo';

const repetitions = Number(process.argv[2] ?? 5);
const [largeur, hauteur] = [4000, 3000];
const salon = await sharp((await rendreScenes()).salon)
  .resize(largeur, hauteur)
  .jpeg({ quality: 90 })
  .toBuffer();
const maison = await sharp(await photoGrande({ largeur, hauteur }))
  .jpeg({ quality: 90 })
  .toBuffer();

const moteur = creerMoteurLocal();
console.log(
  `local engine, ${largeur}x${hauteur} JPEGs (room ${(salon.length / 1e6).toFixed(1)} MB, house ${(maison.length / 1e6).toFixed(1)} MB), median of ${repetitions} runs, Node ${process.version}`,
);
for (const outil of ['vider', 'staging', 'renovation', 'saison', 'ciel'] as OutilImage[]) {
  const durees: number[] = [];
  for (let i = 0; i < repetitions; i++) {
    const debut = performance.now();
    await moteur.retoucher({ outil, valeurs: {}, image: outil === 'vider' || outil === 'staging' ? salon : maison, travail: `bench-${i}` });
    durees.push(performance.now() - debut);
  }
  durees.sort((a, b) => a - b);
  console.log(`  ${outil.padEnd(11)} ${durees[Math.floor(durees.length / 2)]!.toFixed(0).padStart(6)} ms`);
}
