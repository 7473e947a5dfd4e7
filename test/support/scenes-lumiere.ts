/**
 * Photos for judging light and sky: seven scenes a listing photographer meets, each drawn pixel by
 * pixel with texture (render, brick joints, planks, foliage, snow crust, asphalt), a lens vignette and
 * sensor grain stronger in the shadows, and each with the truth of what every pixel is (sky, facade,
 * ground, window...), so that a detector or a correction can be measured against it.
 *
 * Deterministic: seeded hashes only, no clock, no Math.random. About 30 ms per scene at 480 × 320.
 */
import type { Pixels } from '../../lambdas/moteurs/commun/pixels';

export type Zone = 'ciel' | 'facade' | 'toit' | 'vitre' | 'sol' | 'vegetation' | 'mur' | 'plafond' | 'plancher';

export interface SceneLumiere {
  nom: string;
  /** What a photographer would call it, for the bench's table. */
  description: string;
  pixels: Pixels;
  /** Per pixel, the index of its zone in ZONES. */
  zones: Uint8Array;
  /** Whether the photo is well exposed as shot (the correction must then leave its light alone). */
  bienExposee: boolean;
}

export const ZONES: readonly Zone[] = ['ciel', 'facade', 'toit', 'vitre', 'sol', 'vegetation', 'mur', 'plafond', 'plancher'];
const Z = Object.fromEntries(ZONES.map((z, i) => [z, i])) as Record<Zone, number>;

export type Rgb = [number, number, number];

export const hachage = (x: number, y: number, graine: number): number => {
  let v = Math.imul(x | 0, 0x27d4eb2d) ^ Math.imul(y | 0, 0x165667b1) ^ Math.imul(graine + 1, 0x9e3779b1);
  v = Math.imul(v ^ (v >>> 15), 0x85ebca6b);
  v = Math.imul(v ^ (v >>> 13), 0xc2b2ae35);
  return ((v ^ (v >>> 16)) >>> 0) / 2 ** 32;
};

/**
 * Smoothstep, at module level: made inside `bruit`, it was made again for every pixel, and under tsx (the
 * benches) keepNames renamed each one: six times slower than under vitest.
 */
const lisse = (t: number) => t * t * (3 - 2 * t);

/** Smooth value noise in [0, 1]: `cellules` cells across the frame's width. */
export const bruit = (fx: number, fy: number, cellules: number, graine: number): number => {
  const [x, y] = [fx * cellules, fy * cellules];
  const [i, j] = [Math.floor(x), Math.floor(y)];
  const [tx, ty] = [lisse(x - i), lisse(y - j)];
  const a = hachage(i, j, graine),
    b = hachage(i + 1, j, graine),
    c = hachage(i, j + 1, graine),
    d = hachage(i + 1, j + 1, graine);
  return (a + (b - a) * tx) * (1 - ty) + (c + (d - c) * tx) * ty;
};
export const fbm = (fx: number, fy: number, cellules: number, graine: number) =>
  0.55 * bruit(fx, fy, cellules, graine) + 0.3 * bruit(fx, fy, cellules * 2.3, graine + 1) + 0.15 * bruit(fx, fy, cellules * 5.1, graine + 2);

export const melange = (a: Rgb, b: Rgb, t: number): Rgb => [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];
export const fois = (c: Rgb, k: number): Rgb => [c[0] * k, c[1] * k, c[2] * k];

/** One pixel of a scene: its colour before the camera, and what it is. */
type Rendu = (fx: number, fy: number, x: number, y: number) => { c: Rgb; zone: Zone; grain?: number };

interface Camera {
  /** sRGB-coded exposure factor: 1 as metered well, 0.4 a stop and a half under. */
  exposition: number;
  graine: number;
}

const photographier = (
  nom: string,
  description: string,
  rendu: Rendu,
  camera: Camera,
  bienExposee: boolean,
  largeur: number,
  hauteur: number,
): SceneLumiere => {
  const data = Buffer.alloc(largeur * hauteur * 3);
  const zones = new Uint8Array(largeur * hauteur);
  for (let y = 0; y < hauteur; y++) {
    for (let x = 0; x < largeur; x++) {
      const [fx, fy] = [(x + 0.5) / largeur, (y + 0.5) / hauteur];
      const { c, zone, grain = 1 } = rendu(fx, fy, x, y);
      const p = y * largeur + x;
      zones[p] = Z[zone];
      const vignette = 1 - 0.22 * ((fx - 0.5) ** 2 + (fy - 0.5) ** 2);
      const l = (c[0] + c[1] + c[2]) / 765;
      // Triangular luminance grain, stronger in the shadows, and a little chroma noise.
      const g = (hachage(x, y, camera.graine) + hachage(x, y, camera.graine + 7) - 1) * (4 + 6 * (1 - l * camera.exposition)) * grain;
      for (let k = 0; k < 3; k++) {
        const v = c[k]! * camera.exposition * vignette + g + (hachage(x, y, camera.graine + 11 + k) - 0.5) * 2;
        data[p * 3 + k] = Math.max(0, Math.min(255, Math.round(v)));
      }
    }
  }
  return { nom, description, pixels: { data, largeur, hauteur }, zones, bienExposee };
};

interface Exterieur {
  ciel: (fx: number, fy: number) => Rgb;
  horizon: number;
  arbres: Rgb;
  enduit: Rgb;
  briques?: boolean;
  toit: Rgb;
  vitre: (ly: number) => Rgb;
  sol: (fx: number, fy: number) => { c: Rgb; zone: Zone };
  /** Buildings that rise to the top of the frame on both sides (a street). */
  rue?: { gauche: Rgb; droite: Rgb };
}

/** A house front on, a tree line on the horizon, the ground in front; or a street between two facades. */
const exterieur =
  (o: Exterieur, graine: number): Rendu =>
  (fx, fy, x, y) => {
    if (o.rue) {
      const bord = 0.26 + 0.05 * fy;
      const cote = fx < bord ? o.rue.gauche : fx > 1 - bord ? o.rue.droite : null;
      if (cote && fy < 0.82) {
        const u = fx < bord ? fx : 1 - fx;
        const fenetre = Math.floor(fy * 9) % 2 === 1 && (u * 14) % 1 > 0.35 && (u * 14) % 1 < 0.8;
        if (fenetre) return { c: melange([40, 46, 54], [96, 104, 114], 1 - ((fy * 9) % 1)), zone: 'vitre' };
        const joint = (fy * 40) % 1 < 0.08 ? 0.86 : 1;
        return { c: fois(cote, joint * (0.92 + 0.12 * fbm(fx, fy, 30, graine + 5))), zone: 'facade', grain: 1.3 };
      }
    }
    const [m0, m1] = [0.24, 0.76];
    const faite = 0.2,
      egout = 0.36,
      pied = o.horizon + 0.1;
    const dansToit = fx > m0 - 0.02 && fx < m1 + 0.02 && fy >= faite + Math.abs(fx - 0.5) * 0.3 && fy < egout;
    if (dansToit) {
      const rang = Math.floor(fy * 70);
      const tuile = 0.8 + 0.3 * hachage(Math.floor(fx * 60 + (rang % 2) * 0.5), rang, graine + 3);
      return { c: fois(o.toit, tuile * (0.85 + 0.2 * ((fy * 70) % 1))), zone: 'toit', grain: 1.2 };
    }
    if (fx > m0 && fx < m1 && fy >= egout && fy < pied) {
      const [u, v] = [(fx - m0) / (m1 - m0), (fy - egout) / (pied - egout)];
      for (const [v0, v1] of [
        [0.12, 0.42],
        [0.56, 0.86],
      ] as const) {
        for (const c0 of [0.1, 0.32, 0.58, 0.8]) {
          if (u < c0 || u > c0 + 0.12 || v < v0 || v > v1) continue;
          const cadre = u < c0 + 0.012 || u > c0 + 0.108 || v < v0 + 0.03 || v > v1 - 0.03;
          return cadre ? { c: [232, 232, 228], zone: 'facade' } : { c: o.vitre((v - v0) / (v1 - v0)), zone: 'vitre' };
        }
      }
      if (o.briques) {
        const rang = Math.floor(fy * 90),
          col = Math.floor(fx * 40 + (rang % 2) * 0.5);
        const joint = (fy * 90) % 1 < 0.18 || (fx * 40 + (rang % 2) * 0.5) % 1 < 0.06;
        if (joint) return { c: [186, 180, 170], zone: 'facade' };
        return { c: fois(o.enduit, 0.82 + 0.3 * hachage(col, rang, graine)), zone: 'facade', grain: 1.4 };
      }
      return { c: fois(o.enduit, (0.9 + 0.14 * fbm(fx, fy, 40, graine + 4)) * (0.94 + 0.06 * v)), zone: 'facade', grain: 1.2 };
    }
    // Tree line: an irregular top a few percent above the horizon.
    const cime = o.horizon - 0.05 - 0.09 * fbm(fx, 0, 14, graine + 6);
    if (fy >= cime && fy < o.horizon) {
      const f = 0.55 + 0.8 * hachage(x >> 1, y >> 1, graine + 8);
      return { c: fois(o.arbres, f), zone: 'vegetation', grain: 1.6 };
    }
    if (fy < o.horizon) return { c: o.ciel(fx, fy), zone: 'ciel', grain: 0.5 };
    return o.sol(fx, fy);
  };

interface Interieur {
  mur: Rgb;
  plafond: Rgb;
  plancher: Rgb;
  vue: (fx: number, fy: number) => Rgb;
  fenetre: { x0: number; x1: number; y0: number; y1: number };
}

/** A room seen from its doorway: back wall with a window, side walls, ceiling and floor in perspective. */
const interieur =
  (o: Interieur, graine: number): Rendu =>
  (fx, fy) => {
    const [bx0, bx1, by0, by1] = [0.22, 0.78, 0.2, 0.7];
    const gauche = bx0 * (fy < by0 ? fy / by0 : fy > by1 ? (1 - fy) / (1 - by1) : 1);
    const droite = 1 - (1 - bx1) * (fy < by0 ? fy / by0 : fy > by1 ? (1 - fy) / (1 - by1) : 1);
    const platre = 0.93 + 0.1 * fbm(fx, fy, 50, graine + 2);
    if (fy < by0 && fx > gauche && fx < droite) return { c: fois(o.plafond, platre * (0.86 + 0.14 * (fy / by0))), zone: 'plafond' };
    if (fy > by1 && fx > gauche && fx < droite) {
      const planche = Math.floor(((fx - 0.5) / (fy - 0.45 + 0.05)) * 6);
      const k = 0.85 + 0.25 * hachage(planche, Math.floor(fy * 12), graine + 3);
      return { c: fois(o.plancher, k * (0.92 + 0.1 * fbm(fx * 8, fy, 6, graine + 4))), zone: 'plancher', grain: 1.2 };
    }
    if (fx <= gauche || fx >= droite) return { c: fois(o.mur, platre * (fx <= gauche ? 0.8 : 0.88)), zone: 'mur' };
    const f = o.fenetre;
    if (fx > f.x0 && fx < f.x1 && fy > f.y0 && fy < f.y1) {
      const cadre = fx < f.x0 + 0.012 || fx > f.x1 - 0.012 || fy < f.y0 + 0.016 || fy > f.y1 - 0.016 || Math.abs(fx - (f.x0 + f.x1) / 2) < 0.006;
      return cadre ? { c: [240, 238, 232], zone: 'mur' } : { c: o.vue((fx - f.x0) / (f.x1 - f.x0), (fy - f.y0) / (f.y1 - f.y0)), zone: 'vitre', grain: 0.4 };
    }
    return { c: fois(o.mur, platre), zone: 'mur' };
  };

const cielClair =
  (graine: number) =>
  (fx: number, fy: number): Rgb => {
    const bleu = melange([92, 150, 224], [196, 214, 236], Math.min(1, fy / 0.5));
    const n = fbm(fx, fy * 1.6, 5, graine);
    const nuage = n < 0.5 ? 0 : Math.min(1, (n - 0.5) / 0.3);
    return melange(bleu, [244, 245, 248], nuage * 0.85);
  };
const cielCouvert =
  (graine: number) =>
  (fx: number, fy: number): Rgb =>
    fois(melange([148, 157, 166], [160, 167, 174], fy / 0.5), 0.97 + 0.06 * fbm(fx, fy, 4, graine));

const LARGEUR = 480,
  HAUTEUR = 320;

export const scenesLumiere = (largeur = LARGEUR, hauteur = HAUTEUR): SceneLumiere[] => {
  const vueClaire = (fx: number, fy: number): Rgb =>
    fy > 0.6 ? melange([150, 180, 120], [120, 150, 96], fbm(fx, fy, 8, 3)) : melange([210, 224, 240], [236, 240, 244], fy / 0.6);
  const pelouse = (fx: number, fy: number) => ({
    c: fois([100, 146, 64], 0.8 + 0.35 * hachage(Math.floor(fx * 400), Math.floor(fy * 120), 9)),
    zone: 'sol' as Zone,
  });
  return [
    photographier(
      'bien-exposee',
      'sunny house, clear sky with clouds (well exposed)',
      exterieur(
        {
          ciel: cielClair(1),
          horizon: 0.52,
          arbres: [52, 84, 42],
          enduit: [214, 196, 168],
          toit: [124, 72, 56],
          vitre: (ly) => melange([120, 140, 170], [50, 60, 78], ly),
          sol: pelouse,
        },
        1,
      ),
      { exposition: 1, graine: 1 },
      true,
      largeur,
      hauteur,
    ),
    photographier(
      'interieur-blanc',
      'white room, warm walls and ceiling to the top of the frame (well exposed)',
      interieur(
        {
          mur: [238, 232, 222],
          plafond: [232, 226, 216],
          plancher: [192, 152, 112],
          vue: vueClaire,
          fenetre: { x0: 0.34, x1: 0.6, y0: 0.28, y1: 0.62 },
        },
        2,
      ),
      { exposition: 1, graine: 2 },
      true,
      largeur,
      hauteur,
    ),
    photographier(
      'interieur-sombre',
      'interior shot without flash, under-exposed',
      interieur(
        {
          mur: [226, 214, 196],
          plafond: [230, 224, 212],
          plancher: [170, 124, 86],
          vue: vueClaire,
          fenetre: { x0: 0.4, x1: 0.56, y0: 0.3, y1: 0.56 },
        },
        3,
      ),
      { exposition: 0.36, graine: 3 },
      false,
      largeur,
      hauteur,
    ),
    photographier(
      'contre-jour',
      'backlit room: a dark room around a blown-out window',
      interieur(
        {
          mur: [150, 140, 126],
          plafond: [140, 134, 124],
          plancher: [120, 88, 62],
          vue: (fx, fy) => fois([250, 252, 255], 1.9 + 0.2 * fbm(fx, fy, 6, 4)),
          fenetre: { x0: 0.3, x1: 0.7, y0: 0.26, y1: 0.66 },
        },
        4,
      ),
      { exposition: 0.55, graine: 4 },
      false,
      largeur,
      hauteur,
    ),
    photographier(
      'jardin-hiver',
      'winter garden: overcast #9aa3ab sky, snow metered to grey',
      exterieur(
        {
          ciel: cielCouvert(5),
          horizon: 0.5,
          arbres: [74, 68, 64],
          enduit: [162, 154, 142],
          toit: [92, 82, 76],
          vitre: (ly) => melange([110, 118, 128], [44, 48, 56], ly),
          sol: (fx, fy) => ({
            c: fois([124, 129, 136], 0.92 + 0.1 * fbm(fx, fy, 60, 6) + 0.04 * hachage(Math.floor(fx * 240), Math.floor(fy * 160), 6)),
            zone: 'sol',
          }),
        },
        5,
      ),
      { exposition: 1, graine: 5 },
      false,
      largeur,
      hauteur,
    ),
    photographier(
      'crepuscule',
      'dusk facade: blue-hour sky, lit windows',
      exterieur(
        {
          ciel: (fx, fy) => melange([42, 58, 118], [118, 120, 164], Math.min(1, fy / 0.5)),
          horizon: 0.5,
          arbres: [30, 36, 30],
          enduit: [96, 84, 72],
          briques: true,
          toit: [50, 44, 42],
          vitre: (ly) => melange([255, 214, 150], [210, 150, 90], ly),
          sol: (fx, fy) => ({ c: fois([58, 56, 54], 0.8 + 0.4 * fbm(fx, fy, 80, 7)), zone: 'sol' }),
        },
        6,
      ),
      { exposition: 1, graine: 6 },
      false,
      largeur,
      hauteur,
    ),
    photographier(
      'rue-couverte',
      'overcast street between grey facades that reach the top of the frame',
      exterieur(
        {
          ciel: cielCouvert(7),
          horizon: 0.5,
          arbres: [64, 70, 58],
          enduit: [150, 146, 140],
          toit: [70, 66, 64],
          vitre: (ly) => melange([96, 104, 114], [40, 46, 54], ly),
          rue: { gauche: [128, 126, 122], droite: [172, 166, 158] },
          sol: (fx, fy) => ({ c: fois([100, 100, 103], 0.82 + 0.3 * hachage(Math.floor(fx * 300), Math.floor(fy * 200), 8)), zone: 'sol' }),
        },
        7,
      ),
      { exposition: 1, graine: 7 },
      true,
      largeur,
      hauteur,
    ),
  ];
};

/** 1 where the scene's truth says `zone`. */
export const verite = (scene: SceneLumiere, zone: Zone): Uint8Array => Uint8Array.from(scene.zones, (z) => (z === Z[zone] ? 1 : 0));

/** Precision and recall of a detected mask (1 = detected) against the truth (1 = is). */
export const precisionRappel = (detecte: ArrayLike<number>, vrai: ArrayLike<number>): { precision: number; rappel: number } => {
  let [vp, fp, fn] = [0, 0, 0];
  for (let i = 0; i < vrai.length; i++) {
    if (detecte[i] && vrai[i]) vp++;
    else if (detecte[i]) fp++;
    else if (vrai[i]) fn++;
  }
  return { precision: vp + fp ? vp / (vp + fp) : 1, rappel: vp + fn ? vp / (vp + fn) : 1 };
};

/** Luminance figures of the pixels where `garder` is 1: mean and median in [0, 1], clipped shares in %. */
export const mesurerLumiere = ({ data }: Pixels, garder: ArrayLike<number>) => {
  const histo = new Float64Array(256);
  let [n, somme, hautes, basses] = [0, 0, 0, 0];
  for (let p = 0; p < garder.length; p++) {
    if (!garder[p]) continue;
    const l = 0.299 * data[p * 3]! + 0.587 * data[p * 3 + 1]! + 0.114 * data[p * 3 + 2]!;
    histo[Math.round(l)]!++;
    (n++, (somme += l));
    if (l >= 250) hautes++;
    if (l <= 5) basses++;
  }
  let [cumul, mediane] = [0, 0];
  for (let v = 0; v < 256; v++)
    if ((cumul += histo[v]!) >= n / 2) {
      mediane = v;
      break;
    }
  return { moyenne: somme / n / 255, mediane: mediane / 255, hautes: (100 * hautes) / n, basses: (100 * basses) / n };
};
