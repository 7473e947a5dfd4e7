/**
 * What `fusion` is judged by on brackets made from real photos (crochets.ts), shared by the photos test
 * (test/unit/photos-fusion.test.ts) and the bench (bench/fusion.ts), with the fair comparison they both
 * use: the result against the photo the brackets were made from, after the same finishing.
 *
 * - The same finishing: the result's verticals were straightened (with the lean found on the result,
 *   `mesures.verticales`) and its light balanced; the original gets the very same straightening, so
 *   both have one geometry, and the same light balance (equilibrerLumiere), so clipping is compared
 *   after the same lift. The reference frame of the brackets is the original unmoved, so no other
 *   geometric correction is needed.
 * - Tone: merging exposures changes tones on purpose (highlights brought down, shadows up), so what is
 *   compared is what must not change: structure (SSIM's structure term, tone-blind), clipping (the
 *   result must not blow or block more than the original), and, for ghosts, values after the result's
 *   tones are mapped onto the original's (histogram matching outside the figures).
 */
import { apparier, appliquer } from '../../lambdas/moteurs/commun/fusion/correspondance';
import { estSeize, type Pixels, type Pixels16 } from '../../lambdas/moteurs/commun/pixels';
import { equilibrerLumiere, redresserVerticales, type Verticales } from '../../lambdas/moteurs/commun/redressement';
import type { Crochets } from './crochets';

const luminances = ({ data, largeur, hauteur }: Pixels): Float32Array => {
  const l = new Float32Array(largeur * hauteur);
  for (let p = 0; p < l.length; p++) l[p] = 0.299 * data[p * 3]! + 0.587 * data[p * 3 + 1]! + 0.114 * data[p * 3 + 2]!;
  return l;
};

/** Shares of the frame, in %, blown (luminance ≥ 250) and blocked (≤ 5). */
export const ecretage = (p: Pixels): { hautes: number; basses: number } => {
  const l = luminances(p);
  let [h, b] = [0, 0];
  for (const v of l) (v >= 249.5 && h++, v <= 5.5 && b++);
  return { hautes: (100 * h) / l.length, basses: (100 * b) / l.length };
};

/** SSIM's third constant (C3 = C2 / 2, C2 = (0.03 · 255)²). */
const C3 = (0.03 * 255) ** 2 / 2;
/** Side of the local windows, and their step. */
const FENETRE = 8;
const PAS = 4;

/**
 * SSIM's structure term s = (σxy + C3) / (σx σy + C3) between the luminances of `a` and `b` moved by
 * (dx, dy) (b's pixel (x + dx, y + dy) against a's (x, y)), per 8 × 8 window every 4 px (centred in
 * `region`, when given): the mean over the windows, and over the windows of `a`'s strongest edges (σ in
 * the top `partAretes`), where a second copy of an edge or a blur shows.
 */
export const structure = (a: Pixels, b: Pixels, dx = 0, dy = 0, region: Uint8Array | null = null, partAretes = 0.2): { moyenne: number; aretes: number } => {
  const [la, lb] = [luminances(a), luminances(b)];
  const { largeur: l, hauteur: h } = a;
  const valeurs: { s: number; sigma: number }[] = [];
  const marge = Math.max(Math.abs(dx), Math.abs(dy));
  for (let y0 = marge; y0 + FENETRE <= h - marge; y0 += PAS) {
    for (let x0 = marge; x0 + FENETRE <= l - marge; x0 += PAS) {
      if (region && !region[(y0 + FENETRE / 2) * l + x0 + FENETRE / 2]) continue;
      let [sa, sb, saa, sbb, sab] = [0, 0, 0, 0, 0];
      for (let y = y0; y < y0 + FENETRE; y++) {
        for (let x = x0; x < x0 + FENETRE; x++) {
          const [u, v] = [la[y * l + x]!, lb[(y + dy) * l + x + dx]!];
          ((sa += u), (sb += v), (saa += u * u), (sbb += v * v), (sab += u * v));
        }
      }
      const n = FENETRE * FENETRE;
      const [va, vb] = [Math.max(0, saa / n - (sa / n) ** 2), Math.max(0, sbb / n - (sb / n) ** 2)];
      const cov = sab / n - (sa / n) * (sb / n);
      valeurs.push({ s: (cov + C3) / (Math.sqrt(va * vb) + C3), sigma: Math.sqrt(va) });
    }
  }
  const moyenne = valeurs.reduce((s, v) => s + v.s, 0) / valeurs.length;
  const fortes = [...valeurs].sort((x, y) => y.sigma - x.sigma).slice(0, Math.max(1, Math.round(valeurs.length * partAretes)));
  return { moyenne, aretes: fortes.reduce((s, v) => s + v.s, 0) / fortes.length };
};

/** A mask (1 = in) through the same straightening as the photos. */
const redresserMasque = async (m: Uint8Array, l: number, h: number, v: Verticales): Promise<Uint8Array> => {
  const data = Buffer.alloc(l * h * 3);
  for (let p = 0; p < m.length; p++) data.fill(m[p] ? 255 : 0, p * 3, p * 3 + 3);
  const r = await redresserVerticales({ data, largeur: l, hauteur: h }, v);
  return Uint8Array.from({ length: l * h }, (_, p) => (r.data[p * 3]! > 127 ? 1 : 0));
};

/** Grown by a square of 2r + 1 (the figure's soft edge and the ghost mask's margin are not the figure's place). */
const grossir = (m: Uint8Array, l: number, h: number, r: number): Uint8Array => {
  const sortie = new Uint8Array(m.length);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < l; x++) {
      if (!m[y * l + x]) continue;
      for (let j = Math.max(0, y - r); j <= Math.min(h - 1, y + r); j++) sortie.fill(1, j * l + Math.max(0, x - r), j * l + Math.min(l - 1, x + r) + 1);
    }
  }
  return sortie;
};

/** The structure measures against the original, over a region (null: the whole frame). */
export interface Aretes {
  /** Structure term over the windows, and over the edge windows. */
  structure: number;
  aretes: number;
  /** Edge windows against the original moved by one pixel (the most alike of the four directions). */
  decalees: number;
  /** The same for the original against itself moved by one pixel: how much a one-pixel error costs here. */
  decaleesOriginal: number;
  /** Edge windows against the original moved as each other frame moved (a frame left unaligned would leave its copy there): the highest. */
  secondeCopie: number;
  secondeCopieOriginal: number;
}

export interface Jugement {
  /** Clipped shares (%) of the original after the same finishing, and of the result. */
  original: { hautes: number; basses: number };
  resultat: { hautes: number; basses: number };
  /** Over the whole frame. */
  tout: Aretes;
  /**
   * Where the original is dark (luminance under 77, a third of the range) or blown: where the merge takes
   * the other frames, which the reference frame does not, so where a frame off by a pixel doubles edges.
   */
  ailleurs: Aretes;
  /**
   * Where the figure stood in the other frames (not where it stands in the reference): how far the result
   * moved towards it, as a share of the figure's own contrast (1: the figure in full; 0: no trace).
   */
  fantome: number;
  /**
   * Where the original is white, blown in every channel (a lamp, a blown window; a border of 2 px left
   * out), in the result without the figure: its share of the frame (%), mean luminance, the spread of its
   * luminance (standard deviation) and its mean colour (largest channel minus smallest). No darker frame
   * of these brackets holds more there than white: a smooth white is right, grey patches are not.
   */
  blancs: { part: number; luminance: number; ecart: number; couleur: number };
}

const DECALAGES = [
  [1, 0],
  [-1, 0],
  [0, 1],
  [0, -1],
] as const;

const mesurerAretes = (c: Crochets, resultat: Pixels, original: Pixels, region: Uint8Array | null): Aretes => {
  const tous = structure(resultat, original, 0, 0, region);
  const [decalees, decaleesOriginal] = [resultat, original].map((p) => Math.max(...DECALAGES.map(([dx, dy]) => structure(p, original, dx, dy, region).aretes)));
  const mouvements = c.transformations.filter((_, k) => k !== c.reference).map((t) => [-Math.round(t.tx), -Math.round(t.ty)] as const);
  const [secondeCopie, secondeCopieOriginal] = [resultat, original].map((p) =>
    Math.max(...mouvements.map(([dx, dy]) => structure(p, original, dx, dy, region).aretes)),
  );
  return {
    structure: tous.moyenne,
    aretes: tous.aretes,
    decalees: decalees!,
    decaleesOriginal: decaleesOriginal!,
    secondeCopie: secondeCopie!,
    secondeCopieOriginal: secondeCopieOriginal!,
  };
};

/** A merge of 8-bit brackets is 8-bit: its pixels as such (16 bits here would be a mistake of the test). */
export const huitBits = (p: Pixels | Pixels16): Pixels => {
  if (estSeize(p)) throw new Error('a 16-bit merge where 8 bits were expected');
  return p;
};

/**
 * The judgement of a result of `fusionner` on brackets `c` (verticals: `mesures.verticales`); `sans`, its
 * result on the same brackets without the figure (`fabriquerCrochets(…, { personne: false })`).
 */
export const juger = async (c: Crochets, resultat8: Pixels | Pixels16, verticales: Verticales, sans8: Pixels | Pixels16): Promise<Jugement> => {
  const [resultat, sans] = [huitBits(resultat8), huitBits(sans8)];
  const { largeur: l, hauteur: h } = c.original;
  const droit = await redresserVerticales(c.original, verticales);
  const original = await equilibrerLumiere(droit);
  const region = Uint8Array.from(luminances(droit), (v) => (v < 77 || v > 250 ? 1 : 0));
  return {
    original: ecretage(original),
    resultat: ecretage(resultat),
    tout: mesurerAretes(c, resultat, original, null),
    ailleurs: mesurerAretes(c, resultat, original, region),
    fantome: await mesurerFantome(c, resultat, sans, original, verticales, l, h),
    blancs: mesurerBlancs(droit, sans),
  };
};

const mesurerBlancs = (droit: Pixels, sans: Pixels): Jugement['blancs'] => {
  const { largeur: l, hauteur: h } = droit;
  const blanc = new Uint8Array(l * h);
  for (let p = 0; p < blanc.length; p++) blanc[p] = Math.min(droit.data[p * 3]!, droit.data[p * 3 + 1]!, droit.data[p * 3 + 2]!) >= 250 ? 1 : 0;
  // Eroded by 2 px: the complement grown.
  const bord = grossir(
    Uint8Array.from(blanc, (v) => 1 - v),
    l,
    h,
    2,
  );
  const lum = luminances(sans);
  const [valeurs, couleurs]: [number[], number[]] = [[], []];
  for (let p = 0; p < blanc.length; p++) {
    if (bord[p]) continue;
    valeurs.push(lum[p]!);
    const [r, v, b] = [sans.data[p * 3]!, sans.data[p * 3 + 1]!, sans.data[p * 3 + 2]!];
    couleurs.push(Math.max(r, v, b) - Math.min(r, v, b));
  }
  const moyenne = (t: number[]) => (t.length ? t.reduce((a, b) => a + b, 0) / t.length : 0);
  const m = moyenne(valeurs);
  return {
    part: (100 * valeurs.length) / blanc.length,
    luminance: m,
    ecart: Math.sqrt(moyenne(valeurs.map((v) => (v - m) ** 2))),
    couleur: moyenne(couleurs),
  };
};

const moyenneSur = (v: Float32Array, m: Uint8Array): number => {
  let [s, n] = [0, 0];
  for (let p = 0; p < m.length; p++) if (m[p]) ((s += v[p]!), n++);
  return n ? s / n : 0;
};

/**
 * The ghost measure: at each place where the figure stood in a frame other than the reference (its place
 * in the reference left out, with a margin), how far the result moved towards the figure, compared with
 * the result of the same brackets without the figure (`sans`), as a share of what the figure itself would
 * move it there (1: the figure in full; a third: a ghost from one frame of three). Means over each place,
 * in the original's tones (both results mapped onto them by histogram matching outside the figures), so
 * that a fraction of a pixel between the two results' straightening does not count.
 */
const mesurerFantome = async (c: Crochets, resultat: Pixels, sans: Pixels, original: Pixels, verticales: Verticales, l: number, h: number): Promise<number> => {
  const figures = await Promise.all(c.personnes.map(async (m) => (m ? redresserMasque(m, l, h, verticales) : null)));
  const marge = Math.max(2, Math.round(0.01 * Math.max(l, h)));
  const sienne = grossir(figures[c.reference] ?? new Uint8Array(l * h), l, h, marge);
  const toutes = new Uint8Array(l * h);
  for (const f of figures) if (f) for (let p = 0; p < f.length; p++) toutes[p] ||= f[p]!;
  const dehors = Uint8Array.from(toutes, (v) => 1 - v);
  const lo = luminances(original);
  const tons = (p: Pixels) => {
    const lp = luminances(p);
    const table = apparier(
      Float32Array.from(lp, (v) => v / 255),
      Float32Array.from(lo, (v) => v / 255),
      dehors,
    );
    return Float32Array.from(lp, (v) => appliquer(table, v / 255) * 255);
  };
  const [avec, sansFigure] = [tons(resultat), tons(sans)];
  const figure = luminances(await redresserVerticales(c.avecPersonnes(), verticales));
  const nue = luminances(await redresserVerticales(c.original, verticales));
  let [trace, poids] = [0, 0];
  figures.forEach((f, k) => {
    if (!f || k === c.reference) return;
    const zone = Uint8Array.from(f, (v, p) => (v && !sienne[p] ? 1 : 0));
    const n = zone.reduce((a, b) => a + b, 0);
    const contraste = moyenneSur(figure, zone) - moyenneSur(nue, zone);
    if (!n || Math.abs(contraste) < 1) return;
    trace += Math.max(0, (moyenneSur(avec, zone) - moyenneSur(sansFigure, zone)) / contraste) * n;
    poids += n;
  });
  return poids ? trace / poids : 0;
};
