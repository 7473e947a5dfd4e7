/**
 * The small working planes of the fusion (one float channel, values 0–1): the copies alignment, exposure
 * estimates and ghost masks are computed on, and the steps every one of them needs (halving, sampling,
 * box blur). They live here, apart, so that alignment, ghosts and the pyramids share one halving filter:
 * a transform estimated on a pyramid built one way and applied to copies built another would be off by
 * the filters' difference. Pure JS: these planes are at most a couple of megapixels; the full-size
 * work is in mertens.ts and deformation.ts. Same on the local and production engines (no model).
 */
import { flottants } from '../parallele';

export interface Plan {
  data: Float32Array;
  largeur: number;
  hauteur: number;
}

/** A plane, its data shared unless given (parallele.ts: the worker reads shared planes without a copy). */
export const plan = (largeur: number, hauteur: number, data: Float32Array = flottants(largeur * hauteur)): Plan => ({ data, largeur, hauteur });

/** Taps of the halving filter, [1 3 3 1] / 8: output i is centred on input 2i + 0.5, so centres map exactly. */
const [BORD, CENTRE] = [1 / 8, 3 / 8];

/**
 * Half the size (rounded down, at least 1), each output the [1 3 3 1]/8 average of the four inputs
 * around its centre, separably, edges repeated. The pyramids of the alignment are built with it, and
 * in centred coordinates a point x at one level is x / 2 at the next.
 */
export const reduireDeMoitie = (p: Plan): Plan => {
  const { data, largeur: l, hauteur: h } = p;
  const [l2, h2] = [Math.max(1, l >> 1), Math.max(1, h >> 1)];
  const lignes = new Float32Array(l2 * h);
  for (let y = 0; y < h; y++) {
    const o = y * l;
    for (let i = 0; i < l2; i++) {
      const x = 2 * i;
      const a = x > 0 ? x - 1 : 0;
      const c = x + 1 < l ? x + 1 : l - 1;
      const d = x + 2 < l ? x + 2 : l - 1;
      lignes[y * l2 + i] = BORD * (data[o + a]! + data[o + d]!) + CENTRE * (data[o + x]! + data[o + c]!);
    }
  }
  const sortie = new Float32Array(l2 * h2);
  for (let j = 0; j < h2; j++) {
    const y = 2 * j;
    const a = Math.max(0, y - 1) * l2;
    const b = y * l2;
    const c = Math.min(h - 1, y + 1) * l2;
    const d = Math.min(h - 1, y + 2) * l2;
    for (let i = 0; i < l2; i++) {
      sortie[j * l2 + i] = BORD * (lignes[a + i]! + lignes[d + i]!) + CENTRE * (lignes[b + i]! + lignes[c + i]!);
    }
  }
  return plan(l2, h2, sortie);
};

/** Bilinear value at (x, y) in pixel coordinates, or NaN outside [0, l − 1] × [0, h − 1]. */
export const echantillon = (p: Plan, x: number, y: number): number => {
  const { data, largeur: l, hauteur: h } = p;
  if (!(x >= 0 && y >= 0 && x <= l - 1 && y <= h - 1)) return NaN;
  const x0 = Math.min(l - 2, Math.floor(x));
  const y0 = Math.min(h - 2, Math.floor(y));
  if (x0 < 0 || y0 < 0) return data[Math.round(y) * l + Math.round(x)]!;
  const fx = x - x0;
  const fy = y - y0;
  const i = y0 * l + x0;
  const haut = data[i]! + (data[i + 1]! - data[i]!) * fx;
  const bas = data[i + l]! + (data[i + l + 1]! - data[i + l]!) * fx;
  return haut + (bas - haut) * fy;
};

/** Mean over a (2r + 1)² square, edges repeated: running sums, rows then columns. */
export const flouCarre = (p: Plan, r: number): Plan => {
  if (r <= 0) return p;
  const { data, largeur: l, hauteur: h } = p;
  const n = 2 * r + 1;
  const tmp = new Float32Array(l * h);
  const ligne = new Float64Array(l + 2 * r + 1);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < l + 2 * r; x++) ligne[x] = data[y * l + Math.min(l - 1, Math.max(0, x - r))]!;
    let s = 0;
    for (let x = 0; x < n; x++) s += ligne[x]!;
    for (let x = 0; x < l; x++) {
      tmp[y * l + x] = s / n;
      s += ligne[x + n]! - ligne[x]!;
    }
  }
  const sortie = new Float32Array(l * h);
  const colonne = new Float64Array(h + 2 * r + 1);
  for (let x = 0; x < l; x++) {
    for (let y = 0; y < h + 2 * r; y++) colonne[y] = tmp[Math.min(h - 1, Math.max(0, y - r)) * l + x]!;
    let s = 0;
    for (let y = 0; y < n; y++) s += colonne[y]!;
    for (let y = 0; y < h; y++) {
      sortie[y * l + x] = s / n;
      s += colonne[y + n]! - colonne[y]!;
    }
  }
  return plan(l, h, sortie);
};

/**
 * Minimum (or maximum) over a (2r + 1)² square, separably, edges cut (r is a few pixels: a plain scan). Along
 * rows, then across them row by row, so that memory is read in order (down columns, a 3000 × 2000 plane took
 * 185 ms instead of 125 at r = 3); the comparison written out twice (through a comparator, half a second more
 * on a 24 MP bracket).
 */
export const extremumCarre = (p: Plan, r: number, sens: 'min' | 'max'): Plan => {
  const { largeur: l, hauteur: h, data } = p;
  const minimum = sens === 'min';
  const lignes = new Float32Array(l * h);
  for (let o = 0; o < l * h; o += l) {
    for (let x = 0; x < l; x++) {
      let m = data[o + x]!;
      const fin = o + Math.min(l - 1, x + r);
      if (minimum) {
        for (let q = o + Math.max(0, x - r); q <= fin; q++) if (data[q]! < m) m = data[q]!;
      } else {
        for (let q = o + Math.max(0, x - r); q <= fin; q++) if (data[q]! > m) m = data[q]!;
      }
      lignes[o + x] = m;
    }
  }
  const sortie = new Float32Array(l * h);
  for (let j = 0; j < h; j++) {
    const o = j * l;
    sortie.set(lignes.subarray(o, o + l), o);
    for (let k = Math.max(0, j - r); k <= Math.min(h - 1, j + r); k++) {
      const q = k * l;
      if (minimum) {
        for (let x = 0; x < l; x++) if (lignes[q + x]! < sortie[o + x]!) sortie[o + x] = lignes[q + x]!;
      } else {
        for (let x = 0; x < l; x++) if (lignes[q + x]! > sortie[o + x]!) sortie[o + x] = lignes[q + x]!;
      }
    }
  }
  return plan(l, h, sortie);
};
