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

// The engine's whole detector (personnes-local.ts: BlazeFace, and the plate reader on NanoDet's vehicles) on
// 12 MP street photos, as a job with `floutage` runs it once on the photo; the vehicles are found first, as
// the tool itself has (objets-nanodet.ts keeps its reading per photo). Wall time and this process's CPU time.
const { detecteurPersonnesLocal } = await import('../lambdas/moteurs/local/personnes-local');
const { trouverObjets } = await import('../lambdas/moteurs/local/objets-nanodet');
for (const nom of ['rue-bus_coco423617.jpg', 'rue-personnes_coco005001.jpg']) {
  const { pixels } = await decoder(
    await sharp(readFileSync(path.join(racine, 'test', 'photos', nom)))
      .resize(4000, 3000, { fit: 'fill' })
      .jpeg({ quality: 90 })
      .toBuffer(),
  );
  await trouverObjets(pixels);
  for (const [reglage, genres] of [
    ['faces', ['visage']],
    ['plates', ['plaque']],
    ['faces and plates', ['visage', 'plaque']],
  ] as const) {
    const [temps, cpu]: [number[], number[]] = [[], []];
    let trouves = 0;
    for (let i = 0; i < 4; i++) {
      const [t, c] = [performance.now(), process.cpuUsage()];
      trouves = (await detecteurPersonnesLocal.detecter(pixels, new Set(genres))).length;
      const u = process.cpuUsage(c);
      if (i > 0) (temps.push(performance.now() - t), cpu.push((u.user + u.system) / 1000));
    }
    console.log(`${nom} at 4000×3000, ${reglage}: median ${Math.round(mediane(temps))} ms (CPU ${Math.round(mediane(cpu))} ms) over 3 calls, ${trouves} found`);
  }
}
