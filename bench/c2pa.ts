/**
 * What the C2PA marking costs per result: bytes added and milliseconds to sign, per format and size,
 * the first signature of a process (cold) against the following ones, the process's peak memory, and
 * what c2pa-rs itself (the reference reader) says of the signed file, with and without our test CA as
 * trust anchor.
 *
 *   npm run bench:c2pa
 */
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { WasmReader } from '@contentauth/c2pa-wasm';
import { creerPkiTest } from '../lambdas/moteurs/c2pa/certificats';
import { creerMarqueur } from '../lambdas/moteurs/c2pa/marquage';
import type { FormatImage } from '../lambdas/core/modele/images';
import { prechaufferC2pa } from '../lambdas/moteurs/c2pa/signature';
import { initialiserC2pa } from '../lambdas/moteurs/c2pa/wasm';
import { photoGrande } from '../test/support/photo';
import { verifierC2pa } from '../test/support/c2pa-verificateur';

const pki = await creerPkiTest('Retouche bench');
const marqueur = creerMarqueur(pki);

const t0 = performance.now();
initialiserC2pa();
const chargement = performance.now() - t0;

const photo24 = await photoGrande();
const photo12 = await sharp(photo24).resize(4000, 3000).jpeg({ quality: 92 }).toBuffer();
const variantes: { nom: string; format: FormatImage; octets: Buffer }[] = [];
for (const [taille, source] of [
  ['12 MP', photo12],
  ['24 MP', photo24],
] as const) {
  variantes.push({ nom: `${taille} JPEG`, format: 'jpeg', octets: source });
  variantes.push({ nom: `${taille} WebP`, format: 'webp', octets: await sharp(source).webp({ quality: 90 }).toBuffer() });
  variantes.push({ nom: `${taille} PNG`, format: 'png', octets: await sharp(source).png().toBuffer() });
}

const signer = (v: (typeof variantes)[number]) =>
  marqueur.marquer(v.octets, v.format, { outil: 'ciel', moteur: 'bedrock', entree: v.octets, formatEntree: v.format, titre: 'bench' });

// Cold: the very first signature of the process, on the first large JPEG, before any warm-up.
const froid = performance.now();
await signer(variantes[3]!);
const premiere = performance.now() - froid;
const t1 = performance.now();
await prechaufferC2pa(pki);
const prechauffage = performance.now() - t1;

console.log(`Node ${process.version}, @contentauth/c2pa-wasm 0.13.3 (c2pa-rs 0.91.3), sharp ${sharp.versions.sharp}`);
console.log(
  `WASM load and compile: ${chargement.toFixed(0)} ms; first signature of the process (24 MP JPEG): ${premiere.toFixed(0)} ms; warm-up (10 tiny signatures, done at cold start on Lambda): ${prechauffage.toFixed(0)} ms`,
);
console.log('');
console.log('image        size MB  bytes added  sign ms: median of 5 (min-max)  c2pa-rs reader                  independent reader');
for (const v of variantes) {
  const durees: number[] = [];
  let signe = v.octets;
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    signe = await signer(v);
    durees.push(performance.now() - t);
  }
  durees.sort((a, b) => a - b);
  const lecteur = await WasmReader.fromBytes(`image/${v.format}`, new Uint8Array(signe));
  const etat = JSON.parse(lecteur.json()).validation_state as string;
  const ancre = await WasmReader.fromBytes(`image/${v.format}`, new Uint8Array(signe), JSON.stringify({ trust: { user_anchors: pki.autorite } }));
  const etatAncre = JSON.parse(ancre.json()).validation_state as string;
  const independant = await verifierC2pa(signe, v.format, pki.autorite);
  const memes = (await sharp(signe).raw().toBuffer()).equals(await sharp(v.octets).raw().toBuffer());
  console.log(
    `${v.nom.padEnd(12)} ${(v.octets.length / 2 ** 20).toFixed(1).padStart(7)}  ${String(signe.length - v.octets.length).padStart(11)}  ${`${durees[2]!.toFixed(0)} (${durees[0]!.toFixed(0)}-${durees[4]!.toFixed(0)})`.padStart(18)}`.padEnd(
      67,
    ) +
      `${etat}; ${etatAncre} with our CA`.padEnd(32) +
      `${independant.valide ? 'valid' : `INVALID ${independant.erreurs.join('; ')}`}${memes ? ', same pixels' : ', PIXELS DIFFER'}`,
  );
  lecteur.free();
  ancre.free();
}
console.log('');
console.log(
  `peak RSS of this process: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB (the WASM memory grows with the largest file signed and is not given back)`,
);
console.log(`input SHA-256 of the 24 MP photo: ${createHash('sha256').update(photo24).digest('hex').slice(0, 16)}…`);
