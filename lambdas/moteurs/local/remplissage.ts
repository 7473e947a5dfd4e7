/**
 * An exemplar fill, for the vider preview: what furniture hid is painted with patches of the room's
 * own floor and walls, copied from elsewhere in the photo, rather than a smooth average of its border
 * (a blur reads as a stain on a textured floor: parquet, tiles, carpet).
 *
 * The hole is filled from its edge inwards, one layer at a time (onion peel): at each pixel of the edge,
 * the core of the patch of the photo whose known part matches its surroundings best. Candidates are drawn at
 * random from the rows near the pixel's own (in a room seen in perspective, a floor's grain and a wall's
 * colour change with the height in the frame), plus the continuation of the patches its neighbours were
 * filled from (so a parquet's lines run on), as PatchMatch does. Seeded: the same job gives the same fill.
 */
import { sommesRectangles } from '../commun/masques';

/** Half the side of a patch: 9 × 9 pixels on the small copy. */
const R = 4;
/** Half the side of what one match fills: the unknown pixels of its 7 × 7 core. */
const COEUR = 3;
/** Random candidates per match; plus one per neighbour already filled. */
const CANDIDATS = 48;
/** Candidates come from rows within this share of the height of the pixel's own. */
const BANDE = 0.12;

/** What one fill works on: the layers it writes, what is known, and the sources it copies from. */
interface Toile {
  data: Uint8Array;
  connu: Uint8Array;
  l: number;
  h: number;
  suivants: readonly Uint8Array[];
  /** Whether the patch centred on (x, y) may be copied: wholly known before the fill, and nothing `exclus` marks. */
  source: (x: number, y: number) => boolean;
  /** The surface a pixel belongs to (floor or wall, from `classes`; 0 without them). */
  classe: (p: number) => number;
  /** Sources by class and row, to draw from a band of rows of the pixel's own surface quickly. */
  parLigne: number[][][];
  parClasse: number[][];
  bande: number;
  /** Where each filled pixel was copied from (its source centre's offset), for the coherence candidates. */
  origine: Int32Array;
  hasard: (n: number) => number;
  ecart: (cx: number, cy: number, s: number, limite: number) => number;
}

/**
 * Sum of squared differences over the known pixels around (cx, cy); stops once past `limite` (the best
 * so far: it could not win), without destructuring, which allocated per pixel (most of the fill's time).
 */
const mesureEcart =
  (data: Uint8Array, connu: Uint8Array, l: number, h: number) =>
  (cx: number, cy: number, s: number, limite: number): number => {
    const [sx, sy] = [s % l, (s / l) | 0];
    let somme = 0;
    for (let dy = -R; dy <= R; dy++) {
      const ty = cy + dy;
      if (ty < 0 || ty >= h) continue;
      const [lt, ls] = [ty * l, (sy + dy) * l + sx];
      for (let dx = -R; dx <= R; dx++) {
        const tx = cx + dx;
        if (tx < 0 || tx >= l || !connu[lt + tx]) continue;
        const t = (lt + tx) * 3;
        const u = (ls + dx) * 3;
        const a = data[t]! - data[u]!;
        const b = data[t + 1]! - data[u + 1]!;
        const c = data[t + 2]! - data[u + 2]!;
        somme += a * a + b * b + c * c;
      }
      if (somme >= limite) return somme;
    }
    return somme;
  };

/** The edge of what is still unknown: pixels with a known neighbour, the most surrounded first. */
const bordDe = (trous: readonly number[], connu: Uint8Array, l: number, h: number): [number, number][] => {
  const bord: [number, number][] = [];
  for (const p of trous) {
    const [x, y] = [p % l, (p / l) | 0];
    let voisins = 0;
    for (let dy = -1; dy <= 1; dy++)
      for (let dx = -1; dx <= 1; dx++) {
        const [nx, ny] = [x + dx, y + dy];
        if (nx >= 0 && ny >= 0 && nx < l && ny < h && connu[ny * l + nx]) voisins++;
      }
    if (voisins) bord.push([p, voisins]);
  }
  return bord.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
};

/** The source centre whose patch best matches the known surroundings of the edge pixel `p`. */
const meilleureSource = (t: Toile, p: number): number => {
  const { l, h, classe } = t;
  const [x, y] = [p % l, (p / l) | 0];
  let [meilleure, score] = [-1, Infinity];
  const essayer = (s: number) => {
    const e = t.ecart(x, y, s, score);
    if (e < score) [meilleure, score] = [s, e];
  };
  // Coherence: the patch a filled neighbour came from, shifted by the same step.
  for (let dy = -1; dy <= 1; dy++)
    for (let dx = -1; dx <= 1; dx++) {
      const [nx, ny] = [x + dx, y + dy];
      if (nx < 0 || ny < 0 || nx >= l || ny >= h) continue;
      const o = t.origine[ny * l + nx]!;
      if (o < 0) continue;
      const [sx, sy] = [(o % l) - dx, ((o / l) | 0) - dy];
      if (sx >= R && sy >= R && sx < l - R && sy < h - R && t.source(sx, sy) && classe(sy * l + sx) === classe(p)) essayer(sy * l + sx);
    }
  const c = t.parClasse[classe(p)]!.length ? classe(p) : 1 - classe(p);
  for (let k = 0; k < CANDIDATS; k++) {
    const ligne = Math.min(h - 1, Math.max(0, y - t.bande + t.hasard(2 * t.bande + 1)));
    const rang = t.parLigne[c]![ligne]!;
    essayer(rang.length ? rang[t.hasard(rang.length)]! : t.parClasse[c]![t.hasard(t.parClasse[c]!.length)]!);
  }
  return meilleure;
};

/** The unknown pixels of the core around `p` take the source's, in every layer, and become known. */
const copierCoeur = ({ data, connu, l, h, suivants, origine }: Toile, p: number, source: number): void => {
  const [x, y] = [p % l, (p / l) | 0];
  const [sx, sy] = [source % l, (source / l) | 0];
  for (let dy = -COEUR; dy <= COEUR; dy++)
    for (let dx = -COEUR; dx <= COEUR; dx++) {
      const [tx, ty] = [x + dx, y + dy];
      if (tx < 0 || ty < 0 || tx >= l || ty >= h || connu[ty * l + tx]) continue;
      const [q, t] = [(ty * l + tx) * 3, ((sy + dy) * l + sx + dx) * 3];
      data[q] = data[t]!;
      data[q + 1] = data[t + 1]!;
      data[q + 2] = data[t + 2]!;
      for (const s of suivants) for (let c = 0; c < 3; c++) s[q + c] = s[t + c]!;
      connu[ty * l + tx] = 1;
      origine[ty * l + tx] = (sy + dy) * l + sx + dx;
    }
};

/**
 * Fills, in place, the pixels of `data` (RGB, l × h) where `connu` is 0, and marks them known.
 * Nothing under the hole is read: only known pixels are compared and copied. `suivants` (RGB, l × h):
 * layers that take their pixels from the same places as `data` (matched on the photo's colours,
 * copying its grain).
 */
export const remplirParMotifs = (
  data: Uint8Array,
  connu: Uint8Array,
  l: number,
  h: number,
  graine: number,
  classes?: Uint8Array,
  exclus?: Uint8Array,
  suivants: readonly Uint8Array[] = [],
): void => {
  let alea = graine >>> 0 || 1;
  const hasard = (n: number) => ((alea = (Math.imul(alea, 1664525) + 1013904223) >>> 0) % n) | 0;
  // Sources: centres whose whole patch is known (never moved: they are the photo's) and holds no pixel
  // `exclus` marks (an object's edge, which would come back as a ridge).
  const sources: number[] = [];
  // Counted before the fill changes anything.
  const inconnusDans = sommesRectangles(l, h, (p) => (connu[p] ? 0 : 1));
  const interditsDans = sommesRectangles(l, h, (p) => (exclus?.[p] ? 1 : 0));
  const source = (x: number, y: number) => !inconnusDans(x - R, y - R, x + R + 1, y + R + 1) && !interditsDans(x - R, y - R, x + R + 1, y + R + 1);
  for (let y = R; y < h - R; y++) for (let x = R; x < l - R; x++) if (source(x, y)) sources.push(y * l + x);
  if (!sources.length) return;
  const classe = (p: number) => (classes ? classes[p]! : 0);
  const parLigne: number[][][] = [0, 1].map(() => Array.from({ length: h }, () => []));
  const parClasse: number[][] = [[], []];
  for (const s of sources) {
    parLigne[classe(s)]![(s / l) | 0]!.push(s);
    parClasse[classe(s)]!.push(s);
  }
  const toile: Toile = {
    data,
    connu,
    l,
    h,
    suivants,
    source,
    classe,
    parLigne,
    parClasse,
    hasard,
    bande: Math.max(R + 1, Math.round(BANDE * h)),
    origine: new Int32Array(l * h).fill(-1),
    ecart: mesureEcart(data, connu, l, h),
  };
  // The unknown pixels, rescanned layer by layer: the whole frame was, at 480 px most of the fill's time.
  let trous: number[] = [];
  for (let p = 0; p < l * h; p++) if (!connu[p]) trous.push(p);
  while (trous.length) {
    trous = trous.filter((p) => !connu[p]);
    const bord = bordDe(trous, connu, l, h);
    if (!bord.length) return;
    // One match fills a whole core, a few pixels at a time in the edge's order: what an earlier core filled is skipped.
    for (const [p] of bord) if (!connu[p]) copierCoeur(toile, p, meilleureSource(toile, p));
  }
};
