/**
 * Local preview engine: time per tool on a 12 MP photo-like JPEG (4000 × 3000).
 * Run: npx tsx bench/moteur-local.ts [repetitions=5]
 */
import sharp from 'sharp';
import type { OutilImage } from '../lambdas/core/outils';
import { creerMoteurLocal } from '../lambdas/moteurs/local';

const repetitions = Number(process.argv[2] ?? 5);
const [largeur, hauteur] = [4000, 3000];
const ciel = await sharp({ create: { width: largeur, height: hauteur / 2, channels: 3, background: '#c4d2e4' } }).png().toBuffer();
const source = await sharp({ create: { width: largeur, height: hauteur, channels: 3, background: '#6b5a48' } })
  .composite([{ input: ciel, top: 0, left: 0 }])
  .jpeg({ quality: 90 })
  .toBuffer();

const moteur = creerMoteurLocal();
console.log(`local engine, ${largeur}x${hauteur} JPEG (${(source.length / 1e6).toFixed(1)} MB), median of ${repetitions} runs, Node ${process.version}`);
for (const outil of ['vider', 'staging', 'renovation', 'saison', 'ciel'] as OutilImage[]) {
  const durees: number[] = [];
  for (let i = 0; i < repetitions; i++) {
    const debut = performance.now();
    await moteur.retoucher({ outil, valeurs: {}, image: source, travail: `bench-${i}` });
    durees.push(performance.now() - debut);
  }
  durees.sort((a, b) => a - b);
  console.log(`  ${outil.padEnd(11)} ${durees[Math.floor(durees.length / 2)]!.toFixed(0).padStart(6)} ms`);
}
