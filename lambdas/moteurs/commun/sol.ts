/**
 * Where the floor is: our own segmentation, the same in both engines (Rekognition gives boxes for
 * objects, none for the floor). Staging furnishes it; the local detector finds furniture standing on it.
 *
 * The floor is seen from the bottom of the frame up, so it is grown from the bottom rows:
 * - its colour is learnt there, robustly (median and spread of the chromaticity, which shading, a
 *   light gradient across the room and the sun's pool from a window barely move); when the bottom rows
 *   show two surfaces (a rug in the middle, boards on both sides) each is grown and the larger one is
 *   the floor: a rug lies within the floor, the floor reaches further;
 * - it grows through small steps only: wood planks' joints and grain pass, strong edges (skirting,
 *   a piece of furniture's outline, the foot of a wall) stop it;
 * - it must stay well below the top of the frame: what reaches it is a wall, a sky or a close-up.
 * Its limits: a floor the colour of the walls (grey concrete under grey render) leaks onto them where
 * no edge separates them; a floor hidden at the bottom of the frame (a rug from edge to edge) gives
 * the rug; outdoors, a lawn, a terrace or snow reads as floor; a patterned tile floor whose steps are
 * stronger than the threshold is found only in patches. Boxes of what stands on the floor are the
 * detector's business, not this module's.
 */
import { copieAnalyse } from './ciel-masque';
import { luminance, type Pixels } from './pixels';

/** Bottom rows where the floor's colour is learnt: a strip of the nearest floor. */
const BANDE_BAS = 0.04;
/** Largest luminance step between neighbours inside the floor (analysis copy): plank joints, not skirting. */
const PAS_MAX = 14;
/** The floor's chromaticity within this many robust spreads of its own, never closer than the first bound nor further than the second. */
const [ECARTS, TOLERANCE_MIN, TOLERANCE_MAX] = [3.5, 0.018, 0.04];
/** Largest change of chromaticity between neighbours where the floor's colour drifts (a sun pool). */
const DERIVE = 0.004;
/** How far, in tolerances, that drift may take the floor from its own colour: a pool, not a wall or a beige rug. */
const DERIVE_MAX = 3;
/** Width of the chromaticity bins in which the bottom strip's main colours are looked for. */
const CASE = 0.01;
/** Luminance within these factors of the floor's median: a light gradient and a window's pool pass. */
const [SOMBRE, CLAIR] = [0.45, 1.7];
/** A floor stops below this share of the height from the top: above is a wall, a sky or a close-up. */
const HAUT_MIN = 0.1;

/** Per pixel of the analysis copy: luminance and two chromaticities (r and b over the sum). */
export interface Mesures {
  L: Float32Array;
  cr: Float32Array;
  cb: Float32Array;
}

export const mesurer = ({ data, largeur, hauteur }: Pixels): Mesures => {
  const n = largeur * hauteur;
  const [L, cr, cb] = [new Float32Array(n), new Float32Array(n), new Float32Array(n)];
  for (let p = 0; p < n; p++) {
    const [r, g, b] = [data[p * 3]!, data[p * 3 + 1]!, data[p * 3 + 2]!];
    const somme = r + g + b + 3;
    L[p] = luminance(r, g, b);
    cr[p] = (r + 1) / somme;
    cb[p] = (b + 1) / somme;
  }
  return { L, cr, cb };
};

const mediane = (valeurs: number[]): number => {
  const tri = [...valeurs].sort((a, b) => a - b);
  return tri[Math.floor(tri.length / 2)] ?? 0;
};

/** A surface's colour: medians and tolerances (robust spread, floored) of its chromaticity, median luminance. */
export interface Modele {
  cr: number;
  cb: number;
  tolCr: number;
  tolCb: number;
  L: number;
}

/**
 * The model of the most common colour among `pixels`: the fullest bin of chromaticity, then the
 * medians and spread of the pixels near it. A median of the whole strip would be the mixture of a rug
 * and the boards, the colour of neither.
 */
export const modeleDe = (m: Mesures, pixels: readonly number[]): Modele => {
  const cases = new Map<number, number>();
  const cle = (p: number) => Math.round(m.cr[p]! / CASE) * 1000 + Math.round(m.cb[p]! / CASE);
  for (const p of pixels) cases.set(cle(p), (cases.get(cle(p)) ?? 0) + 1);
  const pic = [...cases].reduce((a, b) => (b[1] > a[1] ? b : a))[0];
  const [crPic, cbPic] = [Math.floor(pic / 1000) * CASE, (pic % 1000) * CASE];
  const proches = pixels.filter((p) => Math.abs(m.cr[p]! - crPic) <= 2 * CASE && Math.abs(m.cb[p]! - cbPic) <= 2 * CASE);
  const [cr, cb] = [mediane(proches.map((p) => m.cr[p]!)), mediane(proches.map((p) => m.cb[p]!))];
  const ecart = (v: Float32Array, c: number) =>
    Math.min(TOLERANCE_MAX, Math.max(TOLERANCE_MIN, ECARTS * 1.4826 * mediane(proches.map((p) => Math.abs(v[p]! - c)))));
  return { cr, cb, tolCr: ecart(m.cr, cr), tolCb: ecart(m.cb, cb), L: mediane(proches.map((p) => m.L[p]!)) };
};

/** Within `k` tolerances of the surface's colour. */
export const ressemble = (m: Mesures, p: number, s: Modele, k = 1): boolean =>
  Math.abs(m.cr[p]! - s.cr) <= k * s.tolCr && Math.abs(m.cb[p]! - s.cb) <= k * s.tolCb && m.L[p]! >= SOMBRE * s.L && m.L[p]! <= CLAIR * s.L;

/**
 * A step the floor can take from p to q: small in luminance, and either of the floor's colour or, up to
 * DERIVE_MAX tolerances from it, of almost p's own colour (a sun pool or a lamp's warm light shifts the colour
 * gradually; an edge changes it at once).
 */
const pasDeSol = (m: Mesures, p: number, q: number, s: Modele): boolean =>
  Math.abs(m.L[q]! - m.L[p]!) <= PAS_MAX &&
  (ressemble(m, q, s) || (ressemble(m, q, s, DERIVE_MAX) && Math.abs(m.cr[q]! - m.cr[p]!) <= DERIVE && Math.abs(m.cb[q]! - m.cb[p]!) <= DERIVE));

/**
 * The surfaces the bottom strip shows, as colour models: the main one, and a second one if a good
 * share of the strip is clearly another colour (a rug between boards).
 */
const surfacesDuBas = (m: Mesures, l: number, h: number): Modele[] => {
  const debut = Math.min(h - 1, Math.floor(h * (1 - BANDE_BAS)));
  const bande = Array.from({ length: (h - debut) * l }, (_, i) => debut * l + i);
  const premiere = modeleDe(m, bande);
  const autres = bande.filter((p) => !ressemble(m, p, premiere));
  if (autres.length < 0.15 * bande.length) return [premiere];
  return [premiere, modeleDe(m, autres)];
};

/** Grows a surface from the bottom row through pixels of its colour, by small steps only. */
const croitre = (m: Mesures, l: number, h: number, s: Modele): Uint8Array => {
  const sol = new Uint8Array(l * h);
  const pile: number[] = [];
  for (let x = 0; x < l; x++) {
    const p = (h - 1) * l + x;
    if (ressemble(m, p, s)) ((sol[p] = 1), pile.push(p));
  }
  while (pile.length) {
    const p = pile.pop()!;
    const [x, y] = [p % l, (p / l) | 0];
    for (const q of [x > 0 ? p - 1 : -1, x < l - 1 ? p + 1 : -1, y > 0 ? p - l : -1, y < h - 1 ? p + l : -1]) {
      if (q < 0 || sol[q] || !pasDeSol(m, p, q, s)) continue;
      sol[q] = 1;
      pile.push(q);
    }
  }
  return sol;
};

const aire = (masque: Uint8Array): number => masque.reduce((a, v) => a + v, 0);

/**
 * Fills the floor's small holes (a joint darker than the threshold, a knot, a speck of noise): holes
 * not reaching the frame's edge and under `max` pixels. Furniture is a larger hole and stays one.
 */
const boucherTrous = (masque: Uint8Array, l: number, h: number, max: number): Uint8Array => {
  const sortie = Uint8Array.from(masque);
  const vu = new Uint8Array(l * h);
  for (let depart = 0; depart < l * h; depart++) {
    if (masque[depart] || vu[depart]) continue;
    const trou = [depart];
    let bord = false;
    vu[depart] = 1;
    for (let i = 0; i < trou.length; i++) {
      const p = trou[i]!;
      const [x, y] = [p % l, (p / l) | 0];
      if (x === 0 || y === 0 || x === l - 1 || y === h - 1) bord = true;
      for (const q of [x > 0 ? p - 1 : -1, x < l - 1 ? p + 1 : -1, y > 0 ? p - l : -1, y < h - 1 ? p + l : -1]) {
        if (q < 0 || vu[q] || masque[q]) continue;
        vu[q] = 1;
        trou.push(q);
      }
    }
    if (!bord && trou.length <= max) for (const p of trou) sortie[p] = 1;
  }
  return sortie;
};

/** The floor on the analysis copy (1 = floor), with the copy itself; all zero when there is none. */
export const trouverSol = async (photo: Pixels): Promise<{ analyse: Pixels; sol: Uint8Array }> => {
  const analyse = await copieAnalyse(photo);
  return { analyse, sol: solAnalyse(analyse) };
};

/** The floor (1 = floor) on a copy made by `copieAnalyse`: outdoors, the paving, terrace or lawn in front. */
export const solAnalyse = (analyse: Pixels): Uint8Array => {
  const { largeur: l, hauteur: h } = analyse;
  const m = mesurer(analyse);
  // Seen from below: a region that climbs to the top of the frame is a wall or a sky, not a floor.
  const haut = Math.floor(h * HAUT_MIN) * l;
  const candidats = surfacesDuBas(m, l, h)
    .map((s) => croitre(m, l, h, s))
    .filter((c) => !c.subarray(0, haut).some((v) => v));
  if (!candidats.length) return new Uint8Array(l * h);
  const sol = candidats.reduce((a, b) => (aire(b) > aire(a) ? b : a));
  return boucherTrous(sol, l, h, Math.round(l * h * 0.001));
};
