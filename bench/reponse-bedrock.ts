/**
 * How large Stability's answer is at the largest working frame, in each output format, against the
 * InvokeModel response body limit (25 000 000 bytes: the Bedrock API reference). The answer is JSON
 * holding the image as base64, so what counts is 4/3 of the encoded image.
 *
 * Stability's own encoder cannot be run here, so the frame the engine would send (image.ts:
 * cadreDeTravail at the 9 437 184-pixel ceiling, from a 24 MP photo) is encoded by sharp: PNG as a
 * lossless encoder gives it, JPEG at qualities 90, 95 and 100 with 4:4:4 chroma (100 is the largest a
 * JPEG encoder can make of it, whatever quality Stability uses), WebP 90. The photos are
 * test/support/photo.ts's 24 MP drawn photos, which carry a sensor's grain so that they compress no
 * better than a photograph: snow and a green garden, and the same with twice the grain (a dim interior
 * at high ISO is the worst case a listing photographer sends).
 *
 * Run: npm run bench:reponse-bedrock
 */
import sharp, { type Sharp } from 'sharp';
import { cadreDeTravail, LIMITES_STABILITY } from '../lambdas/moteurs/bedrock/image';
import { pixelsPhotoGrande } from '../test/support/photo';

const LIMITE_REPONSE = 25_000_000;
const mo = (octets: number) => `${(octets / 1e6).toFixed(1).padStart(5)} MB`;

const photos = [
  { nom: 'snow, grain ×1', options: { graine: 1, neige: true } },
  { nom: 'garden, grain ×1', options: { graine: 2, neige: false } },
];

const formats: { nom: string; encoder: (s: Sharp) => Sharp }[] = [
  { nom: 'png', encoder: (s) => s.png() },
  { nom: 'jpeg q90', encoder: (s) => s.jpeg({ quality: 90, chromaSubsampling: '4:4:4' }) },
  { nom: 'jpeg q95', encoder: (s) => s.jpeg({ quality: 95, chromaSubsampling: '4:4:4' }) },
  { nom: 'jpeg q100', encoder: (s) => s.jpeg({ quality: 100, chromaSubsampling: '4:4:4' }) },
  { nom: 'webp q90', encoder: (s) => s.webp({ quality: 90 }) },
];

/** Twice the grain: each pixel moved by the difference from its 3×3 blur once more. */
const plusDeGrain = async (p: { data: Buffer; largeur: number; hauteur: number }) => {
  const brut = { raw: { width: p.largeur, height: p.hauteur, channels: 3 as const } };
  const flou = await sharp(p.data, brut).blur(1).raw().toBuffer();
  const sortie = Buffer.alloc(p.data.length);
  for (let i = 0; i < p.data.length; i++) sortie[i] = Math.max(0, Math.min(255, 2 * p.data[i]! - flou[i]!));
  return { ...p, data: sortie };
};

console.log(`InvokeModel answer limit: ${mo(LIMITE_REPONSE)} (base64 inside JSON: 4/3 of the image)`);
console.log(`${'photo'.padEnd(22)} ${'frame'.padEnd(11)} ${'format'.padEnd(10)} ${'image'.padStart(8)} ${'base64'.padStart(8)}  margin`);
for (const { nom, options } of photos) {
  for (const grain of [1, 2]) {
    let p = pixelsPhotoGrande(options);
    if (grain === 2) p = await plusDeGrain(p);
    const cadre = cadreDeTravail(p.largeur, p.hauteur, LIMITES_STABILITY.pixelsMax);
    const travail = sharp(p.data, { raw: { width: p.largeur, height: p.hauteur, channels: 3 } }).resize(cadre.largeur, cadre.hauteur, { fit: 'fill' });
    const brut = await travail.raw().toBuffer();
    for (const f of formats) {
      const image = await f.encoder(sharp(brut, { raw: { width: cadre.largeur, height: cadre.hauteur, channels: 3 } })).toBuffer();
      const base64 = Math.ceil(image.length / 3) * 4;
      const marge = 1 - base64 / LIMITE_REPONSE;
      const libelle = grain === 2 ? nom.replace('×1', '×2') : nom;
      console.log(
        `${libelle.padEnd(22)} ${`${cadre.largeur}×${cadre.hauteur}`.padEnd(11)} ${f.nom.padEnd(10)} ${mo(image.length)} ${mo(base64)}  ${marge < 0 ? 'OVER the limit' : `${Math.round(marge * 100)} % under`}`,
      );
    }
  }
}
