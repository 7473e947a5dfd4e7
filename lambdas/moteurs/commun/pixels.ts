/**
 * A photo as both engines work on it: upright (EXIF orientation applied), 8-bit sRGB, three channels,
 * row-major. Decoding once, the same way for every engine, is what lets a tool promise that pixels
 * outside its edited area come back exactly as they were.
 */
import sharp, { type Sharp } from 'sharp';
import { depasseLimite, lireDimensions, MAX_PIXELS_IMAGE, messageTropGrande } from '../../core/modele/dimensions';
import { ErreurTravail } from '../../core/modele/erreurs';
import { detecterFormat } from '../../core/modele/images';
import type { FormatImage } from '../../core/modele/images';

/**
 * The only image decoders libvips may use in this process: JPEG, PNG and WebP from memory, plus SVG
 * from memory for the overlays the engines draw themselves (the notice, the preview's furniture).
 * GIF, TIFF, HEIF/AVIF, PDF, JPEG 2000, JPEG XL, FITS, raw camera and every file loader are
 * blocked, so no decoder of theirs is reachable from a customer's bytes, whatever a record or a
 * header says. Customer bytes reach sharp only through `decoder` below (and the listing engine,
 * which calls it first), after their first bytes named JPEG, PNG or WebP; libvips then picks the
 * loader by those same bytes, so an SVG behind a JPEG, PNG or WebP signature goes to that format's
 * decoder and is refused (test/unit/decodeurs.test.ts).
 */
export const CHARGEURS_PERMIS = ['VipsForeignLoadJpegBuffer', 'VipsForeignLoadPngBuffer', 'VipsForeignLoadWebpBuffer', 'VipsForeignLoadSvgBuffer'] as const;
sharp.block({ operation: ['VipsForeignLoad'] });
sharp.unblock({ operation: [...CHARGEURS_PERMIS] });

export interface Pixels {
  data: Buffer;
  largeur: number;
  hauteur: number;
}

/**
 * A result at 16 bits a channel (0–65 535), otherwise as `Pixels`: `fusion`'s merge of 16-bit PNG brackets,
 * kept at their depth for the photographer who grades it further. Every other tool works at 8 bits.
 */
export interface Pixels16 {
  data: Uint16Array;
  largeur: number;
  hauteur: number;
}

export const estSeize = (p: Pixels | Pixels16): p is Pixels16 => p.data instanceof Uint16Array;

/** A pass's output samples as a photo: 16-bit as they are, 8-bit (clamped or not) as a Buffer over the same memory, no copy. */
export const pixelsDe = (data: Uint8Array | Uint8ClampedArray | Uint16Array, largeur: number, hauteur: number): Pixels | Pixels16 =>
  data instanceof Uint16Array ? { data, largeur, hauteur } : { data: Buffer.from(data.buffer, data.byteOffset, data.length), largeur, hauteur };

/** Luma of an sRGB pixel (Rec. 601 weights, 0–255): what every tool calls brightness. */
export const luminance = (r: number, g: number, b: number): number => 0.299 * r + 0.587 * g + 0.114 * b;

/**
 * Options for sharp on any image that comes from outside (an input, a model's answer): the decoder
 * refuses more pixels than the API accepts, so no header can make it allocate gigabytes.
 */
export const OPTIONS_ENTREE = { limitInputPixels: MAX_PIXELS_IMAGE } as const;

/** sharp's own words when `limitInputPixels` refuses an image. */
export const estHorsLimitePixels = (erreur: unknown): boolean => erreur instanceof Error && /pixel limit/i.test(erreur.message);

export const decoder = async (octets: Buffer): Promise<{ pixels: Pixels; format: FormatImage }> => {
  // By its bytes, never by what a record or a name says: only these three reach a decoder.
  const format = detecterFormat(octets);
  if (!format) throw new ErreurTravail('image_illisible');
  // The header first, to say how large; the decoder's limit below refuses whatever this misses.
  const dimensions = lireDimensions(octets);
  if (dimensions && depasseLimite(dimensions)) throw new ErreurTravail('image_trop_grande', messageTropGrande(dimensions, 'The image'));
  try {
    const { data, info } = await sharp(octets, OPTIONS_ENTREE).rotate().toColourspace('srgb').removeAlpha().raw().toBuffer({ resolveWithObject: true });
    if (info.channels !== 3) throw new Error(`${info.channels} channels`);
    return { pixels: { data, largeur: info.width, hauteur: info.height }, format };
  } catch (erreur) {
    throw new ErreurTravail(estHorsLimitePixels(erreur) ? 'image_trop_grande' : 'image_illisible');
  }
};

export const versPixels = async (image: Sharp): Promise<Pixels> => {
  const { data, info } = await image.raw().toBuffer({ resolveWithObject: true });
  if (info.channels !== 3) throw new Error(`${info.channels} channels`);
  return { data, largeur: info.width, hauteur: info.height };
};

/**
 * 3-channel samples as a sharp image of their depth: 16-bit samples are read as such (sharp infers the
 * depth from the array) and kept at 16 bits (rgb16). Any such samples: a tool's Pixels, fusion's Images.
 */
export const depuisPixels = (p: { data: Uint8Array | Uint16Array; largeur: number; hauteur: number }): Sharp => {
  const image = sharp(p.data, { raw: { width: p.largeur, height: p.hauteur, channels: 3 } });
  return p.data instanceof Uint16Array ? image.toColourspace('rgb16') : image;
};

/**
 * The copy a detector reads: its long side at most `cote`, and a smaller photo enlarged up to
 * `agrandissementMax` times (1: never); the photo itself when no change is needed.
 */
export const aLEchelle = async (p: Pixels, cote: number, agrandissementMax = 1): Promise<Pixels> => {
  const echelle = Math.min(agrandissementMax, cote / Math.max(p.largeur, p.hauteur));
  if (echelle === 1) return p;
  return versPixels(depuisPixels(p).resize(Math.max(1, Math.round(p.largeur * echelle)), Math.max(1, Math.round(p.hauteur * echelle)), { fit: 'fill' }));
};
