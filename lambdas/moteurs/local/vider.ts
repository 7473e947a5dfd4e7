/**
 * The vider preview: the furniture and clutter found (the zone of commun/zones.ts) filled with the
 * room's own surfaces continued from around them, composited through the zone's feathered mask as
 * production composites the model's answer.
 */
import sharp from 'sharp';
import { recomposer } from '../commun/masques';
import { depuisPixels, type Pixels } from '../commun/pixels';
import type { ZoneOutil } from '../commun/zones';
import { borner } from './couleurs';
import { remplirParMotifs } from './remplissage';
import { trouverSol } from '../commun/sol';

/**
 * Long edge of the copy the vider preview fills: its light is smooth and its grain a preview's, so more
 * pixels would cost time (the patch search grows with the hole's area) and show nothing more.
 */
const COTE_REMPLISSAGE = 480;

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

/** Blur (sigma, pixels of the small copy) whose difference with the photo is the surfaces' grain. */
const FLOU_DETAIL = 2.5;
/** How much of the grain is copied, and its bound (levels): texture, not the lines of other objects. */
const [GAIN_DETAIL, DETAIL_MAX] = [0.7, 12];
/** A step from the blur above this (levels, any channel) is an object's edge, not a surface's grain. */
const ARETE = 24;

/**
 * 1 where a pixel of the small copy is floor or below the floor's top in its column (the floor hidden
 * by furniture), 0 elsewhere (walls): the surface each filled pixel takes its grain from.
 */
const surfaces = async (p: Pixels, l: number, h: number): Promise<Uint8Array> => {
  const { analyse, sol } = await trouverSol(p);
  const [la, ha] = [analyse.largeur, analyse.hauteur];
  const haut = new Float64Array(la).fill(Infinity);
  for (let x = 0; x < la; x++)
    for (let y = 0; y < ha; y++)
      if (sol[y * la + x]) {
        haut[x] = y / ha;
        break;
      }
  // A column without floor in view (a sofa across it) takes the nearest column's.
  for (let x = 0; x < la; x++)
    if (haut[x] === Infinity) {
      let d = 1;
      while (d < la && (haut[x - d] ?? Infinity) === Infinity && (haut[x + d] ?? Infinity) === Infinity) d++;
      haut[x] = Math.min(haut[x - d] ?? Infinity, haut[x + d] ?? Infinity);
    }
  const classes = new Uint8Array(l * h);
  for (let y = 0; y < h; y++) for (let x = 0; x < l; x++) classes[y * l + x] = y / h >= haut[Math.min(la - 1, Math.floor((x / l) * la))]! ? 1 : 0;
  return classes;
};

/**
 * What is behind furniture is, for a preview, the room's own surfaces continued: the masked pixels are
 * filled from the known ones around them on a small copy (pull-push), scaled back, with a seeded grain
 * so the fill does not look painted, and blended in through the feathered mask. Nothing of the covered
 * pixels is used: no ghost of the furniture.
 */
export const apercuVider = async (p: Pixels, zone: ZoneOutil, graine: number): Promise<Buffer> => {
  const { largeur: l, hauteur: h } = p;
  const echelle = Math.min(1, COTE_REMPLISSAGE / Math.max(l, h));
  const [lp, hp] = [Math.max(1, Math.round(l * echelle)), Math.max(1, Math.round(h * echelle))];
  const petit = await depuisPixels(p).resize(lp, hp, { fit: 'fill' }).raw().toBuffer();
  const masque = await sharp(zone.masque, { raw: { width: l, height: h, channels: 1 } })
    .resize(lp, hp, { fit: 'fill' })
    .extractChannel(0)
    .raw()
    .toBuffer();
  // A pixel of the small copy half covered by the mask carries some furniture: treated as unknown.
  const connu = Uint8Array.from(masque, (m) => (m > 0 ? 0 : 1));
  // The light: the surfaces around, continued smoothly (pull-push)…
  const lisse = Float32Array.from(petit);
  tirerPousser(lisse, Float32Array.from(connu), lp, hp);
  // …and the grain: the floor's and the walls' own detail (the photo less its blur), copied patch by
  // patch from the same surface (floor under the floor line, wall above).
  const flou = await sharp(petit, { raw: { width: lp, height: hp, channels: 3 } })
    .blur(FLOU_DETAIL)
    .raw()
    .toBuffer();
  // Softened and bounded: a strong edge elsewhere (a door's frame) must not come back as a ridge.
  const detail = Uint8Array.from(petit, (v, i) => 128 + Math.max(-DETAIL_MAX, Math.min(DETAIL_MAX, Math.round(GAIN_DETAIL * (v - flou[i]!)))));
  // An object's edge (the grain's strongest steps) is no texture to copy: no patch is taken across one.
  const aretes = Uint8Array.from(connu, (_, q) => ([0, 1, 2].some((c) => Math.abs(petit[q * 3 + c]! - flou[q * 3 + c]!) > ARETE) ? 1 : 0));
  remplirParMotifs(detail, Uint8Array.from(connu), lp, hp, graine, await surfaces(p, lp, hp), aretes);
  const data = Uint8Array.from(lisse, (v, i) => (connu[(i / 3) | 0] ? petit[i]! : borner(v + detail[i]! - 128)));
  const rempli = await sharp(Buffer.from(data), { raw: { width: lp, height: hp, channels: 3 } })
    .resize(l, h, { fit: 'fill', kernel: 'cubic' })
    .raw()
    .toBuffer();
  let alea = graine || 1;
  const bruit = () => ((alea = (Math.imul(alea, 1664525) + 1013904223) >>> 0) / 2 ** 32 - 0.5) * 6;
  for (let q = 0; q < zone.masque.length; q++) {
    if (!zone.masque[q]) continue;
    const grain = bruit();
    for (let c = 0; c < 3; c++) rempli[q * 3 + c] = borner(rempli[q * 3 + c]! + grain);
  }
  return recomposer(p, { data: rempli, largeur: l, hauteur: h }, zone.alpha);
};
