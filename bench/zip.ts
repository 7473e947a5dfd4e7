/**
 * Batch ZIP: 50 results of 3 MB streamed from the local S3 into a ZIP uploaded back to it; prints the
 * time and how much the resident memory grew (bounded by the upload parts, not by the batch).
 * Run: npx tsx bench/zip.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { ecrireZip } from '../lambdas/core/infra/zip';
import { clientS3Local, demarrerS3 } from '../local/s3';

const [nombre, taille] = [50, 3 * 1024 * 1024];
const dossier = mkdtempSync(join(tmpdir(), 'retouche-bench-zip-'));
const s3 = await demarrerS3({ dossier, seaux: ['bench'] });
const client = clientS3Local(s3.endpoint);
const fichiers = [];
for (let i = 0; i < nombre; i++) {
  const cle = `resultats/${i}.jpg`;
  await client.send(new PutObjectCommand({ Bucket: 'bench', Key: cle, Body: randomBytes(taille) }));
  fichiers.push({ cle, nom: `${i}.jpg` });
}
global.gc?.();
const avant = process.memoryUsage().rss;
let pic = avant;
const sonde = setInterval(() => (pic = Math.max(pic, process.memoryUsage().rss)), 20);
const debut = performance.now();
const { octets } = await ecrireZip({ s3: client, bucket: 'bench', cle: 'zips/bench.zip', fichiers });
const duree = performance.now() - debut;
clearInterval(sonde);
console.log(
  `ZIP of ${nombre} × ${taille / 1048576} MB = ${(octets / 1048576).toFixed(0)} MB in ${(duree / 1000).toFixed(2)} s ` +
    `(${(octets / 1048576 / (duree / 1000)).toFixed(0)} MB/s); resident memory grew by at most ${((pic - avant) / 1048576).toFixed(0)} MB`,
);
await s3.arreter();
rmSync(dossier, { recursive: true, force: true });
