/**
 * The photos of a bracket read as the fusion needs them: upright (EXIF orientation applied, as `decoder`
 * does for every tool), at their own depth (a 16-bit PNG stays 16-bit: its shadows are what a merge is
 * for), of one size, and with a small copy of each for alignment, exposures and ghosts.
 *
 * Refused before any pixel is decoded, from the headers: what is not JPEG, PNG or WebP, what is over the
 * pixel limit, and photos of different sizes once upright (`vues_differentes`, the message names both).
 *
 * Memory: a 24 MP photo is 72 MB decoded (144 MB at 16 bits). The decoded photos are kept between the
 * analysis and the merge while they fit in MEMOIRE_DECODEES (five or eight 24 MP photos do); past it, a
 * photo is decoded again when its turn comes, which costs a third of a second and keeps a bracket of nine
 * 50 MP photos within the function's memory. Same on the local and production engines (no model).
 */
import sharp from 'sharp';
import { depasseLimite, lireDimensions, messageTropGrande } from '../../../core/modele/dimensions';
import { ErreurTravail } from '../../../core/modele/erreurs';
import { detecterFormat, type FormatImage } from '../../../core/modele/images';
import { depuisPixels, estHorsLimitePixels, OPTIONS_ENTREE } from '../pixels';
import { versImage, versTypee, type Image } from './deformation';
import { flottants } from '../parallele';
import { plan, type Plan } from './plan';

/**
 * Long side of the analysis copies: a sixth of a 24 MP photo's. Alignment measured as precise at 1024 as at
 * 1536 (within 0.03 px at 24 MP on the bench's brackets), in 0.8 s less for five photos.
 */
export const COTE_ANALYSE = 1024;
/**
 * A 16-bit PNG is read at 16 bits up to this size, above it at 8 bits: measured peaks of 1.9 GB for 5 × 24 MP
 * at 16 bits, 3.0 GB for 3 × 50 MP (over the tool function's 2816 MB, where the job would die out of memory),
 * and 2.3 GB for 5 × 50 MP at 8 bits. Under the 15 MB upload limit only a nearly flat picture reaches this
 * size at 16 bits, so no real bracket loses its depth.
 */
export const MAX_PIXELS_SEIZE = 32_000_000;
/** Decoded pixels kept between analysis and merge (bytes). */
const MEMOIRE_DECODEES = 640 * 2 ** 20;

export interface Entree {
  /** Position in the request (0-based). */
  index: number;
  octets: Buffer;
  format: FormatImage;
  /** Upright size. */
  largeur: number;
  hauteur: number;
  /** A 16-bit PNG: read at 16 bits. */
  seize: boolean;
}

/** A photo's analysis copy: its channels and luminance, values 0–1. */
export interface Copie {
  rouge: Plan;
  vert: Plan;
  bleu: Plan;
  luminance: Plan;
}

const numero = (e: { index: number }) => `photo ${e.index + 1}`;

const lireEntree = async (octets: Buffer, index: number): Promise<Entree> => {
  const format = detecterFormat(octets);
  if (!format) throw new ErreurTravail('image_illisible', `Photo ${index + 1} could not be read as JPEG, PNG or WebP.`);
  const dimensions = lireDimensions(octets);
  if (dimensions && depasseLimite(dimensions)) throw new ErreurTravail('image_trop_grande', messageTropGrande(dimensions, `Photo ${index + 1}`));
  try {
    const m = await sharp(octets, OPTIONS_ENTREE).metadata();
    const tournee = (m.orientation ?? 1) >= 5;
    const seize = m.depth === 'ushort' && m.width * m.height <= MAX_PIXELS_SEIZE;
    return { index, octets, format, largeur: tournee ? m.height : m.width, hauteur: tournee ? m.width : m.height, seize };
  } catch {
    throw new ErreurTravail('image_illisible', `Photo ${index + 1} could not be read as JPEG, PNG or WebP.`);
  }
};

/** The headers of every photo, checked: readable, under the limit, one size once upright. */
export const lireEntrees = async (images: readonly Buffer[]): Promise<Entree[]> => {
  const entrees = await Promise.all(images.map((octets, i) => lireEntree(octets, i)));
  const premiere = entrees[0];
  const autre = entrees.find((e) => e.largeur !== premiere?.largeur || e.hauteur !== premiere.hauteur);
  if (premiere && autre) {
    throw new ErreurTravail(
      'vues_differentes',
      `The photos are not the same size: ${premiere.largeur}×${premiere.hauteur} (${numero(premiere)}) and ${autre.largeur}×${autre.hauteur} (${numero(autre)}).`,
    );
  }
  return entrees;
};

/** The photo decoded upright, at 8 bits or (16-bit PNG) 16 bits per channel. */
export const decoderEntree = async (e: Entree): Promise<Image> => {
  try {
    const s = sharp(e.octets, OPTIONS_ENTREE).rotate().removeAlpha();
    const { data, info } = await (e.seize ? s.toColourspace('rgb16').raw({ depth: 'ushort' }) : s.toColourspace('srgb').raw()).toBuffer({
      resolveWithObject: true,
    });
    if (info.channels !== 3 || info.width !== e.largeur || info.height !== e.hauteur)
      throw new Error(`${info.channels} channels, ${info.width}×${info.height}`);
    const max = e.seize ? 65535 : 255;
    return { data: versTypee(data, max), largeur: info.width, hauteur: info.height, max };
  } catch (erreur) {
    if (estHorsLimitePixels(erreur)) throw new ErreurTravail('image_trop_grande');
    throw new ErreurTravail('image_illisible', `Photo ${e.index + 1} could not be read as JPEG, PNG or WebP.`);
  }
};

/** Size of the analysis copies of a photo of l × h. */
const tailleAnalyse = (l: number, h: number): { largeur: number; hauteur: number } => {
  const f = Math.min(1, COTE_ANALYSE / Math.max(l, h));
  return { largeur: Math.max(1, Math.round(l * f)), hauteur: Math.max(1, Math.round(h * f)) };
};

export const copieAnalyse = async (im: Image): Promise<Copie> => {
  const { largeur: l, hauteur: h } = tailleAnalyse(im.largeur, im.hauteur);
  const petite = l === im.largeur && h === im.hauteur ? im.data : await reduire(im, l, h);
  // Shared: the worker aligns pairs of them and looks for ghosts in them (parallele.ts), without a copy.
  const canaux = [flottants(l * h), flottants(l * h), flottants(l * h)] as const;
  const luminance = flottants(l * h);
  const k = 1 / im.max;
  for (let p = 0, i = 0; p < l * h; p++, i += 3) {
    const r = petite[i]! * k;
    const v = petite[i + 1]! * k;
    const b = petite[i + 2]! * k;
    ((canaux[0][p] = r), (canaux[1][p] = v), (canaux[2][p] = b));
    luminance[p] = 0.299 * r + 0.587 * v + 0.114 * b;
  }
  return { rouge: plan(l, h, canaux[0]), vert: plan(l, h, canaux[1]), bleu: plan(l, h, canaux[2]), luminance: plan(l, h, luminance) };
};

const reduire = async (im: Image, l: number, h: number): Promise<Uint8Array | Uint16Array> =>
  (await versImage(depuisPixels(im).resize(l, h, { fit: 'fill', kernel: 'linear' }), im.max)).data;

/**
 * Each photo decoded and copied for analysis, two at a time (two cores); the decoded photos kept while
 * they fit in MEMOIRE_DECODEES, the others (null) decoded again for the merge.
 */
export const analyser = async (entrees: readonly Entree[]): Promise<{ copies: Copie[]; decodees: (Image | null)[] }> => {
  const copies: Copie[] = new Array<Copie>(entrees.length);
  const decodees: (Image | null)[] = new Array<Image | null>(entrees.length).fill(null);
  let gardes = 0;
  let suivante = 0;
  const ouvrier = async () => {
    while (suivante < entrees.length) {
      const i = suivante++;
      const image = await decoderEntree(entrees[i]!);
      copies[i] = await copieAnalyse(image);
      if (gardes + image.data.byteLength <= MEMOIRE_DECODEES) ((gardes += image.data.byteLength), (decodees[i] = image));
    }
  };
  await Promise.all([ouvrier(), ouvrier()]);
  return { copies, decodees };
};
