/**
 * Whether a vider preview's fill may be delivered: a fill that continues the room reads as floor and
 * wall, a blur reads as a stain (issue 39: beds and sofas delivered as smudges, "Structure kept: 100 %"
 * since a smudge moves no line). What tells them apart is detail: the fine texture of the filled area
 * against that of the same surface just around it (floor against floor, wall against wall).
 *
 * `detail`: per surface, the mean fine detail (luminance less its blur, at most DETAIL_MAX levels so that
 * a door frame in the ring does not outweigh a whole floor's grain) inside the mask, away from its
 * feathered edge, over the same in a ring of the photo around the mask; each surface weighed by its share
 * of the filled area. 1: as detailed as around; 0: flat. A plain painted wall or a drawn floor has
 * nearly no grain to continue: NEUTRE levels added to both sides make a flat fill of a flat surface
 * score near 1, not 0/0.
 * `part`: the mask's share of the frame. Past PART_MAX, what furniture hid is most of the room (where the
 * floor meets the wall behind a bed, what stood there): a copy of the room's texture would be invented,
 * not continued, however detailed.
 * `vu`: for each surface the fill rebuilds (at least SURFACE_MIN of it), how much of that surface the photo
 * shows away from the furniture (beyond LOIN of the mask), over the area rebuilt; the least of them. A floor
 * seen only in the ring is no floor: where a detector's box took a sofa's seat and not its back, the "floor"
 * around it was the sofa and a blanket, and the fill, detailed, was a patchwork of them (issue 39).
 */
import sharp from 'sharp';
import { ErreurTravail } from '../../core/modele/erreurs';
import { sommesRectangles } from '../commun/masques';
import { depuisPixels, luminance, type Pixels } from '../commun/pixels';
import { trouverSol } from '../commun/sol';

/** Long edge of the copy measured: the vider fill's own (vider.ts), where its texture lives. */
export const COTE_MESURE = 480;
/**
 * Below this, the fill is a smudge: set between the fills seen as blurs on the real rooms of test/photos
 * (0.26–0.55 before issue 39's change) and those that continue their floor and wall (docs/engines.md,
 * `npx tsx bench/vider-reel.ts`).
 */
export const SEUIL_DETAIL = 0.6;
/** Above this share of the frame, the area to rebuild is most of the room: refused whatever its detail. */
export const PART_MAX = 0.3;
/**
 * Under this, a surface the fill rebuilds is not seen in the photo beyond the furniture's surroundings: refused.
 * Half its rebuilt area: the drawn living room shows its wall and floor over 2.8 and 4 times theirs; the sofa
 * whose box took only its seat, 0 (docs/engines.md).
 */
export const SEUIL_VU = 0.5;
/** A surface under this share of the filled area is a sliver (a floor's edge under a table): not held to SEUIL_VU. */
const SURFACE_MIN = 0.2;

/**
 * The band of detail measured: the luminance blurred by the first sigma less it blurred by the second
 * (pixels of the copy). Texture, planks and tile joints live there; a pixel's own noise (the grain vider
 * adds at full size, JPEG's) is mostly blurred away by the first, so it cannot pass for texture.
 */
const [FLOU_FIN, FLOU_LARGE] = [1, 3];
/** Detail counted per pixel at most (levels): a surface's grain and lines, not an object's outline. */
const DETAIL_MAX = 16;
/** Levels added to both sides of the ratio: a flat surface continued flat scores near 1. */
const NEUTRE = 0.8;
/** Width of the ring around the mask (pixels of the copy), and of the feathered edge left out inside. */
const [ANNEAU, BORD] = [14, 3];
/** "Away from the furniture": beyond three rings of the mask (pixels of the copy). */
const LOIN = 3 * ANNEAU;
/** Under this many ring pixels of its own surface, a surface is compared with the whole ring. */
const ANNEAU_MIN = 60;
/**
 * Under this many pixels inside (away from the edge), a fill is too small to show as a smudge and its
 * detail too few pixels to judge (a drawn test image of 96 × 64): scored 1.
 */
const INTERIEUR_MIN = 500;

export interface QualiteRemplissage {
  /** Detail of the fill over its surroundings', per surface, weighed (see the module's comment). */
  detail: number;
  /** The mask's share of the frame. */
  part: number;
  /** How much of each surface rebuilt is seen away from the furniture, over its rebuilt area: the least (see the module's comment). */
  vu: number;
}

/**
 * 1 where a pixel (l × h) is floor or below the floor line in its column, 0 above it (walls). Where
 * furniture stands on the floor line, the floor found stops at the furniture's foot or a rug's edge, not
 * at the wall (in the drawn living room a sofa and a rug made most of the filled area "wall", and the
 * wall's picture was copied onto the floor): a column whose floor top touches `masque` (l × h, non-zero:
 * what vider fills), or that shows no floor, takes the line between the nearest columns where the floor
 * meets something left in view, or the nearest one's height at the frame's edge.
 */
export const surfaces = async (p: Pixels, l: number, h: number, masque?: Uint8Array): Promise<Uint8Array> => {
  const { analyse, sol } = await trouverSol(p);
  const [la, ha] = [analyse.largeur, analyse.hauteur];
  const haut = new Float64Array(la).fill(NaN);
  const cache = (x: number, y: number) => !!masque?.[Math.min(h - 1, Math.floor((y / ha) * h)) * l + Math.min(l - 1, Math.floor((x / la) * l))];
  for (let x = 0; x < la; x++)
    for (let y = 0; y < ha; y++)
      if (sol[y * la + x]) {
        // Hidden just above (a few rows of the analysis copy): the floor goes on behind the furniture.
        if (![1, 2, 3].some((d) => y - d >= 0 && cache(x, y - d))) haut[x] = y / ha;
        break;
      }
  const vus = [...haut.keys()].filter((x) => !Number.isNaN(haut[x]));
  if (!vus.length) return new Uint8Array(l * h);
  for (let x = 0, k = 0; x < la; x++) {
    while (k < vus.length - 1 && vus[k + 1]! <= x) k++;
    if (!Number.isNaN(haut[x])) continue;
    const [a, b] = [vus[k]!, vus[Math.min(vus.length - 1, k + 1)]!];
    haut[x] = x <= a || a === b ? haut[a]! : x >= b ? haut[b]! : haut[a]! + ((haut[b]! - haut[a]!) * (x - a)) / (b - a);
  }
  const classes = new Uint8Array(l * h);
  for (let y = 0; y < h; y++) for (let x = 0; x < l; x++) classes[y * l + x] = y / h >= haut[Math.min(la - 1, Math.floor((x / l) * la))]! ? 1 : 0;
  return classes;
};

/** Separable Gaussian blur of a float image (l × h), edges clamped. */
const flouter = (v: Float32Array, l: number, h: number, sigma: number): Float32Array => {
  const r = Math.ceil(3 * sigma);
  const noyau = Float32Array.from({ length: 2 * r + 1 }, (_, i) => Math.exp(-((i - r) ** 2) / (2 * sigma * sigma)));
  const total = noyau.reduce((a, b) => a + b, 0);
  for (let i = 0; i < noyau.length; i++) noyau[i]! /= total;
  const passe = (src: Float32Array, dx: number, dy: number): Float32Array => {
    const dst = new Float32Array(l * h);
    for (let y = 0; y < h; y++)
      for (let x = 0; x < l; x++) {
        let somme = 0;
        for (let k = -r; k <= r; k++) {
          const [sx, sy] = [Math.min(l - 1, Math.max(0, x + k * dx)), Math.min(h - 1, Math.max(0, y + k * dy))];
          somme += noyau[k + r]! * src[sy * l + sx]!;
        }
        dst[y * l + x] = somme;
      }
    return dst;
  };
  return passe(passe(v, 1, 0), 0, 1);
};

/** Detail per pixel of an RGB copy: |luminance blurred finely − blurred widely|, bounded. */
const detailFin = (rgb: Uint8Array, l: number, h: number): Float32Array => {
  const lum = Float32Array.from({ length: l * h }, (_, p) => luminance(rgb[p * 3]!, rgb[p * 3 + 1]!, rgb[p * 3 + 2]!));
  const [fin, large] = [flouter(lum, l, h, FLOU_FIN), flouter(lum, l, h, FLOU_LARGE)];
  return Float32Array.from(fin, (v, p) => Math.min(DETAIL_MAX, Math.abs(v - large[p]!)));
};

/**
 * The measure on a copy already at analysis size: `rgb` the result (l × h × 3), `masque` what was filled
 * (non-zero), `classes` the surfaces (1 floor, 0 wall).
 */
export const mesurerCopie = async (rgb: Uint8Array, masque: Uint8Array, classes: Uint8Array, l: number, h: number): Promise<QualiteRemplissage> => {
  const dans = sommesRectangles(l, h, (p) => (masque[p] ? 1 : 0));
  const carre = (p: number, r: number): [number, number, number, number] => {
    const [x, y] = [p % l, (p / l) | 0];
    return [Math.max(0, x - r), Math.max(0, y - r), Math.min(l, x + r + 1), Math.min(h, y + r + 1)];
  };
  const detail = detailFin(rgb, l, h);
  // Per surface: [sum, count] inside (away from the feathered edge) and in the ring.
  const interieur = [
    [0, 0],
    [0, 0],
  ];
  const anneau = [
    [0, 0],
    [0, 0],
  ];
  let n = 0;
  // Per surface, its pixels seen away from the mask.
  const loin = [0, 0];
  for (let p = 0; p < l * h; p++) {
    const c = classes[p]!;
    if (!masque[p] && !dans(...carre(p, LOIN))) loin[c]!++;
    if (masque[p]) {
      n++;
      const [x0, y0, x1, y1] = carre(p, BORD);
      if (dans(x0, y0, x1, y1) < (x1 - x0) * (y1 - y0)) continue;
      interieur[c]![0]! += detail[p]!;
      interieur[c]![1]!++;
    } else if (dans(...carre(p, ANNEAU)) > 0) {
      anneau[c]![0]! += detail[p]!;
      anneau[c]![1]!++;
    }
  }
  const tout = [anneau[0]![0]! + anneau[1]![0]!, anneau[0]![1]! + anneau[1]![1]!];
  const total = interieur[0]![1]! + interieur[1]![1]!;
  let score = 0;
  for (const c of [0, 1]) {
    const [somme, compte] = interieur[c]!;
    if (!compte) continue;
    const [sa, ca] = anneau[c]![1]! >= ANNEAU_MIN ? anneau[c]! : tout;
    const autour = ca ? sa! / ca : 0;
    score += (compte / total) * ((somme! / compte + NEUTRE) / (autour + NEUTRE));
  }
  // Judged on the whole mask (its feathered edge included): a surface rebuilt, and how much of it is seen elsewhere.
  const rebatis = [0, 0];
  for (let p = 0; p < l * h; p++) if (masque[p]) rebatis[classes[p]!]!++;
  const vu = Math.min(...[0, 1].filter((c) => n && rebatis[c]! / n >= SURFACE_MIN).map((c) => loin[c]! / rebatis[c]!));
  return { detail: total >= INTERIEUR_MIN ? score : 1, part: n / (l * h), vu: total >= INTERIEUR_MIN ? vu : Infinity };
};

/** The copy's size for a photo of l × h. */
export const tailleMesure = (l: number, h: number): [number, number] => {
  const echelle = Math.min(1, COTE_MESURE / Math.max(l, h));
  return [Math.max(1, Math.round(l * echelle)), Math.max(1, Math.round(h * echelle))];
};

/**
 * The measure of a result: `avant` the photo (its floor tells the surfaces apart, as vider's fill does),
 * `apres` the result, `masque` vider's zone (non-zero where filled, at their size); `classes` the
 * surfaces at tailleMesure if already found.
 */
export const mesurerRemplissage = async (avant: Pixels, apres: Pixels, masque: Uint8Array, classes?: Uint8Array): Promise<QualiteRemplissage> => {
  const { largeur: l, hauteur: h } = apres;
  const [lp, hp] = tailleMesure(l, h);
  const rgb = await depuisPixels(apres).resize(lp, hp, { fit: 'fill' }).raw().toBuffer();
  const petit = await sharp(Buffer.from(masque.buffer, masque.byteOffset, masque.length), { raw: { width: l, height: h, channels: 1 } })
    .resize(lp, hp, { fit: 'fill' })
    .extractChannel(0)
    .raw()
    .toBuffer();
  return mesurerCopie(rgb, petit, classes ?? (await surfaces(avant, lp, hp, petit)), lp, hp);
};

const pourcent = (v: number) => `${Math.round(v * 100)} %`;

/**
 * Throws `remplissage_insuffisant` (the job fails and is refunded) when the fill may not be delivered,
 * with a message saying why in words an estate agent reads.
 */
export const refuserSiTache = ({ detail, part, vu }: QualiteRemplissage): void => {
  if (part > PART_MAX)
    throw new ErreurTravail(
      'remplissage_insuffisant',
      `The area to rebuild is too large for the preview engine: the furniture found covers ${pourcent(part)} of the photo (at most ${pourcent(PART_MAX)}), and what it hides (where the floor meets the walls) cannot be continued from the rest of the room. No blurred result was delivered; the job was refunded.`,
    );
  if (vu < SEUIL_VU)
    throw new ErreurTravail(
      'remplissage_insuffisant',
      `The preview engine continues the floor and walls it sees around the furniture, and here it would have to invent them: part of what the furniture hides is a surface the photo shows nowhere else (the furniture found seems to stand against other furniture, or to be only partly outlined). No result was delivered; the job was refunded.`,
    );
  if (detail < SEUIL_DETAIL)
    throw new ErreurTravail(
      'remplissage_insuffisant',
      `The preview engine could not rebuild the area behind the furniture with the texture of the floor and walls around it: its fill keeps ${pourcent(detail)} of their detail (at least ${pourcent(SEUIL_DETAIL)} is needed), so it would show as a blur. No result was delivered; the job was refunded.`,
    );
};
