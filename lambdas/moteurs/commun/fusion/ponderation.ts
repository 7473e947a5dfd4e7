/**
 * The weights of the merge: for each photo and each pixel (of a copy at a quarter of full size), how much of the result
 * it makes. Mertens's three measures, contrast (Laplacian of luminance), saturation (spread of R, G, B)
 * and well-exposedness, multiplied; the third measured against the reference rather than against
 * mid-grey, because of what listing photos need:
 *
 * - Mertens's well-exposedness is a Gaussian around mid-grey (σ 0.2). Measured on brackets made from our
 *   real photos, it pulled every bright surface towards grey: a sunny facade at 243 came out at 168, white
 *   tiles and walls grey, a clear sky a dull teal, because the dark frame's rendering of them sits nearer
 *   mid-grey. A listing's white wall must stay white.
 * - The reference is the metered exposure, right wherever it neither clips nor sinks into the shadows.
 *   Its confidence is c = h(max channel) · s(luminance), h falling from 1 at 0.94 to 0 at 0.995
 *   (highlights losing a channel; white tiles at 0.93 stay the reference's), s rising from 0 at 0.02 to 1
 *   at 0.3 (shadows, where grain and JPEG blocks take over and a listing wants light: with 0.18 instead,
 *   a drawn room's corner came out at 13 of 255 where the bright frame gives 27). The reference weighs c;
 *   every other photo weighs its own h · s times (1 − c), times a preference for exposures near the
 *   reference's (Gaussian of the EV gap, σ 1.5 EV). So a window the reference blows comes from the darker
 *   photos that hold it, a corner it leaves dark from the brighter ones, and everything else stays the
 *   metered photo's own, while the Laplacian pyramid blends the seams.
 * - Contrast and saturation keep Mertens's role among the photos that do contribute (the detailed, the
 *   coloured), with floors (grain's level on the small copy) so that a flat wall or sky falls back to exposure.
 * A small floor under every weight keeps a pixel bad in every photo (a lamp, blown in all) an average.
 * Same on the local and production engines (no model).
 */
import type { Image } from './deformation';
import { lisse } from '../lisse';
import { extremumCarre, plan, type Plan } from './plan';

/** Floors under contrast and saturation (values 0–1): what grain alone reaches on the small copy. */
const PLANCHER_CONTRASTE = 0.004;
const PLANCHER_SATURATION = 0.02;
/** Highlights: confidence falls from 1 to 0 between these (max channel); shadows: rises between these (luminance). */
const HAUTES = [0.94, 0.995] as const;
const BASSES = [0.02, 0.3] as const;
/** Preference for exposures near the reference's: Gaussian of the EV gap. */
const SIGMA_EV = 1.5;
/** Under every exposure weight. */
const PLANCHER = 1e-3;
/**
 * A photo's values are filled before its pyramid (pyramide.ts, `remplir`) where its confidence is under
 * 1/FIABLE, gradually: there it weighs next to nothing, yet its values would reach the coarse levels
 * (a blown window's white washing out the view the darker photo gives). Filling where it still weighs
 * (a confidence of 0.07 in a dark corner) diluted the brighter photo's detail there: 4.0 levels of a
 * corner's stripes kept of 7.0, against 6.5 with this rule.
 */
const FIABLE = 5;

/** h for every integer value 0–max of the largest channel. */
const tablesHautes = new Map<number, Float32Array>();
const hautes = (max: number): Float32Array => {
  let t = tablesHautes.get(max);
  if (!t) tablesHautes.set(max, (t = Float32Array.from({ length: max + 1 }, (_, v) => 1 - lisse(HAUTES[0], HAUTES[1], v / max))));
  return t;
};

/** s at 1024 steps of luminance 0–1. */
const BAS = Float32Array.from({ length: 1025 }, (_, i) => lisse(BASSES[0], BASSES[1], i / 1024));

/**
 * Where the reference is trusted (confidence over one half), on an analysis copy (values 0–1): the part of
 * the result that must be the reference's own, which the structure check compares (index.ts). `apport` as
 * for `ponderer`, at the copy's size.
 */
export const regionDeConfiance = (rouge: Plan, vert: Plan, bleu: Plan, luminance: Plan, apport: Plan | null): Uint8Array => {
  const n = luminance.data.length;
  const region = new Uint8Array(n);
  for (let p = 0; p < n; p++) {
    const max = Math.max(rouge.data[p]!, vert.data[p]!, bleu.data[p]!);
    const hautes = Math.max(1 - lisse(HAUTES[0], HAUTES[1], max), 1 - (apport?.data[p] ?? 0));
    const c = hautes * lisse(BASSES[0], BASSES[1], luminance.data[p]!);
    region[p] = c > 0.5 ? 1 : 0;
  }
  return region;
};

/** Contrast (Laplacian of the luminance) × saturation (spread of R, G, B), floored, per pixel. */
const detailEtCouleur = (d: Image, yd: Float32Array, p: number, x: number, haut: number, bas: number): number => {
  const { largeur: l, data } = d;
  const contraste = Math.abs(4 * yd[p]! - yd[haut + x]! - yd[bas + x]! - yd[x > 0 ? p - 1 : p]! - yd[x < l - 1 ? p + 1 : p]!);
  const i = p * 3;
  const r = data[i]!;
  const v = data[i + 1]!;
  const b = data[i + 2]!;
  const m = (r + v + b) / 3;
  const saturation = Math.sqrt(((r - m) * (r - m) + (v - m) * (v - m) + (b - m) * (b - m)) / 3) / d.max;
  return (contraste + PLANCHER_CONTRASTE) * (saturation + PLANCHER_SATURATION);
};

/**
 * Each pixel's exposure confidence c = h · s. The reference's (`reference`) h is raised to 1 − apport:
 * its highlights give way only where a darker photo shows more (no `apport`: none is darker).
 */
const confiances = (d: Image, yd: Float32Array, reference: boolean, apport: Float32Array | null): Float32Array => {
  const { data, max } = d;
  const c = new Float32Array(yd.length);
  const hh = hautes(max);
  for (let p = 0, i = 0; p < c.length; p++, i += 3) {
    const r = data[i]!;
    const v = data[i + 1]!;
    const b = data[i + 2]!;
    // yd is 0–1: the table's index by truncation of y·1024 + ½, no Math call.
    let hp = hh[r > v ? (r > b ? r : b) : v > b ? v : b]!;
    if (reference) hp = apport ? Math.max(hp, 1 - apport[p]!) : 1;
    c[p] = hp * BAS[(yd[p]! * 1024 + 0.5) | 0]!;
  }
  return c;
};

/**
 * The weights of one photo's small copy `d` (its luminance `y`), its exposure confidence c = h·s, and
 * what of it to keep before its pyramid (pyramide.ts, `remplir`): min(1, 5c), its values where its weight
 * is next to nothing (a confidence under a fifth: blown, or deep in the dark) being filled from around.
 * `confianceRef`: null for the reference itself (whose confidence is then returned); for the others, the
 * reference's, and `ev` their gap to it. The reference's highlights lose trust only where a darker photo
 * shows more than its white (apport.ts): `apport` (at `d`'s size; null: no darker photo, nothing to gain).
 */
export const ponderer = (
  d: Image,
  y: Plan,
  confianceRef: Float32Array | null,
  ev: number,
  apport: Plan | null = null,
): { poids: Plan; confiance: Float32Array | null; fiabilite: Float32Array } => {
  const { largeur: l, hauteur: h } = d;
  const yd = y.data;
  const propre = confiances(d, yd, !confianceRef, apport?.data ?? null);
  // The reference's, eroded: a thin line it exposes well inside what it blows (wires across a blown sky, a
  // branch before it) is not trusted alone; trusted, it came out lighter than the sky the dark photo gave
  // around it, white wires where the photo shows dark ones.
  const c = confianceRef ? propre : extremumCarre(plan(l, h, propre), Math.max(1, Math.round(Math.max(l, h) / 1000)), 'min').data;
  const poids = new Float32Array(l * h);
  const fiabilite = new Float32Array(l * h);
  const preference = Math.exp(-(ev * ev) / (2 * SIGMA_EV * SIGMA_EV));
  for (let j = 0; j < h; j++) {
    const haut = Math.max(0, j - 1) * l;
    const bas = Math.min(h - 1, j + 1) * l;
    for (let x = 0; x < l; x++) {
      const p = j * l + x;
      const cp = c[p]!;
      fiabilite[p] = cp * FIABLE < 1 ? cp * FIABLE : 1;
      const exposition = confianceRef ? (cp + PLANCHER) * (1 - confianceRef[p]! + PLANCHER) * preference : cp + PLANCHER;
      poids[p] = detailEtCouleur(d, yd, p, x, haut, bas) * exposition + 1e-12;
    }
  }
  return { poids: plan(l, h, poids), confiance: confianceRef ? null : c, fiabilite };
};
