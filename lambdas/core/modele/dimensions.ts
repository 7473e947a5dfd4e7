/**
 * An image's width and height read from its header only, before anything decodes it.
 *
 * A PNG of 16000×16000 pixels of one colour compresses to under 1 MB, yet decoding it takes 768 MB of
 * RGB (a "decompression bomb"): the byte limit alone does not protect the pipeline. The header gives
 * the dimensions in a few bytes, so a request can be refused before it is paid for, and every decoder
 * is also told the same limit (sharp's `limitInputPixels`) in case a header escapes this reader.
 */
import { JPG } from 'image-size/types/jpg';
import { PNG } from 'image-size/types/png';
import { WEBP } from 'image-size/types/webp';
import type { IImage } from 'image-size/types/interface';
import { ErreurApi } from './erreurs';
import { detecterFormat, type FormatImage } from './images';

/**
 * 50 megapixels: above the 48 MP of current phone main cameras and the 45 MP of high-resolution
 * full-frame cameras, so no real photo is refused, while the largest decode stays at 150 MB of RGB
 * (and a few times that while an engine works), within a Lambda's memory.
 */
export const MAX_PIXELS_IMAGE = 50_000_000;

/**
 * How much of the file the header reader looks at. A JPEG's frame header comes after its metadata
 * segments (EXIF, ICC profile, XMP — extended XMP such as a phone's depth map can weigh a few MB),
 * so the reader must look past them; 4 MiB covers that and bounds the scan of a hostile file
 * (image-size's JPEG reader steps byte by byte over garbage). Beyond it, the image counts as
 * unreadable here, and the decoders' own limit still applies.
 */
const OCTETS_ENTETE_MAX = 4 * 1024 * 1024;

const LECTEURS: Readonly<Record<FormatImage, IImage>> = { jpeg: JPG, png: PNG, webp: WEBP };

export interface Dimensions {
  largeur: number;
  hauteur: number;
}

/** Width and height from the header of a JPEG, PNG or WebP; null when the header cannot be read. */
export const lireDimensions = (octets: Uint8Array): Dimensions | null => {
  const format = detecterFormat(octets);
  if (!format) return null;
  // A copy that owns its memory exactly: image-size reads through a DataView over the whole
  // underlying ArrayBuffer, so on a view into a larger buffer (Node's pooled Buffers) a truncated
  // header would be completed with whatever bytes follow in memory instead of failing.
  const entete = new Uint8Array(octets.subarray(0, OCTETS_ENTETE_MAX));
  try {
    const lecteur = LECTEURS[format];
    if (!lecteur.validate(entete)) return null;
    const { width, height } = lecteur.calculate(entete);
    if (!Number.isSafeInteger(width) || !Number.isSafeInteger(height) || width <= 0 || height <= 0) return null;
    return { largeur: width, hauteur: height };
  } catch {
    // Out-of-bounds reads (truncated header) and "no size found" alike: not readable here.
    return null;
  }
};

export const depasseLimite = ({ largeur, hauteur }: Dimensions): boolean => largeur * hauteur > MAX_PIXELS_IMAGE;

export const messageTropGrande = ({ largeur, hauteur }: Dimensions, quoi: string): string =>
  `${quoi} is ${largeur}×${hauteur} pixels; at most ${MAX_PIXELS_IMAGE / 1_000_000} megapixels are accepted.`;

/**
 * Refuses an uploaded image whose header announces more than MAX_PIXELS_IMAGE pixels (413
 * `image_too_large`). An unreadable header passes: unreadable bytes are reported where the format is
 * checked, and a decoder refuses them in any case.
 */
export const verifierDimensions = (octets: Uint8Array, index: number): void => {
  const dimensions = lireDimensions(octets);
  if (!dimensions || !depasseLimite(dimensions)) return;
  throw new ErreurApi('image_too_large', messageTropGrande(dimensions, `Image ${index}`), {
    index,
    largeur: dimensions.largeur,
    hauteur: dimensions.hauteur,
    max_pixels: MAX_PIXELS_IMAGE,
  });
};
