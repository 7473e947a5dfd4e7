/**
 * Masks at the photo's resolution, as both engines edit with them: a rectangle in fractions of the
 * photo and the one rounding to pixels, a mask's bounding box, the soft edge inside an edit mask, and
 * the compositing of an edit through it, which leaves every pixel outside the mask the photo's own;
 * and a mask's connected parts (the sky's patches, the local detectors' blobs).
 * The local preview composites its drawing exactly as production composites the model's answer.
 */
import sharp from 'sharp';
import type { Pixels } from './pixels';

/** A rectangle in fractions of the photo's width and height. */
export interface Rectangle {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** The rectangle in pixels (end bounds excluded): the one rounding both engines edit by. */
export const bornesRectangle = (largeur: number, hauteur: number, r: Rectangle) => ({
  x0: Math.round(r.x0 * largeur),
  x1: Math.round(r.x1 * largeur),
  y0: Math.round(r.y0 * hauteur),
  y1: Math.round(r.y1 * hauteur),
});

/** A part of the photo, in its pixels. */
export interface Decoupe {
  gauche: number;
  haut: number;
  largeur: number;
  hauteur: number;
}

/** The bounding box of a mask's set pixels, or null when none is set. */
export const boiteDuMasque = (masque: Buffer | Uint8Array, largeur: number, hauteur: number): Decoupe | null => {
  let [x0, y0, x1, y1] = [largeur, hauteur, -1, -1];
  for (let y = 0; y < hauteur; y++) {
    const ligne = y * largeur;
    for (let x = 0; x < largeur; x++) {
      if (!masque[ligne + x]) continue;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      y1 = y;
    }
  }
  return x1 < 0 ? null : { gauche: x0, haut: y0, largeur: x1 - x0 + 1, hauteur: y1 - y0 + 1 };
};

/** A one-channel mask blurred by `sigma`, still one channel. */
export const flouterMasque = async (masque: Buffer, largeur: number, hauteur: number, sigma: number): Promise<Buffer> =>
  // sharp writes a one-channel raw input back as sRGB unless told otherwise.
  sharp(masque, { raw: { width: largeur, height: hauteur, channels: 1 } })
    .blur(sigma)
    .extractChannel(0)
    .raw()
    .toBuffer();

/** Blur radius of seams: about half a percent of the short side, at least a pixel. */
export const sigmaCouture = (largeur: number, hauteur: number) => Math.max(1, Math.min(largeur, hauteur) * 0.005);

/**
 * A soft edge that stays *inside* the mask: the blend ramps from the photo at the mask's border to
 * the model a few pixels in, and nothing outside the mask is touched.
 */
export const adoucirInterieur = async (masque: Buffer, largeur: number, hauteur: number): Promise<Uint8Array> => {
  const flou = await flouterMasque(masque, largeur, hauteur, sigmaCouture(largeur, hauteur));
  const alpha = new Uint8Array(masque.length);
  for (let i = 0; i < masque.length; i++) {
    if (!masque[i]) continue;
    // The blurred border sits at about 128: stretch 128–255 to 0–255 so the ramp starts at zero.
    alpha[i] = Math.max(0, Math.min(255, 2 * flou[i]! - 255));
  }
  return alpha;
};

/**
 * `alpha` (one channel, 0–255) weighs the model's pixels against the photo's: 0 keeps the photo's
 * exactly (no arithmetic, so no rounding), 255 takes the model's.
 */
export const recomposer = (origine: Pixels, resultat: Pixels, alpha: Uint8Array): Buffer => {
  const sortie = Buffer.from(origine.data);
  for (let p = 0, i = 0; p < alpha.length; p++, i += 3) {
    const a = alpha[p]!;
    if (a === 0) continue;
    if (a === 255) {
      sortie[i] = resultat.data[i]!;
      sortie[i + 1] = resultat.data[i + 1]!;
      sortie[i + 2] = resultat.data[i + 2]!;
      continue;
    }
    for (let c = 0; c < 3; c++) sortie[i + c] = Math.round((origine.data[i + c]! * (255 - a) + resultat.data[i + c]! * a) / 255);
  }
  return sortie;
};

export interface Composante {
  aire: number;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/**
 * 4-connected components of a mask: a label per pixel (0: none; component i is labelled i + 1) and each
 * component's area and box (end excluded). On typed arrays, with no allocation per pixel: the window
 * finder (fenetres.ts) cuts fifteen masks a photo.
 */
export const composantes = (masque: Uint8Array, l: number, h: number): { etiquettes: Int32Array; liste: Composante[] } => {
  const etiquettes = new Int32Array(l * h);
  const liste: Composante[] = [];
  const pile = new Int32Array(l * h);
  for (let depart = 0; depart < l * h; depart++) {
    if (!masque[depart] || etiquettes[depart]) continue;
    const id = liste.length + 1;
    let [aire, x0, y0, x1, y1, haut] = [0, l, h, 0, 0, 0];
    etiquettes[depart] = id;
    pile[haut++] = depart;
    while (haut) {
      const p = pile[--haut]!;
      const x = p % l;
      const y = (p - x) / l;
      aire++;
      if (x < x0) x0 = x;
      if (x >= x1) x1 = x + 1;
      if (y < y0) y0 = y;
      if (y >= y1) y1 = y + 1;
      if (x > 0 && masque[p - 1] && !etiquettes[p - 1]) ((etiquettes[p - 1] = id), (pile[haut++] = p - 1));
      if (x < l - 1 && masque[p + 1] && !etiquettes[p + 1]) ((etiquettes[p + 1] = id), (pile[haut++] = p + 1));
      if (y > 0 && masque[p - l] && !etiquettes[p - l]) ((etiquettes[p - l] = id), (pile[haut++] = p - l));
      if (y < h - 1 && masque[p + l] && !etiquettes[p + l]) ((etiquettes[p + l] = id), (pile[haut++] = p + l));
    }
    liste.push({ aire, x0, y0, x1, y1 });
  }
  return { etiquettes, liste };
};

/** The area two rectangles share (0 when they are apart), in their own units. */
export const aireCommune = (a: Rectangle, b: Rectangle): number =>
  Math.max(0, Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0)) * Math.max(0, Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0));

/**
 * The sum of `valeur` over any rectangle [x0, x1) × [y0, y1) of an l × h grid, in constant time: a
 * summed-area table, built once (exact for integer values). For counting the pixels of a mask in a
 * window, or summing their colour.
 */
export const sommesRectangles = (l: number, h: number, valeur: (p: number) => number) => {
  const table = new Float64Array((l + 1) * (h + 1));
  for (let y = 0; y < h; y++) {
    let ligne = 0;
    for (let x = 0; x < l; x++) {
      ligne += valeur(y * l + x);
      table[(y + 1) * (l + 1) + x + 1] = table[y * (l + 1) + x + 1]! + ligne;
    }
  }
  return (x0: number, y0: number, x1: number, y1: number): number =>
    table[y1 * (l + 1) + x1]! - table[y0 * (l + 1) + x1]! - table[y1 * (l + 1) + x0]! + table[y0 * (l + 1) + x0]!;
};
