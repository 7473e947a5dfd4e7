/**
 * The vider preview: the furniture and clutter found (the zone of commun/zones.ts) filled with the
 * room's own surfaces continued from around them, composited through the zone's feathered mask as
 * production composites the model's answer.
 */
import sharp from 'sharp';
import { depuisPixels, type Pixels } from '../commun/pixels';
import { part, type ZoneOutil } from '../commun/zones';
import { borner } from './couleurs';
import { remplirParMotifs } from './remplissage';
import { mesurerCopie, refuserSiTache, surfaces, tailleMesure, type QualiteRemplissage } from './qualite-remplissage';

/**
 * Pull-push: each hole takes the mean of the known pixels around it at the finest scale where there are
 * any, blended up level by level (bilinear), so a floor or a wall continues smoothly across the hole
 * from every side at once — no rows, no streaks. `connu` is 1 where the pixel is the photo's.
 */
const tirerPousser = (data: Float32Array, connu: Float32Array, l: number, h: number): void => {
  if (l <= 1 && h <= 1) return;
  const [l2, h2] = [Math.ceil(l / 2), Math.ceil(h / 2)];
  const d2 = new Float32Array(l2 * h2 * 3);
  const w2 = new Float32Array(l2 * h2);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < l; x++) {
      const [i, j] = [y * l + x, (y >> 1) * l2 + (x >> 1)];
      const w = connu[i]!;
      if (!w) continue;
      w2[j]! += w;
      for (let c = 0; c < 3; c++) d2[j * 3 + c]! += data[i * 3 + c]! * w;
    }
  }
  for (let j = 0; j < w2.length; j++) {
    if (!w2[j]) continue;
    for (let c = 0; c < 3; c++) d2[j * 3 + c]! /= w2[j]!;
    w2[j] = 1;
  }
  tirerPousser(d2, w2, l2, h2);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < l; x++) {
      const i = y * l + x;
      if (connu[i]) continue;
      // Bilinear from the coarser level, centres aligned.
      const [u, v] = [Math.min(l2 - 1, Math.max(0, (x - 0.5) / 2)), Math.min(h2 - 1, Math.max(0, (y - 0.5) / 2))];
      const [x0, y0] = [Math.floor(u), Math.floor(v)];
      const [x1, y1] = [Math.min(l2 - 1, x0 + 1), Math.min(h2 - 1, y0 + 1)];
      const [tx, ty] = [u - x0, v - y0];
      for (let c = 0; c < 3; c++) {
        const a = d2[(y0 * l2 + x0) * 3 + c]! * (1 - tx) + d2[(y0 * l2 + x1) * 3 + c]! * tx;
        const b = d2[(y1 * l2 + x0) * 3 + c]! * (1 - tx) + d2[(y1 * l2 + x1) * 3 + c]! * tx;
        data[i * 3 + c] = a * (1 - ty) + b * ty;
      }
    }
  }
};

/**
 * Blur (sigma, pixels of the small copy) whose difference with the photo is the surfaces' texture: wide
 * enough to hold a plank's joints and a carpet's pattern, not only a pixel's grain (at 2.5, with the
 * grain softened, real floors came back as blurs: issue 39).
 */
const FLOU_DETAIL = 6;
/** How much of the texture is copied, and its bound (levels): a surface's, not the lines of other objects. */
const [GAIN_DETAIL, DETAIL_MAX] = [1, 40];
/** A step from the blur above this (levels, any channel) is an object's edge, not a surface's texture. */
const ARETE = 40;
/**
 * The grain added to a fill enlarged at least AGRANDISSEMENT_GRAIN times (levels, peak to peak): a 12 MP
 * photo's own noise, which its 480 px copy cannot carry. Not on a photo near the fill's size, where it
 * would be noise on top of copied texture, and would pass for detail in the measure.
 */
const [GRAIN, AGRANDISSEMENT_GRAIN] = [6, 2];

/**
 * What is behind furniture is, for a preview, the room's own surfaces continued: the masked pixels are
 * filled from the known ones around them on a small copy (pull-push), scaled back, with a seeded grain
 * so the fill does not look painted, and blended in through the feathered mask. Nothing of the covered
 * pixels is used: no ghost of the furniture. A fill that would still read as a blur, or an area that is
 * most of the room, ends the job in `remplissage_insuffisant` (refunded) instead.
 */
export const apercuVider = async (p: Pixels, zone: ZoneOutil, graine: number): Promise<Buffer> => {
  // Most of the room hidden: refused before any work.
  refuserSiTache({ detail: 1, part: part(zone.masque), vu: Infinity });
  const { resultat, qualite } = await remplirVider(p, zone, graine);
  refuserSiTache(qualite);
  return resultat;
};

/** The fill and its measure, delivered or not (apercuVider decides; the bench shows what it refuses). */
export const remplirVider = async (p: Pixels, zone: ZoneOutil, graine: number): Promise<{ resultat: Buffer; qualite: QualiteRemplissage }> => {
  const { largeur: l, hauteur: h } = p;
  // The fill is made on the measure's copy (480 px): its light is smooth and its texture copied, so more
  // pixels would cost time (the patch search grows with the hole's area) and show nothing more.
  const [lp, hp] = tailleMesure(l, h);
  const petit = await depuisPixels(p).resize(lp, hp, { fit: 'fill' }).raw().toBuffer();
  const masque = await sharp(zone.masque, { raw: { width: l, height: h, channels: 1 } })
    .resize(lp, hp, { fit: 'fill' })
    .extractChannel(0)
    .raw()
    .toBuffer();
  // A pixel of the small copy half covered by the mask carries some furniture: treated as unknown.
  const connu = Uint8Array.from(masque, (m) => (m > 0 ? 0 : 1));
  // Floor below the floor line, wall above, the line carried on behind the furniture (qualite-remplissage.ts).
  const classes = await surfaces(p, lp, hp, masque);
  // The light: each surface continued smoothly from its own pixels around (pull-push), so that where the
  // floor meets the wall behind a sofa comes back as a line, not as a band where both are averaged.
  const lisse = Float32Array.from(petit);
  for (const c of [0, 1]) {
    const poids = Float32Array.from(connu, (v, q) => (v && classes[q] === c ? 1 : 0));
    // A surface with none of its own pixels in view takes all of them (a wall behind a bed in a close-up).
    const surface = Float32Array.from(petit);
    tirerPousser(surface, poids.some((v) => v) ? poids : Float32Array.from(connu), lp, hp);
    for (let q = 0; q < connu.length; q++) if (!connu[q] && classes[q] === c) for (let k = q * 3; k < q * 3 + 3; k++) lisse[k] = surface[k]!;
  }
  // …and the texture: the floor's and the walls' own detail (the photo less its blur), copied patch by
  // patch from the same surface.
  const flou = await sharp(petit, { raw: { width: lp, height: hp, channels: 3 } })
    .blur(FLOU_DETAIL)
    .raw()
    .toBuffer();
  // Bounded: a strong edge elsewhere (a door's frame) must not come back as a ridge.
  const detail = Uint8Array.from(petit, (v, i) => 128 + Math.max(-DETAIL_MAX, Math.min(DETAIL_MAX, Math.round(GAIN_DETAIL * (v - flou[i]!)))));
  // An object's edge (the grain's strongest steps) is no texture to copy: no patch is taken across one.
  const aretes = Uint8Array.from(connu, (_, q) => ([0, 1, 2].some((c) => Math.abs(petit[q * 3 + c]! - flou[q * 3 + c]!) > ARETE) ? 1 : 0));
  // Patches are matched on the photo's colours (the same surface, in the same light and tint: matched on
  // the texture alone, a wall's took the floor's place) and their texture is what is copied; the light
  // stays the smooth one, since whole coloured patches side by side read as a patchwork.
  remplirParMotifs(Uint8Array.from(petit), Uint8Array.from(connu), lp, hp, graine, classes, aretes, [detail]);
  const data = Uint8Array.from(petit);
  for (let q = 0; q < connu.length; q++) if (!connu[q]) for (let i = q * 3; i < q * 3 + 3; i++) data[i] = borner(lisse[i]! + detail[i]! - 128);
  const resultat = await agrandirEtComposer(p, zone.alpha, data, lp, hp, graine);
  // Measured on the result itself, as a test or a customer would see it (qualite-remplissage.ts).
  const vu = await depuisPixels({ data: resultat, largeur: l, hauteur: h }).resize(lp, hp, { fit: 'fill' }).raw().toBuffer();
  return { resultat, qualite: await mesurerCopie(vu, masque, classes, lp, hp) };
};

/**
 * The small fill (lp × hp) enlarged to the photo and blended in through `alpha`: only the rectangle
 * around the mask is enlarged and visited (at 12 MP, the whole frame was most of vider's time), with a
 * seeded grain where the fill was enlarged enough to look painted (at a photo's own scale, the copied
 * texture is its grain).
 */
const agrandirEtComposer = async (p: Pixels, alpha: Uint8Array, data: Uint8Array, lp: number, hp: number, graine: number): Promise<Buffer> => {
  const { largeur: l, hauteur: h } = p;
  let [x0, y0, x1, y1] = [l, h, 0, 0];
  for (let y = 0; y < h; y++) {
    const ligne = y * l;
    for (let x = 0; x < l; x++)
      if (alpha[ligne + x]) {
        [x0, x1, y0, y1] = [Math.min(x0, x), Math.max(x1, x + 1), Math.min(y0, y), y + 1];
        break;
      }
    if (y0 > y || x1 === l) continue;
    for (let x = l - 1; x >= x1; x--)
      if (alpha[ligne + x]) {
        x1 = x + 1;
        break;
      }
  }
  const sortie = Buffer.from(p.data);
  if (x1 <= x0) return sortie;
  // The small copy's rectangle that covers it, with a margin for the enlarging kernel, and its place in the photo.
  const [kx, ky] = [l / lp, h / hp];
  const [sx0, sy0] = [Math.max(0, Math.floor(x0 / kx) - 2), Math.max(0, Math.floor(y0 / ky) - 2)];
  const [sx1, sy1] = [Math.min(lp, Math.ceil(x1 / kx) + 2), Math.min(hp, Math.ceil(y1 / ky) + 2)];
  const [gx0, gy0] = [Math.round(sx0 * kx), Math.round(sy0 * ky)];
  const [gx1, gy1] = [sx1 === lp ? l : Math.round(sx1 * kx), sy1 === hp ? h : Math.round(sy1 * ky)];
  const lg = gx1 - gx0;
  const rempli = await sharp(Buffer.from(data.buffer, data.byteOffset, data.length), { raw: { width: lp, height: hp, channels: 3 } })
    .extract({ left: sx0, top: sy0, width: sx1 - sx0, height: sy1 - sy0 })
    .resize(lg, gy1 - gy0, { fit: 'fill', kernel: 'cubic' })
    .raw()
    .toBuffer();
  const amplitude = Math.min(kx, ky) >= AGRANDISSEMENT_GRAIN ? GRAIN : 0;
  let alea = graine || 1;
  for (let y = y0; y < y1; y++) {
    const [ligne, source] = [y * l, (y - gy0) * lg - gx0];
    for (let x = x0; x < x1; x++) {
      const q = ligne + x;
      const a = alpha[q]!;
      if (!a) continue;
      const grain = amplitude ? ((alea = (Math.imul(alea, 1664525) + 1013904223) >>> 0) / 2 ** 32 - 0.5) * amplitude : 0;
      const [r, o] = [(source + x) * 3, q * 3];
      for (let c = 0; c < 3; c++) {
        const v = borner(rempli[r + c]! + grain);
        sortie[o + c] = a === 255 ? v : Math.round((p.data[o + c]! * (255 - a) + v * a) / 255);
      }
    }
  }
  return sortie;
};
