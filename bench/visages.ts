/**
 * The local engine's face detector (moteurs/local/visages-blazeface.ts) on a real photograph
 * (test/photos/astronaute.jpg) enlarged to the sizes customers send: the first call of a process
 * (TensorFlow.js's WebAssembly backend and BlazeFace's weights loaded), then the median of 5 calls per
 * size, and the face found. Also the size the detector adds to an image function's node_modules.
 *
 *   npm run bench:visages
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { decoder } from '../lambdas/moteurs/commun/pixels';
import { trouverVisages } from '../lambdas/moteurs/local/visages-blazeface';

const racine = path.join(import.meta.dirname, '..');
const photo = readFileSync(path.join(racine, 'test', 'photos', 'astronaute.jpg'));
const mediane = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;

const t0 = performance.now();
await trouverVisages((await decoder(photo)).pixels);
console.log(`first call (backend and model loaded, 512 px photo): ${Math.round(performance.now() - t0)} ms`);

for (const [l, h] of [
  [512, 512],
  [1600, 1200],
  [4000, 3000],
] as const) {
  const { pixels } = await decoder(await sharp(photo).resize(l, h, { fit: 'fill' }).jpeg({ quality: 90 }).toBuffer());
  const temps: number[] = [];
  let trouves = 0;
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    trouves = (await trouverVisages(pixels)).length;
    temps.push(performance.now() - t);
  }
  console.log(`${l}×${h}: median ${Math.round(mediane(temps))} ms over 5 calls, ${trouves} face(s) found`);
}

const taille = (dossier: string): number =>
  readdirSync(dossier, { withFileTypes: true }).reduce(
    (t, e) => t + (e.isDirectory() ? taille(path.join(dossier, e.name)) : statSync(path.join(dossier, e.name)).size),
    0,
  );
const paquets = ['@vladmandic/human', '@tensorflow/tfjs-core', '@tensorflow/tfjs-converter', '@tensorflow/tfjs-backend-wasm'];
const octets = paquets.reduce((t, p) => t + taille(path.join(racine, 'node_modules', p)), 0);
console.log(`installed size of ${paquets.join(', ')}: ${(octets / 2 ** 20).toFixed(0)} MB`);
