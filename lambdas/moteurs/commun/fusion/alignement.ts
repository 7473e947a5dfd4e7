/**
 * Handheld brackets aligned to one another before they are merged: a frame off by half a pixel doubles
 * every edge of the result. Estimated on small luminance copies (long side at most 1024 px, a sixth of a
 * 24 MP photo's), then carried to the full size (deformation.ts): the estimate is within a few hundredths
 * of a pixel at that size (measured), so a tenth or two at full size, in a few hundred milliseconds a
 * photo instead of seconds.
 *
 * How, and why:
 * - The two photos differ in exposure, so they are compared through the intensity mapping of one onto
 *   the other (correspondance.ts, no response curve assumed), and pixels clipped in either (a blown window
 *   in one, a black corner in the other) are left out: they say nothing of where an edge is.
 * - Coarse to fine on a pyramid: an exhaustive search of shift and rotation on a copy 75 to 150 px wide
 *   (up to 7 % of the width and 2.5°, the most a hand moves between frames of a bracket, with margin),
 *   then Gauss–Newton (Lucas–Kanade, inverse compositional, a similarity: shift, rotation, scale) at each
 *   finer level. Inverse compositional: the reference's gradients are computed once per level; only the
 *   other photo is resampled at each step.
 * - Robust: residuals are weighted by Huber's rule for the first two steps of a level, then by Tukey's
 *   biweight (4.685 robust standard deviations), which gives no weight at all to what moved between frames
 *   (a person, a car): with Huber's alone a box carried across a 480 px test frame still pulled the scale
 *   by 0.35 %, 0.8 px at the corners. Only the reference's textured pixels are used (a flat wall
 *   constrains nothing).
 * - Judged: the normalised correlation of the two photos once aligned, on a copy about 200 px wide. Below
 *   SCORE_MIN the photos are not of one view, and the caller refuses them (`vues_differentes`).
 * Same on the local and production engines (no model).
 */
import { apparier, apparierPaires, appliquerTout } from './correspondance';
import { echantillon, plan, reduireDeMoitie, type Plan } from './plan';
import { composer, IDENTITE, inverser, similitude, type Transformation } from './transformation';

/** Below this correlation once aligned, two photos are not of one view (same view, measured: 0.8 and more). */
export const SCORE_MIN = 0.5;
/** Coarse search: shifts up to this share of the width, rotations up to this (degrees), in these steps. */
const DECALAGE_MAX = 0.07;
const ROTATION_MAX = 2.5;
const PAS_ROTATION = 2.5;
/** Width of the coarse search's level, and of the level the score is measured on. */
const LARGEUR_RECHERCHE = 100;
const LARGEUR_SCORE = 200;
/** Pixels clipped in either photo say nothing of where an edge is. */
const [SOMBRE, CLAIR] = [0.02, 0.98];
/** Gauss–Newton: at most this many steps per level, stopped when no corner moves by more than ARRET px. */
const ITERATIONS = 12;
const ITERATIONS_FIN = 4;
const ARRET = 0.004;
/**
 * At most this many of the reference's textured pixels per level, fewer on the finest (where the
 * estimate is already within a tenth of a pixel and each step costs the most): the error of the mean
 * falls as 1/√n, so 40 000 points hold it at hundredths of a pixel.
 */
const POINTS_MAX = 60_000;
const POINTS_FIN = 40_000;

export interface Alignement {
  /** From the reference's pixel to the photo's, in pixels of the copies given. */
  transformation: Transformation;
  /** Normalised correlation once aligned (1: identical up to exposure). */
  score: number;
  /** Share of the reference the photo covers once aligned. */
  recouvrement: number;
}

const pyramide = (p: Plan): Plan[] => {
  const niveaux = [p];
  while (niveaux.at(-1)!.largeur > LARGEUR_RECHERCHE * 1.5 && niveaux.at(-1)!.hauteur > 24) niveaux.push(reduireDeMoitie(niveaux.at(-1)!));
  return niveaux;
};

const valide = (v: number): boolean => v > SOMBRE && v < CLAIR;

/** Pairs (reference value, photo value) over the overlap, at most `n` of them on a regular grid. */
const paires = (ref: Plan, photo: Plan, t: Transformation, n = 40_000): { r: Float32Array; p: Float32Array } => {
  const { largeur: l, hauteur: h } = ref;
  const pas = Math.max(1, Math.floor(Math.sqrt((l * h) / n)));
  const [r, p] = [[] as number[], [] as number[]];
  const [cx, cy, px, py] = [(l - 1) / 2, (h - 1) / 2, (photo.largeur - 1) / 2, (photo.hauteur - 1) / 2];
  for (let y = 0; y < h; y += pas) {
    for (let x = 0; x < l; x += pas) {
      const u = x - cx;
      const v = y - cy;
      const valeur = echantillon(photo, t.a * u + t.b * v + t.tx + px, t.c * u + t.d * v + t.ty + py);
      if (Number.isNaN(valeur)) continue;
      r.push(ref.data[y * l + x]!);
      p.push(valeur);
    }
  }
  return { r: Float32Array.from(r), p: Float32Array.from(p) };
};

/** The photo's values mapped into the reference's, over the overlap that `t` gives. */
const dansLaReference = (ref: Plan, photo: Plan, t: Transformation): Plan => {
  const { r, p } = paires(ref, photo, t);
  return plan(photo.largeur, photo.hauteur, appliquerTout(apparierPaires(p, r), photo.data));
};

/**
 * Normalised correlation of the reference and the (mapped) photo under `t`, over pixels valid in both,
 * every `pas` pixels; with the share of the reference the photo covers.
 */
const correlation = (ref: Plan, brute: Plan, mappee: Plan, t: Transformation, pas = 1): { score: number; recouvrement: number } => {
  const { largeur: l, hauteur: h } = ref;
  const [cx, cy, px, py] = [(l - 1) / 2, (h - 1) / 2, (brute.largeur - 1) / 2, (brute.hauteur - 1) / 2];
  let [n, dedans, sr, sp, srr, spp, srp] = [0, 0, 0, 0, 0, 0, 0];
  for (let y = 0; y < h; y += pas) {
    for (let x = 0; x < l; x += pas) {
      const u = x - cx;
      const v = y - cy;
      const X = t.a * u + t.b * v + t.tx + px;
      const Y = t.c * u + t.d * v + t.ty + py;
      const b = echantillon(brute, X, Y);
      if (Number.isNaN(b)) continue;
      dedans++;
      const r = ref.data[y * l + x]!;
      if (!valide(r) || !valide(b)) continue;
      const m = echantillon(mappee, X, Y);
      ((n += 1), (sr += r), (sp += m), (srr += r * r), (spp += m * m), (srp += r * m));
    }
  }
  const total = Math.ceil(l / pas) * Math.ceil(h / pas);
  if (n < 50) return { score: 0, recouvrement: dedans / total };
  const cov = srp / n - (sr / n) * (sp / n);
  const [vr, vp] = [srr / n - (sr / n) ** 2, spp / n - (sp / n) ** 2];
  return { score: vr > 0 && vp > 0 ? cov / Math.sqrt(vr * vp) : 0, recouvrement: dedans / total };
};

/**
 * Correlation for the coarse search: nearest neighbour, every other pixel, for speed (the copy is about
 * 100 px wide and smooth; Gauss–Newton does the sub-pixel part).
 */
const correlationGrossiere = (ref: Plan, brute: Plan, mappee: Plan, t: Transformation): { score: number; recouvrement: number } => {
  const { largeur: l, hauteur: h } = ref;
  const [cx, cy] = [(l - 1) / 2, (h - 1) / 2];
  let [n, dedans, total, sr, sp, srr, spp, srp] = [0, 0, 0, 0, 0, 0, 0, 0];
  for (let y = 0; y < h; y += 2) {
    for (let x = 0; x < l; x += 2) {
      total++;
      const u = x - cx;
      const v = y - cy;
      const X = Math.round(t.a * u + t.b * v + t.tx + cx);
      const Y = Math.round(t.c * u + t.d * v + t.ty + cy);
      if (X < 0 || Y < 0 || X >= l || Y >= h) continue;
      dedans++;
      const r = ref.data[y * l + x]!;
      const j = Y * l + X;
      if (!valide(r) || !valide(brute.data[j]!)) continue;
      const m = mappee.data[j]!;
      ((n += 1), (sr += r), (sp += m), (srr += r * r), (spp += m * m), (srp += r * m));
    }
  }
  if (n < 20) return { score: 0, recouvrement: dedans / total };
  const cov = srp / n - (sr / n) * (sp / n);
  const [vr, vp] = [srr / n - (sr / n) ** 2, spp / n - (sp / n) ** 2];
  return { score: vr > 0 && vp > 0 ? cov / Math.sqrt(vr * vp) : 0, recouvrement: dedans / total };
};

/** Exhaustive search of shift and rotation on the coarsest level: the best correlation covering half the frame at least. */
const rechercher = (ref: Plan, photo: Plan): Transformation => {
  const mappee = plan(photo.largeur, photo.hauteur, appliquerTout(apparier(photo.data, ref.data), photo.data));
  const rayon = Math.ceil(DECALAGE_MAX * ref.largeur);
  let [meilleure, meilleurScore] = [IDENTITE, -Infinity];
  for (let angle = -ROTATION_MAX; angle <= ROTATION_MAX + 1e-9; angle += PAS_ROTATION) {
    for (let ty = -rayon; ty <= rayon; ty++) {
      for (let tx = -rayon; tx <= rayon; tx++) {
        const t = similitude((angle * Math.PI) / 180, 1, tx, ty);
        const { score, recouvrement } = correlationGrossiere(ref, photo, mappee, t);
        if (recouvrement >= 0.5 && score > meilleurScore) [meilleure, meilleurScore] = [t, score];
      }
    }
  }
  return meilleure;
};

/** The reference's textured pixels at one level: centred coordinates, value, and steepest-descent images. */
interface Points {
  n: number;
  x: Float32Array;
  y: Float32Array;
  t: Float32Array;
  /** 4 per point: ∇T·∂W/∂p for p = (scale−1, rotation, tx, ty). */
  sd: Float64Array;
}

/** The gradient above which a share `part` of the values lie (histogram of 0–2 in 4000 bins). */
const seuilDesForts = (forces: Float32Array, n: number, part: number): number => {
  const bins = new Uint32Array(4001);
  for (let i = 0; i < n; i++) bins[Math.min(4000, Math.floor(forces[i]! * 2000))]!++;
  let cumul = 0;
  for (let b = 4000; b >= 0; b--) if ((cumul += bins[b]!) >= n * part) return b / 2000;
  return 0;
};

/**
 * The textured half of the reference's valid pixels (at most `max`, on a regular grid of every `pas`-th
 * pixel so that a 1.5 MP level is not scanned whole for 60 000 points).
 */
const points = (ref: Plan, max: number): Points => {
  const { data, largeur: l, hauteur: h } = ref;
  const pas = Math.max(1, Math.floor(Math.sqrt((l * h) / (8 * max))));
  const forces = new Float32Array(Math.ceil(l / pas) * Math.ceil(h / pas));
  let n = 0;
  for (let y = 1; y < h - 1; y += pas) {
    for (let x = 1; x < l - 1; x += pas) {
      const i = y * l + x;
      if (valide(data[i]!)) forces[n++] = Math.abs(data[i + 1]! - data[i - 1]!) + Math.abs(data[i + l]! - data[i - l]!);
    }
  }
  // The textured half at most, and a floor under which a gradient is grain, not an edge.
  const seuil = Math.max(0.004, seuilDesForts(forces, n, 0.5));
  let retenus = 0;
  for (let i = 0; i < n; i++) if (forces[i]! >= seuil) retenus++;
  // Every `saut`-th of them, spread over the whole frame (a rotation needs points far apart).
  const saut = Math.max(1, retenus / max);
  const [cx, cy] = [(l - 1) / 2, (h - 1) / 2];
  const pts: Points = { n: 0, x: new Float32Array(max), y: new Float32Array(max), t: new Float32Array(max), sd: new Float64Array(max * 4) };
  let compte = 0;
  for (let y = 1; y < h - 1; y += pas) {
    for (let x = 1; x < l - 1; x += pas) {
      const i = y * l + x;
      if (!valide(data[i]!)) continue;
      const gx = (data[i + 1]! - data[i - 1]!) / 2;
      const gy = (data[i + l]! - data[i - l]!) / 2;
      if ((Math.abs(gx) + Math.abs(gy)) * 2 < seuil || compte++ % saut >= 1 || pts.n >= max) continue;
      const u = x - cx;
      const v = y - cy;
      const k = pts.n++;
      ((pts.x[k] = u), (pts.y[k] = v), (pts.t[k] = data[i]!));
      ((pts.sd[k * 4] = gx * u + gy * v), (pts.sd[k * 4 + 1] = -gx * v + gy * u), (pts.sd[k * 4 + 2] = gx), (pts.sd[k * 4 + 3] = gy));
    }
  }
  return pts;
};

/** Median of |r| from a histogram of 0–0.5 in 2000 bins: the robust scale of one step. */
const medianeAbsolue = (residus: Float32Array, n: number): number => {
  const bins = new Uint32Array(2001);
  for (let i = 0; i < n; i++) bins[Math.min(2000, Math.floor(Math.abs(residus[i]!) * 4000))]!++;
  let cumul = 0;
  for (let b = 0; b <= 2000; b++) if ((cumul += bins[b]!) >= n / 2) return (b + 0.5) / 4000;
  return 0.5;
};

/** Solves the 4 × 4 symmetric system H·x = g (Gaussian elimination with partial pivoting); null if singular. */
const resoudre = (H: Float64Array, g: Float64Array): Float64Array | null => {
  const m = Array.from({ length: 4 }, (_, i) => [H[i * 4]!, H[i * 4 + 1]!, H[i * 4 + 2]!, H[i * 4 + 3]!, g[i]!]);
  for (let c = 0; c < 4; c++) {
    let pivot = c;
    for (let r = c + 1; r < 4; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[pivot]![c]!)) pivot = r;
    [m[c], m[pivot]] = [m[pivot]!, m[c]!];
    const p = m[c]![c]!;
    if (Math.abs(p) < 1e-12) return null;
    for (let r = 0; r < 4; r++) {
      if (r === c) continue;
      const f = m[r]![c]! / p;
      for (let k = c; k < 5; k++) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  return Float64Array.from({ length: 4 }, (_, i) => m[i]![4]! / m[i]![i]!);
};

/** One Gauss–Newton step: the update Δp, or null when too few points still overlap. */
const etape = (pts: Points, brute: Plan, mappee: Plan, t: Transformation, residus: Float32Array, indices: Int32Array, tukey: boolean): Float64Array | null => {
  const [px, py] = [(brute.largeur - 1) / 2, (brute.hauteur - 1) / 2];
  let n = 0;
  const { largeur: l, hauteur: h } = brute;
  const [B, M] = [brute.data, mappee.data];
  for (let i = 0; i < pts.n; i++) {
    const u = pts.x[i]!;
    const v = pts.y[i]!;
    const X = t.a * u + t.b * v + t.tx + px;
    const Y = t.c * u + t.d * v + t.ty + py;
    const x0 = Math.floor(X);
    const y0 = Math.floor(Y);
    if (x0 < 0 || y0 < 0 || x0 >= l - 1 || y0 >= h - 1) continue;
    const fx = X - x0;
    const fy = Y - y0;
    const j = y0 * l + x0;
    const w00 = (1 - fx) * (1 - fy);
    const w10 = fx * (1 - fy);
    const w01 = (1 - fx) * fy;
    const w11 = fx * fy;
    const b = w00 * B[j]! + w10 * B[j + 1]! + w01 * B[j + l]! + w11 * B[j + l + 1]!;
    if (!valide(b)) continue;
    residus[n] = w00 * M[j]! + w10 * M[j + 1]! + w01 * M[j + l]! + w11 * M[j + l + 1]! - pts.t[i]!;
    indices[n++] = i;
  }
  if (n < 30) return null;
  const sigma = Math.max(1e-4, 1.4826 * medianeAbsolue(residus, n));
  const k = (tukey ? 4.685 : 1.345) * sigma;
  const [H, g] = [new Float64Array(16), new Float64Array(4)];
  for (let j = 0; j < n; j++) {
    const r = residus[j]!;
    const u = r / k;
    const w = tukey ? (Math.abs(u) < 1 ? (1 - u * u) * (1 - u * u) : 0) : Math.abs(r) <= k ? 1 : k / Math.abs(r);
    const o = indices[j]! * 4;
    for (let a = 0; a < 4; a++) {
      const sa = pts.sd[o + a]! * w;
      g[a]! += sa * r;
      for (let b = a; b < 4; b++) H[a * 4 + b]! += sa * pts.sd[o + b]!;
    }
  }
  for (let a = 0; a < 4; a++) for (let b = 0; b < a; b++) H[a * 4 + b] = H[b * 4 + a]!;
  return resoudre(H, g);
};

/** Gauss–Newton at one level, from `t`. */
const affiner = (ref: Plan, photo: Plan, t: Transformation, finesse: number): Transformation => {
  const mappee = dansLaReference(ref, photo, t);
  const pts = points(ref, finesse === 0 ? POINTS_FIN : POINTS_MAX);
  const [residus, indices] = [new Float32Array(pts.n), new Int32Array(pts.n)];
  const [l, h] = [ref.largeur, ref.hauteur];
  let courante = t;
  // The finest level starts within a tenth of a pixel of the answer: a few steps finish it.
  for (let i = 0; i < (finesse === 0 ? ITERATIONS_FIN : ITERATIONS); i++) {
    // Huber's weights for the first two steps (they converge from afar), Tukey's after: what moved gets no weight at all.
    const d = etape(pts, photo, mappee, courante, residus, indices, i >= 2);
    if (!d) break;
    const pas: Transformation = { a: 1 + d[0]!, b: -d[1]!, c: d[1]!, d: 1 + d[0]!, tx: d[2]!, ty: d[3]! };
    courante = composer(courante, inverser(pas));
    if (i >= 2 && Math.max(Math.abs(d[0]!) * (l + h), Math.abs(d[1]!) * (l + h), Math.abs(d[2]!), Math.abs(d[3]!)) < ARRET) break;
  }
  return courante;
};

/**
 * Where each pixel of `ref` lies in `photo` (two luminance copies of one size, values 0–1): coarse
 * search, then refinement up to the copies' own size, then the score.
 */
export const aligner = (ref: Plan, photo: Plan): Alignement => {
  const [pr, pp] = [pyramide(ref), pyramide(photo)];
  const haut = pr.length - 1;
  let t = rechercher(pr[haut]!, pp[haut]!);
  for (let n = haut; n >= 0; n--) {
    if (n < haut) t = { ...t, tx: t.tx * 2, ty: t.ty * 2 };
    t = affiner(pr[n]!, pp[n]!, t, n);
  }
  const niveau = Math.max(
    0,
    pr.findIndex((p) => p.largeur <= LARGEUR_SCORE * 1.5),
  );
  const f = 2 ** niveau;
  const tn = { ...t, tx: t.tx / f, ty: t.ty / f };
  const { score, recouvrement } = correlation(pr[niveau]!, pp[niveau]!, dansLaReference(pr[niveau]!, pp[niveau]!, tn), tn);
  return { transformation: t, score, recouvrement };
};
