/**
 * Intensity mapping between two exposures of one view: what value a pixel of one photo would have in
 * the other. Alignment compares a dark photo with a bright one through it, the ghost detector asks whether
 * a pixel of one photo agrees with the reference through it, and a ghost is replaced by the reference
 * rendered at the other photo's exposure through it.
 *
 * A camera's response curve is unknown and differs between makers and between JPEG settings, but it is
 * monotone, so the map is measured, not assumed: by histogram matching before the photos are aligned
 * (ranks survive an exposure change while values do not), by the median of aligned pairs after
 * (`apparierPaires`), with the sRGB curve and the measured exposure gap only to tell a moving object's
 * pairs from the tone curve's. Same on the local and production engines (no model).
 */

/** Table points: 1024 steps of 0–1, finer than a 16-bit input's tonal steps matter for a mapping. */
export const PAS = 1024;

/** A monotone map of values 0–1 to values 0–1, tabulated at PAS + 1 points. */
export type Correspondance = Float32Array;

/** At most this many samples per histogram: quantiles to a thousandth need no more, and a 1.5 MP copy costs four times less. */
const ECHANTILLONS = 300_000;

const histogramme = (valeurs: Float32Array, masque: Uint8Array | null): { cumul: Float64Array; n: number } => {
  const h = new Float64Array(PAS + 1);
  let n = 0;
  const pas = Math.max(1, Math.floor(valeurs.length / ECHANTILLONS));
  for (let i = 0; i < valeurs.length; i += pas) {
    if (masque && !masque[i]) continue;
    h[Math.max(0, Math.min(PAS, Math.round(valeurs[i]! * PAS)))]!++;
    n++;
  }
  // Cumulative share up to the middle of each bin: a bin's own samples sit at its centre quantile.
  const cumul = new Float64Array(PAS + 1);
  let s = 0;
  for (let v = 0; v <= PAS; v++) {
    cumul[v] = n ? (s + h[v]! / 2) / n : v / PAS;
    s += h[v]!;
  }
  return { cumul, n };
};

/** The value of the target at quantile q: inverse of its cumulative histogram, linear between bins. */
const quantile = (cumul: Float64Array, q: number, depart: number): { valeur: number; indice: number } => {
  let i = depart;
  while (i < PAS && cumul[i + 1]! < q) i++;
  if (q <= cumul[0]!) return { valeur: 0, indice: 0 };
  if (i >= PAS) return { valeur: 1, indice: PAS };
  const [a, b] = [cumul[i]!, cumul[i + 1]!];
  const t = b > a ? Math.max(0, Math.min(1, (q - a) / (b - a))) : 0;
  return { valeur: (i + t) / PAS, indice: i };
};

/**
 * The map from `source`'s values to `cible`'s, over the pixels `masque` keeps (both arrays the same
 * pixels, e.g. one photo and another warped onto it; null: all). Monotone by construction.
 */
export const apparier = (source: Float32Array, cible: Float32Array, masque: Uint8Array | null = null): Correspondance => {
  const [hs, hc] = [histogramme(source, masque), histogramme(cible, masque)];
  const table = new Float32Array(PAS + 1);
  if (hs.n === 0 || hc.n === 0) {
    for (let v = 0; v <= PAS; v++) table[v] = v / PAS;
    return table;
  }
  let indice = 0;
  let precedente = 0;
  for (let v = 0; v <= PAS; v++) {
    const q = quantile(hc.cumul, hs.cumul[v]!, indice);
    indice = q.indice;
    precedente = Math.max(precedente, q.valeur);
    table[v] = precedente;
  }
  return table;
};

/** Bins of the joint histogram of `apparierPaires`, per axis. */
const BINS = 256;
/** A bin with fewer pairs than this says nothing of its own: it is interpolated from its neighbours. */
const PAIRES_MIN = 8;
/** Values this close to 0 or 1 are clipped (or as good as): a source value there is left out of the pairs. */
const CENSURE = 0.02;
/**
 * Pairs further than this from the exposure gap's prediction (`exposer`) are left out: 0.15, or 40 % of
 * the two values' mean where that is less, down to 0.05. A camera's tone curve departs from sRGB by less; a
 * person or a car passing by more. Where few pixels fall (a +2 EV frame's darks), a dark coat that was in
 * one frame only made most of a bin, and its median bent the whole map: a 24 MP frame's carpet and sofa
 * then read as ghosts, and a coat on a dark wet pavement (0.11 from the prediction there) as pavement.
 */
const ECART_ATTENDU = 0.15;
const ECART_RELATIF = 0.4;
const ECART_ATTENDU_MIN = 0.05;

const lineaire = (v: number): number => (v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
const srgb = (v: number): number => (v <= 0.0031308 ? 12.92 * v : 1.055 * v ** (1 / 2.4) - 0.055);

/** What a value becomes `ev` stops brighter, if the photos were sRGB: the prior `apparierPaires` checks pairs against. */
export const exposer = (ev: number): ((v: number) => number) => {
  const k = 2 ** ev;
  // Tabulated: called for every pair, two powers each would cost more than the rest of the matching.
  const table = Float32Array.from({ length: PAS + 1 }, (_, i) => srgb(Math.min(1, lineaire(i / PAS) * k)));
  return (v: number): number => appliquer(table, v);
};

/** Pool-adjacent-violators: the non-decreasing sequence closest to `v` (weights `n`), in place. */
const isotone = (v: Float64Array, n: Float64Array): void => {
  const valeurs: number[] = [];
  const poids: number[] = [];
  const longueurs: number[] = [];
  for (let i = 0; i < v.length; i++) {
    if (!n[i]) continue;
    (valeurs.push(v[i]!), poids.push(n[i]!), longueurs.push(i));
    while (valeurs.length > 1 && valeurs.at(-2)! > valeurs.at(-1)!) {
      const [w1, w2] = [poids.at(-2)!, poids.at(-1)!];
      const fusion = (valeurs.at(-2)! * w1 + valeurs.at(-1)! * w2) / (w1 + w2);
      (valeurs.pop(), poids.pop(), longueurs.pop());
      valeurs[valeurs.length - 1] = fusion;
      poids[poids.length - 1] = w1 + w2;
    }
  }
  // Each pooled block covers the bins from its first index to the next block's.
  for (let b = 0; b < valeurs.length; b++) {
    for (let i = longueurs[b]!; i < (longueurs[b + 1] ?? v.length); i++) if (n[i]) v[i] = valeurs[b]!;
  }
};

/**
 * The map from `source`'s values to `cible`'s when both are the same pixels of one view (aligned): per
 * bin of the source, the median of the target, made non-decreasing (isotonic), and interpolated across
 * bins with too few pixels. Unlike histogram matching, a moving object or a strip one photo alone sees
 * only adds outliers to some bins, which the median ignores: with quantiles, a box of 1.4 % of the frame
 * moved the level where a photo clips from 0.58 to 0.39, across the gap between a wall's values and a
 * window's, and lit up half a wall as a ghost.
 */
export const apparierPaires = (
  source: Float32Array,
  cible: Float32Array,
  masque: Uint8Array | null = null,
  attendu: ((v: number) => number) | null = null,
): Correspondance => {
  const joint = new Uint32Array(BINS * BINS);
  const pas = Math.max(1, Math.floor(source.length / ECHANTILLONS));
  for (let i = 0; i < source.length; i += pas) {
    if (masque && !masque[i]) continue;
    const [u, v] = [source[i]!, cible[i]!];
    // A clipped source value is a bound, not a value: such pairs are left out, and the map runs flat beyond
    // the last bin measured. A clipped target stays: a median is right as long as under half its bin is
    // clipped, and says "clipped" when more is (left out, a ref's wall the brighter frame blows mapped to
    // 0.96 instead of white, and a ghost replaced there showed as a grey patch on a blown pavement).
    if (u <= CENSURE || u >= 1 - CENSURE) continue;
    // Far from what the exposure gap alone predicts: something that moved, not the tone curve.
    if (attendu) {
      const prevu = attendu(u);
      if (Math.abs(prevu - v) > Math.max(ECART_ATTENDU_MIN, Math.min(ECART_ATTENDU, (ECART_RELATIF * (prevu + v)) / 2))) continue;
    }
    joint[Math.floor(u * BINS) * BINS + Math.min(BINS - 1, Math.floor(v * BINS))]!++;
  }
  const [medianes, comptes] = [new Float64Array(BINS), new Float64Array(BINS)];
  for (let a = 0; a < BINS; a++) {
    let n = 0;
    for (let b = 0; b < BINS; b++) n += joint[a * BINS + b]!;
    if (n < PAIRES_MIN) continue;
    let cumul = 0;
    for (let b = 0; b < BINS; b++) {
      cumul += joint[a * BINS + b]!;
      if (cumul >= n / 2) {
        medianes[a] = (b + 0.5) / BINS;
        break;
      }
    }
    comptes[a] = n;
  }
  isotone(medianes, comptes);
  return tabuler(medianes, comptes);
};

/** The table of PAS + 1 points through the bins' values (at their centres), linear between, flat beyond the ends. */
const tabuler = (valeurs: Float64Array, comptes: Float64Array): Correspondance => {
  const pleins = [...comptes.keys()].filter((a) => comptes[a]! > 0);
  const table = new Float32Array(PAS + 1);
  if (!pleins.length) {
    for (let v = 0; v <= PAS; v++) table[v] = v / PAS;
    return table;
  }
  let j = 0;
  for (let v = 0; v <= PAS; v++) {
    const x = (v / PAS) * BINS - 0.5;
    while (j < pleins.length - 1 && pleins[j + 1]! <= x) j++;
    const [a, b] = [pleins[j]!, pleins[Math.min(pleins.length - 1, j + 1)]!];
    const t = b > a ? Math.max(0, Math.min(1, (x - a) / (b - a))) : 0;
    table[v] = x <= pleins[0]! ? valeurs[pleins[0]!]! : valeurs[a]! + (valeurs[b]! - valeurs[a]!) * t;
  }
  return table;
};

/** M(v), linear between the table's points. */
export const appliquer = (table: Correspondance, v: number): number => {
  const x = Math.max(0, Math.min(1, v)) * PAS;
  const i = Math.min(PAS - 1, Math.floor(x));
  return table[i]! + (table[i + 1]! - table[i]!) * (x - i);
};

/** M applied to every value of a plane, into a new array. */
export const appliquerTout = (table: Correspondance, valeurs: Float32Array): Float32Array => {
  const sortie = new Float32Array(valeurs.length);
  for (let i = 0; i < valeurs.length; i++) sortie[i] = appliquer(table, valeurs[i]!);
  return sortie;
};
