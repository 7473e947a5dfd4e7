/**
 * Exposure fusion (Mertens, Kautz and Van Reeth, 2007): each pixel of the result takes, band by band
 * (Laplacian pyramid), the photos that expose it well, by weights of contrast, saturation and
 * well-exposedness (ponderation.ts, which says how the last is anchored on the reference). No radiance map
 * and no tone mapping: the photos' own values, so the camera's colours and tone curve survive, and the blend
 * of bands hides the seams a per-pixel choice would leave around windows.
 *
 * Bounded and fast (5 × 24 MP in a few seconds on 2 cores, memory bounded whatever the number of photos),
 * because of three choices, each measured:
 * - Colour at half size. Camera JPEGs store colour at half resolution (4:2:0), so the finest octave holds
 *   luminance only. The full-size work is one pass per photo over its luminance: its finest band
 *   (luminance minus its half-size copy enlarged) weighted by its weights enlarged. Below it, everything
 *   runs on the half-size copy libvips makes (about 60 ms in C for 24 MP): the Laplacian pyramid of
 *   luminance, and the colour ((R − Y) / Y, (B − Y) / Y: PLANCHER_CHROMA says why) blended with the same normalised weights. Full-size planes
 *   cost: one JS pass over 24 MP samples is 50–100 ms, and libvips's float resize of one 24 MP plane took
 *   half a second, so three full-size channels pyramided per photo would have cost seconds a photo.
 * - Weights at a quarter of full size, enlarged to half: they are blurred at every coarser level anyway,
 *   and at the finest they only need to follow edges. Measured against weights at half size on the nine
 *   photo brackets: structure, edge sharpness and ghosts within a point or two, in 5 % less time (paired
 *   runs on 5 × 24 MP).
 * - One photo at a time: its bands are added into one output pyramid (pyramide.ts) and it is dropped.
 *
 * And a halo guard (`terminer`): each pixel's luminance is kept within the range the photos themselves
 * give it. A Laplacian blend takes each band from the photos weighted at that band's scale, so where the
 * weights switch (a window the reference blows, a dark cupboard side only the bright photo shows) the fine
 * bands of one photo meet the coarse bands of another, whose local brightness differs by the exposure gap.
 * Measured on brackets 2 EV apart, that undershot by up to a fifth of the range: a cupboard's dark side
 * pushed to black, 2 % of a kitchen's pixels blocked that no photo of the bracket blocks. Mertens accepts
 * it; a listing photo cannot. Bounding by the per-pixel range (not by the reference alone, nor by a
 * per-pixel blend: both turned a sky's thin dark wires white where the weights switch within a pixel) keeps
 * the pyramid's seamless blend everywhere it stays plausible; away from what the reference blows or leaves
 * dark, the range closes onto the reference's own light (OUVERTURE). Same on the local and production
 * engines (no model).
 */
import { aCote, flottants, noyau, parRangees, tache } from '../parallele';
import { depuisPixels, pixelsDe, type Pixels, type Pixels16 } from '../pixels';
import { versImage, type Image } from './deformation';
import { ponderer } from './ponderation';
import { extremumCarre, flouCarre, plan, reduireDeMoitie, type Plan } from './plan';
import {
  accumuler,
  axeRedimensionne,
  ligneAgrandie,
  ligneHorizontale,
  ligneVerticale,
  pyramideVide,
  reconstruire,
  redimensionner,
  remplir,
  type Axe,
  type PyramideSomme,
} from './pyramide';

const [KR, KV, KB] = [0.299, 0.587, 0.114];
/**
 * The halo guard's opening: how far the bounds reach from the reference's luminance towards the photos'
 * range, min(1, OUVERTURE · (1 − c)) where the reference's confidence is c, then widened (`ouverture`).
 * With the photos' whole range everywhere, the pyramid's coarse levels carried a photo's light far from
 * where it weighs: a bedroom lit by one lamp, mostly dark so mostly the bright photo's at coarse levels,
 * had the glow on its wall (the reference's own, trusted) darkened by 15 of 255 and greyed, within the
 * range since the dark photo's value there was lower still. Where the reference is trusted, away from
 * what it blows or leaves dark, the result now keeps its light.
 */
const OUVERTURE = 2;
/** The luminances (×65 535, exclusive) of a photo that widen the bounds. */
type Valables = readonly [number, number];
/**
 * Another photo's luminance widens the bounds only within these: a blown or black pixel says only "at least"
 * or "at most". Counted, the bright photo's blown wall beside a lamp's dark pole let the pyramid's halo
 * through as a white line along the pole. The reference's every value counts (TOUTES).
 */
const VALABLES: Valables = [Math.round(0.02 * 65535), Math.round(0.98 * 65535)];
const TOUTES: Valables = [-1, 65536];
/**
 * The colour is blended as (R − Y) / Y and (B − Y) / Y, not as R − Y and B − Y: a colour's differences grow with
 * its exposure, its ratios do not. Blended as differences, a bright photo's lifted shadows brought their colour
 * at that photo's strength into a darker result: a bedroom's grey sheet folds came out brown, as stains. Under
 * this luminance the ratio would be the grain's: it is taken over this floor instead.
 */
const PLANCHER_CHROMA = 0.05;
/** The bounds are kept at 16 bits: a step of 1/65 535 of the range, 96 MB for 24 MP instead of 192 in floats. */
const ECHELLE_BORNES = 65535;

export interface Fusion {
  largeur: number;
  hauteur: number;
  /** Half size (libvips's copy). */
  demi: { largeur: number; hauteur: number };
  /** Σ weight · finest band of luminance, full size. */
  detail: Float32Array;
  /** Per pixel, the lowest and highest luminance of the photos (×65 535): the halo guard's bounds. */
  bas: Uint16Array;
  haut: Uint16Array;
  luminance: PyramideSomme;
  /** The photos' additions into `luminance`, running on the worker (parallele.ts): awaited before it is read. */
  accumulations: Promise<void>[];
  /** Σ weight · (R − Y) / Y and Σ weight · (B − Y) / Y, half size; their weights are `luminance.poids[0]`. */
  chromaR: Float32Array;
  chromaB: Float32Array;
  /** Full size ↔ half size (libvips's copy). */
  axes: { x: Axe; y: Axe };
  /** The reference's confidence (ponderation.ts), at the weights' size (a quarter): set when the reference, merged first, is added. */
  confiance: Float32Array | null;
  /** How far the bounds reach from the reference's luminance towards the photos' (0–1, an eighth of full size), set with `confiance`. */
  ouverture: Plan | null;
}

export const nouvelleFusion = (largeur: number, hauteur: number): Fusion => {
  const demi = { largeur: Math.max(1, Math.round(largeur / 2)), hauteur: Math.max(1, Math.round(hauteur / 2)) };
  const n = demi.largeur * demi.hauteur;
  return {
    largeur,
    hauteur,
    demi,
    // Shared: the worker writes half their rows (parallele.ts).
    detail: flottants(largeur * hauteur),
    bas: new Uint16Array(new SharedArrayBuffer(largeur * hauteur * 2)).fill(ECHELLE_BORNES),
    haut: new Uint16Array(new SharedArrayBuffer(largeur * hauteur * 2)),
    luminance: pyramideVide(demi.largeur, demi.hauteur),
    accumulations: [],
    chromaR: new Float32Array(n),
    chromaB: new Float32Array(n),
    axes: { x: axeRedimensionne(largeur, demi.largeur), y: axeRedimensionne(hauteur, demi.hauteur) },
    confiance: null,
    ouverture: null,
  };
};

/**
 * The opening, from the reference's confidence (a quarter of full size): at half that, min(1, OUVERTURE · (1 − c)),
 * grown then blurred over about a sixtieth of the photo, and kept at that size (`terminer` enlarges it row
 * by row). Opened only where the reference is not trusted, the pyramid's halo around a dark corner,
 * squeezed into the pixel or two where its confidence falls, showed as a light line along the corner's
 * edge; spread this far, it stays the soft glow a merge gives.
 */
const ouverture = (confiance: Plan): Plan => {
  const petite = reduireDeMoitie(confiance);
  for (let i = 0; i < petite.data.length; i++) petite.data[i] = Math.min(1, OUVERTURE * (1 - petite.data[i]!));
  const r = Math.max(1, Math.round(Math.max(petite.largeur, petite.hauteur) / 120));
  return flouCarre(extremumCarre(petite, r, 'max'), r);
};

/** The half-size copy's luminance and colour, (R − Y) / Y and (B − Y) / Y (Y floored: PLANCHER_CHROMA), values 0–1. */
const luminanceDemi = (d: Image): { luminance: Plan; cr: Float32Array; cb: Float32Array } => {
  const { largeur: l, hauteur: h, data, max } = d;
  const n = l * h;
  const y = flottants(n);
  const cr = new Float32Array(n);
  const cb = new Float32Array(n);
  const k = 1 / max;
  for (let p = 0, i = 0; p < n; p++, i += 3) {
    const r = data[i]! * k;
    const b = data[i + 2]! * k;
    const lum = KR * r + KV * data[i + 1]! * k + KB * b;
    y[p] = lum;
    const parY = 1 / (lum > PLANCHER_CHROMA ? lum : PLANCHER_CHROMA);
    cr[p] = (r - lum) * parY;
    cb[p] = (b - lum) * parY;
  }
  return { luminance: plan(l, h, y), cr, cb };
};

/** What the finest band's pass reads and writes (`DETAIL`): the merge's full-size sums, one photo and its half-size planes. */
interface ParamsDetail {
  detail: Float32Array;
  bas: Uint16Array;
  haut: Uint16Array;
  largeur: number;
  demiLargeur: number;
  axes: { x: Axe; y: Axe };
  image: Image;
  /** The photo's half-size luminance (filled where it weighs nothing) and weights. */
  luminance: Plan;
  poids: Plan;
  valables: Valables;
}

/** One full-size pixel: its finest band weighted, and the bounds (where its value counts: `valables`). */
const ajouterPixel = ({ detail, bas, haut, image: im, valables }: ParamsDetail, p: number, w: number, basse: number): void => {
  const i = p * 3;
  const y = (KR * im.data[i]! + KV * im.data[i + 1]! + KB * im.data[i + 2]!) / im.max;
  detail[p]! += w * (y - basse);
  const q = y * ECHELLE_BORNES + 0.5;
  if (q <= valables[0] || q >= valables[1]) return;
  if (q < bas[p]!) bas[p] = q;
  if (q > haut[p]!) haut[p] = q;
};

/** A photo's half-size luminance and weights added into the output pyramid. */
const ACCUMULATION = tache<{ somme: PyramideSomme; image: Plan; poids: Plan }, void>('fusion.accumulation', ['somme'], ({ somme, image, poids }) =>
  accumuler(somme, image, poids),
);

/** Rows [debut, fin) of a full-size photo's finest band: Σ weight↑ · (Y − (half-size Y)↑), and the bounds. */
const DETAIL = noyau<ParamsDetail>('fusion.detail', ['detail', 'bas', 'haut'], (p, debut, fin) => {
  const { largeur: l, demiLargeur, axes } = p;
  const [tl, tw] = [new Float32Array(demiLargeur), new Float32Array(demiLargeur)];
  const [basse, w] = [new Float32Array(l), new Float32Array(l)];
  for (let y = debut; y < fin; y++) {
    ligneVerticale(p.luminance, axes.y, y, tl);
    ligneVerticale(p.poids, axes.y, y, tw);
    if (axes.x.double) {
      ligneDetailDouble(p, y, tl, tw);
      continue;
    }
    ligneHorizontale(tl, demiLargeur, axes.x, basse);
    ligneHorizontale(tw, demiLargeur, axes.x, w);
    for (let x = 0; x < l; x++) ajouterPixel(p, y * l + x, w[x]!, basse[x]!);
  }
});

/**
 * One row of `DETAIL` when the half size is exactly half (even sizes, the usual case): the
 * horizontal enlargement (weights ¼ ¾) done in the same loop, so no enlarged row is written and read back.
 */
const ligneDetailDouble = (p: ParamsDetail, y: number, tl: Float32Array, tw: Float32Array): void => {
  const { largeur: l, detail, bas, haut, image: im } = p;
  const [lo, hi] = p.valables;
  const data = im.data;
  const k = ECHELLE_BORNES / im.max;
  const [kr, kv, kb] = [KR * k, KV * k, KB * k];
  const o = y * l;
  const n = p.demiLargeur - 1;
  ajouterPixel(p, o, tw[0]!, tl[0]!);
  for (let j = 0; j < n; j++) {
    // In 1/65 535 of the range, for the bounds; the band in 0–1.
    const la = tl[j]! * ECHELLE_BORNES;
    const lb = tl[j + 1]! * ECHELLE_BORNES;
    const wa = tw[j]! / ECHELLE_BORNES;
    const wb = tw[j + 1]! / ECHELLE_BORNES;
    const q = o + 2 * j + 1;
    const i = q * 3;
    const y1 = kr * data[i]! + kv * data[i + 1]! + kb * data[i + 2]!;
    const y2 = kr * data[i + 3]! + kv * data[i + 4]! + kb * data[i + 5]!;
    detail[q]! += (0.75 * wa + 0.25 * wb) * (y1 - (0.75 * la + 0.25 * lb));
    detail[q + 1]! += (0.25 * wa + 0.75 * wb) * (y2 - (0.25 * la + 0.75 * lb));
    const q1 = y1 + 0.5;
    const q2 = y2 + 0.5;
    if (q1 > lo && q1 < hi) {
      if (q1 < bas[q]!) bas[q] = q1;
      if (q1 > haut[q]!) haut[q] = q1;
    }
    if (q2 > lo && q2 < hi) {
      if (q2 < bas[q + 1]!) bas[q + 1] = q2;
      if (q2 > haut[q + 1]!) haut[q + 1] = q2;
    }
  }
  ajouterPixel(p, o + l - 1, tw[n]!, tl[n]!);
};

const ajouterChroma = ({ chromaR, chromaB }: Fusion, w: Float32Array, cr: Float32Array, cb: Float32Array): void => {
  for (let p = 0; p < w.length; p++) {
    chromaR[p]! += w[p]! * cr[p]!;
    chromaB[p]! += w[p]! * cb[p]!;
  }
};

/**
 * Adds one photo, already in the reference's geometry and freed of ghosts: the reference first (its
 * confidence weighs every other), then the others with their exposure relative to it (EV). For the
 * reference, `apport`: where the darker photos show more than its white (apport.ts; null: none darker).
 */
export const ajouterPhoto = async (f: Fusion, im: Image, ev: number, apport: Plan | null = null): Promise<void> => {
  const demi = await versImage(depuisPixels(im).resize(f.demi.largeur, f.demi.hauteur, { fit: 'fill', kernel: 'linear' }), im.max);
  const { luminance, cr, cb } = luminanceDemi(demi);
  // The weights on a copy at a quarter of full size, enlarged to half (the header says why).
  const [ql, qh] = [Math.max(1, Math.round(demi.largeur / 2)), Math.max(1, Math.round(demi.hauteur / 2))];
  const quart = await versImage(depuisPixels(demi).resize(ql, qh, { fit: 'fill', kernel: 'linear' }), im.max);
  const lq = luminanceDemi(quart).luminance;
  const apportQ = apport && !f.confiance ? redimensionner(apport, ql, qh) : null;
  const pq = ponderer(quart, lq, f.confiance, ev, apportQ);
  const poids = redimensionner(pq.poids, demi.largeur, demi.hauteur);
  const fiabilite = redimensionner(plan(ql, qh, pq.fiabilite), demi.largeur, demi.hauteur).data;
  const confiance = pq.confiance;
  if (confiance) {
    f.confiance = confiance;
    f.ouverture = ouverture(plan(ql, qh, confiance));
  }
  // What weighs next to nothing is filled from around before the pyramid (ponderation.ts, FIABLE).
  const remplie = remplir(luminance, fiabilite);
  // The reference's every value bounds the result; another's only where it is neither blown nor black.
  const { detail, bas, haut, largeur, axes } = f;
  const valables = confiance ? TOUTES : VALABLES;
  await parRangees(DETAIL, { detail, bas, haut, largeur, demiLargeur: f.demi.largeur, axes, image: im, luminance: remplie, poids, valables }, f.hauteur);
  // The pyramid on the worker while this thread goes on to the colour and the next frame (`terminer` awaits it).
  const accumulation = aCote(ACCUMULATION, { somme: f.luminance, image: remplie, poids });
  accumulation.catch(() => undefined);
  f.accumulations.push(accumulation);
  ajouterChroma(f, poids.data, cr, cb);
};

/** What the final assembly reads (`FINALE`): the collapsed pyramid, the colour, the sums and bounds, the reference; and writes. */
interface ParamsFinale {
  largeur: number;
  hauteur: number;
  axes: { x: Axe; y: Axe };
  /** Half size: the collapsed luminance, the finest level's weights, the colour ratios. */
  basse: Plan;
  somme: Plan;
  cr: Plan;
  cb: Plan;
  ouverture: Plan | null;
  detail: Float32Array;
  bas: Uint16Array;
  haut: Uint16Array;
  ref: Image;
  /**
   * 8 bits clamped and rounded by the array itself (three Math calls a sample cost a third of the pass), or
   * 16 bits when the reference is: a 16-bit PNG bracket's merge keeps its depth.
   */
  sortie: Uint8ClampedArray | Uint16Array;
}

/** Rows [debut, fin) of the merged photo. */
const FINALE = noyau<ParamsFinale>('fusion.finale', ['sortie'], (p, debut, fin) => {
  const { largeur: l, hauteur: h, axes } = p;
  const tampon = new Float32Array(p.basse.largeur);
  const ouv = p.ouverture && {
    plan: p.ouverture,
    x: axeRedimensionne(l, p.ouverture.largeur),
    y: axeRedimensionne(h, p.ouverture.hauteur),
    tampon: new Float32Array(p.ouverture.largeur),
  };
  const lignes: Lignes = {
    lb: new Float32Array(l),
    lw: new Float32Array(l),
    lr: new Float32Array(l),
    lc: new Float32Array(l),
    lo: new Float32Array(l).fill(1),
  };
  for (let y = debut; y < fin; y++) {
    ligneAgrandie(p.basse, axes.x, axes.y, y, tampon, lignes.lb);
    ligneAgrandie(p.somme, axes.x, axes.y, y, tampon, lignes.lw);
    ligneAgrandie(p.cr, axes.x, axes.y, y, tampon, lignes.lr);
    ligneAgrandie(p.cb, axes.x, axes.y, y, tampon, lignes.lc);
    if (ouv) ligneAgrandie(ouv.plan, ouv.x, ouv.y, y, ouv.tampon, lignes.lo);
    ligneFinale(p, y, lignes);
  }
});

/**
 * The merged photo, at the reference's depth (8 or 16 bits): half-size luminance and colour enlarged, plus the finest band, within the
 * bounds: the photos' range drawn towards the reference's luminance (`ref`, full size) by the opening.
 */
export const terminer = async (f: Fusion, ref: Image): Promise<Pixels | Pixels16> => {
  const { largeur: l, hauteur: h, axes, demi } = f;
  const somme = f.luminance.poids[0]!;
  await Promise.all(f.accumulations);
  const basse = reconstruire(f.luminance);
  const [cr, cb] = [plan(demi.largeur, demi.hauteur), plan(demi.largeur, demi.hauteur)];
  for (let p = 0; p < somme.data.length; p++) {
    const s = somme.data[p]! || 1e-30;
    ((cr.data[p] = f.chromaR[p]! / s), (cb.data[p] = f.chromaB[p]! / s));
  }
  const seize = ref.max > 255;
  const sortie = seize ? new Uint16Array(new SharedArrayBuffer(l * h * 3 * 2)) : new Uint8ClampedArray(new SharedArrayBuffer(l * h * 3));
  const { detail, bas, haut, ouverture } = f;
  await parRangees(FINALE, { largeur: l, hauteur: h, axes, basse, somme, cr, cb, ouverture, detail, bas, haut, ref, sortie }, h);
  return pixelsDe(sortie, l, h);
};

type Lignes = Record<'lb' | 'lw' | 'lr' | 'lc' | 'lo', Float32Array>;

const ligneFinale = (p: ParamsFinale, y: number, { lb, lw, lr, lc, lo }: Lignes): void => {
  const { largeur: l, detail, bas, haut, ref, sortie } = p;
  const seize = sortie instanceof Uint16Array;
  const plein = seize ? 65535 : 255;
  const [kr, kb, kv] = [KR / KV, KB / KV, plein / KV];
  const k = 1 / ECHELLE_BORNES;
  const [rr, rv, rb] = [KR / ref.max, KV / ref.max, KB / ref.max];
  const d = ref.data;
  const o = y * l;
  for (let x = 0, i = o * 3; x < l; x++, i += 3) {
    const pyramide = lb[x]! + detail[o + x]! / (lw[x]! || 1e-30);
    // Each bound as far from the reference's luminance as the opening lets it (the reference is within both).
    const yr = rr * d[i]! + rv * d[i + 1]! + rb * d[i + 2]!;
    const min = yr + (bas[o + x]! * k - yr) * lo[x]!;
    const max = yr + (haut[o + x]! * k - yr) * lo[x]!;
    const lum = pyramide < min ? min : pyramide > max ? max : pyramide;
    const echelle = lum > PLANCHER_CHROMA ? lum : PLANCHER_CHROMA;
    const r = lum + lr[x]! * echelle;
    const b = lum + lc[x]! * echelle;
    const [v0, v1, v2] = [r * plein, lum * kv - (r * kr + b * kb) * plein, b * plein];
    if (seize) {
      // A Uint16Array truncates and wraps: clamped here, and + 0.5 to round.
      sortie[i] = (v0 < 0 ? 0 : v0 > plein ? plein : v0) + 0.5;
      sortie[i + 1] = (v1 < 0 ? 0 : v1 > plein ? plein : v1) + 0.5;
      sortie[i + 2] = (v2 < 0 ? 0 : v2 > plein ? plein : v2) + 0.5;
      continue;
    }
    sortie[i] = v0;
    sortie[i + 1] = v1;
    sortie[i + 2] = v2;
  }
};
