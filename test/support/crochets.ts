/**
 * Brackets made from a real photo, for measuring `fusion` against a truth: the photo is taken as the
 * scene, and each frame is what a camera on a hand would record of it.
 *
 * Per frame: the photo linearised (sRGB), a person-sized dark figure standing at another place in each
 * frame (someone walking through the room), the frame moved as a hand moves between shots (shift and
 * rotation, the reference frame still), the exposure scaled (×¼, ×1, ×4 by default), clipped at white,
 * sensor noise added in linear light (photon noise and a read-noise floor, so the dark frame's shadows are
 * grainy as a camera's are), re-encoded to sRGB and JPEG (quality 92, 4:2:0 as cameras store it).
 *
 * The truth given back: the photo itself (the scene without the figure), where the figure stands in each
 * frame (in the reference's geometry), each frame's motion (reference pixel → frame pixel) and exposure.
 * The photo's own blown highlights stay blown in every frame: a dark frame renders them as flat grey,
 * with no detail to recover, unlike a real bracket's window.
 *
 * Deterministic: seeded hashes only. About 0.1 s for three 640 px frames; 20 s for five 24 MP frames.
 */
import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import type { Pixels } from '../../lambdas/moteurs/commun/pixels';
import { similitude, type Transformation } from '../../lambdas/moteurs/commun/fusion/transformation';
import { hachage } from './scenes-lumiere';

/** The photos of test/photos `fusion` is measured on: rooms with windows and dark corners, facades under blue, white and dusk skies. */
export const PHOTOS_FUSION = [
  'sejour_polyhaven-wooden-lounge.jpg',
  'cuisine_coco030213.jpg',
  'cuisine-sejour_coco180239.jpg',
  'piece-vide_polyhaven-old-hall.jpg',
  'salle-de-bain_coco006818.jpg',
  'chambre_coco403353.jpg',
  'facade-ciel-bleu_polyhaven-palermo.jpg',
  'facade-ciel-blanc_polyhaven-cambridge-a.jpg',
  'facade-crepuscule_polyhaven-vignaioli-a.jpg',
] as const;

export interface Mouvement {
  /** Shift as a share of the width and height, and rotation in degrees. */
  dx: number;
  dy: number;
  rotation: number;
}

export interface OptionsCrochets {
  /** Exposure factors in linear light, darkest first. Default ×¼, ×1, ×4. */
  expositions?: readonly number[];
  /** Position of the reference (no motion) in `expositions`. Default: the middle one. */
  reference?: number;
  /** Motion of each frame; the reference's is ignored. Default: a few per cent and about a degree. */
  mouvements?: readonly Mouvement[];
  /** The figure walking through, at another place in each frame. Default true. */
  personne?: boolean;
  /** Size of the scene: the photo resized to cover it. Default: 640 px wide, the photo's proportions. */
  largeur?: number;
  hauteur?: number;
  /** Noise scale (1: a phone at base ISO), default 1. */
  bruit?: number;
  qualite?: number;
  graine?: number;
}

export interface Crochets {
  /** JPEG frames, darkest first. */
  photos: Buffer[];
  reference: number;
  /** The scene (the photo resized), 8-bit sRGB: what the result should look like, without the figure. */
  original: Pixels;
  /** Per frame, reference pixel → frame pixel (centred coordinates). */
  transformations: Transformation[];
  /** Per frame, where the figure stands, in the reference's geometry (1 = figure), or null without one. */
  personnes: (Uint8Array | null)[];
  expositions: readonly number[];
  /** The scene with every frame's figure drawn at once, 8-bit sRGB, no noise: how much a figure changes each place. */
  avecPersonnes: () => Pixels;
}

const MOUVEMENTS: readonly Mouvement[] = [
  { dx: 0.018, dy: -0.011, rotation: -0.9 },
  { dx: -0.024, dy: 0.013, rotation: 1.3 },
  { dx: 0.031, dy: 0.017, rotation: 0.6 },
  { dx: -0.012, dy: -0.021, rotation: -1.6 },
  { dx: 0.008, dy: 0.026, rotation: 1.9 },
  { dx: -0.035, dy: -0.006, rotation: -0.4 },
  { dx: 0.022, dy: 0.009, rotation: 1.1 },
];

const versLineaire = Float32Array.from({ length: 256 }, (_, v) => {
  const c = v / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
});
/** 8-bit sRGB of linear light at 65 536 steps: a table, as a power per sample took most of a 24 MP frame's time. */
const SRGB = Uint8Array.from({ length: 65537 }, (_, i) => {
  const v = i / 65536;
  return Math.round(255 * (v <= 0.0031308 ? 12.92 * v : 1.055 * v ** (1 / 2.4) - 0.055));
});
const versSrgb = (v: number): number => SRGB[Math.round(v * 65536)]!;

/**
 * The figure at horizontal place `cx` (share of the width): a head, shoulders, a coat to the knees and two
 * legs, feet at 95 % of the height, half the frame tall. Coverage 0–1 (one-pixel soft edge).
 */
const silhouette = (l: number, h: number, cx: number): Float32Array => {
  const m = new Float32Array(l * h);
  const taille = 0.5 * h;
  const [pieds, haut] = [0.95 * h, 0.45 * h];
  const u = (y: number) => (y - haut) / taille; // 0 at the top of the head, 1 at the feet
  const xc = cx * l;
  // Half-width of the body at height t (share of the figure's height), or −1 where there is none.
  const demiLargeur = (t: number): number => {
    if (t < 0.13) return -1;
    if (t < 0.19) return taille * (0.1 + 0.08 * Math.sqrt((t - 0.13) / 0.06));
    if (t < 0.62) return taille * (0.18 - 0.06 * ((t - 0.19) / 0.43));
    return -1;
  };
  for (let y = Math.max(0, Math.floor(haut)); y < Math.min(h, Math.ceil(pieds)); y++) {
    const t = u(y);
    for (let x = Math.max(0, Math.floor(xc - 0.2 * taille)); x < Math.min(l, Math.ceil(xc + 0.2 * taille)); x++) {
      const dx = x - xc;
      const tete = 1 - Math.hypot(dx / (0.055 * taille), (t - 0.065) / 0.065);
      const corps = demiLargeur(t) - Math.abs(dx);
      // Two legs from the coat's hem down, a gap between them.
      const jambe = t >= 0.6 ? Math.min(0.075 * taille - Math.abs(Math.abs(dx) - 0.055 * taille), 0.5) : -1;
      m[y * l + x] = Math.max(0, Math.min(1, Math.max(tete * 0.055 * taille + 0.5, corps + 0.5, jambe + 0.5)));
    }
  }
  return m;
};

/** The figure at `cx` drawn into linear light (dark coat, a face); its mask. */
const dessinerPersonne = (lin: Float32Array, l: number, h: number, cx: number): Uint8Array => {
  const m = silhouette(l, h, cx);
  // The face: the top 13 % of the figure (its head).
  const finVisage = 0.45 * h + 0.5 * h * 0.13;
  for (let p = 0; p < l * h; p++) {
    const a = m[p]!;
    if (!a) continue;
    const visage = Math.floor(p / l) < finVisage;
    const c = visage ? [0.32, 0.2, 0.15] : [0.018 + 0.01 * hachage((p % l) >> 2, p / l / 4, 3), 0.022, 0.035];
    for (let k = 0; k < 3; k++) lin[p * 3 + k] = lin[p * 3 + k]! * (1 - a) + c[k]! * a;
  }
  return Uint8Array.from(m, (v) => (v > 0.5 ? 1 : 0));
};

/** Linear light of the scene with the figure at `cx` (none: null), into `sortie` (3 per pixel); the figure's mask. */
const scene = (photo: Buffer, l: number, h: number, cx: number | null, sortie: Float32Array): Uint8Array | null => {
  for (let i = 0; i < photo.length; i++) sortie[i] = versLineaire[photo[i]!]!;
  return cx === null ? null : dessinerPersonne(sortie, l, h, cx);
};

/** One frame: the scene seen through `t` (bilinear, edges repeated), exposed, clipped, noisy, 8-bit sRGB. */
const exposer = (lin: Float32Array, l: number, h: number, t: Transformation, k: number, bruit: number, graine: number): Buffer => {
  const sortie = Buffer.alloc(l * h * 3);
  const [cx, cy] = [(l - 1) / 2, (h - 1) / 2];
  const det = t.a * t.d - t.b * t.c;
  const [ia, ib, ic, id] = [t.d / det, -t.b / det, -t.c / det, t.a / det];
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < l; x++) {
      // The frame's pixel (x, y) sees the scene at t⁻¹(x, y).
      const [u, v] = [x - cx - t.tx, y - cy - t.ty];
      const X = Math.min(l - 1, Math.max(0, ia * u + ib * v + cx));
      const Y = Math.min(h - 1, Math.max(0, ic * u + id * v + cy));
      const [x0, y0] = [Math.min(l - 2, Math.floor(X)), Math.min(h - 2, Math.floor(Y))];
      const [fx, fy] = [X - x0, Y - y0];
      const j = (y0 * l + x0) * 3;
      const o = (y * l + x) * 3;
      for (let c = 0; c < 3; c++) {
        const haut = lin[j + c]! + (lin[j + 3 + c]! - lin[j + c]!) * fx;
        const bas = lin[j + l * 3 + c]! + (lin[j + l * 3 + 3 + c]! - lin[j + l * 3 + c]!) * fx;
        const s = Math.min(1, (haut + (bas - haut) * fy) * k);
        const gauss = (hachage(x, y, graine + c) + hachage(x, y, graine + 17 + c) - 1) * 2.449;
        const n = Math.max(0, Math.min(1, s + gauss * bruit * Math.sqrt(0.000006 + 0.00012 * s)));
        sortie[o + c] = versSrgb(n);
      }
    }
  }
  return sortie;
};

export const fabriquerCrochets = async (source: string | Buffer, options: OptionsCrochets = {}): Promise<Crochets> => {
  const expositions = options.expositions ?? [0.25, 1, 4];
  const reference = options.reference ?? Math.floor((expositions.length - 1) / 2);
  // From memory: the engines' module blocks libvips's file loaders (pixels.ts).
  const octets = typeof source === 'string' ? await readFile(source) : source;
  const meta = await sharp(octets).metadata();
  const l = options.largeur ?? 640;
  const h = options.hauteur ?? Math.round((l * meta.height) / meta.width);
  const { data: photo } = await sharp(octets).rotate().resize(l, h, { fit: 'cover' }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const lin = new Float32Array(l * h * 3);
  const [photos, transformations, personnes]: [Buffer[], Transformation[], (Uint8Array | null)[]] = [[], [], []];
  for (let f = 0; f < expositions.length; f++) {
    const m = (options.mouvements ?? MOUVEMENTS)[f % 7]!;
    const t = f === reference ? similitude(0, 1, 0, 0) : similitude((m.rotation * Math.PI) / 180, 1, m.dx * l, m.dy * h);
    // The figure walks across: evenly spaced places from 18 % to 82 % of the width.
    const cx = options.personne === false ? null : 0.18 + (0.64 * f) / Math.max(1, expositions.length - 1);
    personnes.push(scene(photo, l, h, cx, lin));
    const brut = exposer(lin, l, h, t, expositions[f]!, options.bruit ?? 1, (options.graine ?? 0) * 131 + f * 7);
    photos.push(
      await sharp(brut, { raw: { width: l, height: h, channels: 3 } })
        .jpeg({ quality: options.qualite ?? 92 })
        .toBuffer(),
    );
    transformations.push(t);
  }
  const avecPersonnes = (): Pixels => {
    const places = personnes.map((_, f) => (options.personne === false ? null : 0.18 + (0.64 * f) / Math.max(1, expositions.length - 1)));
    const tout = new Float32Array(l * h * 3);
    for (let i = 0; i < photo.length; i++) tout[i] = versLineaire[photo[i]!]!;
    for (const cx of places) if (cx !== null) dessinerPersonne(tout, l, h, cx);
    return { data: Buffer.from(Uint8Array.from(tout, (v) => versSrgb(Math.min(1, v)))), largeur: l, hauteur: h };
  };
  return { photos, reference, original: { data: photo, largeur: l, hauteur: h }, transformations, personnes, expositions, avecPersonnes };
};
