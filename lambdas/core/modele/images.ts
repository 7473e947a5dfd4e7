/**
 * What counts as an image: JPEG, PNG or WebP, recognised by their first bytes only — never by a file
 * name or a declared Content-Type, which the sender controls.
 *
 * Sizes: the spec's "15 MB" and "100 MB" are read as MiB (2^20 bytes), the generous reading: an image
 * a camera labels 15 MB is never refused.
 */
import { ErreurApi } from './erreurs';

export const MAX_OCTETS_IMAGE = 15 * 1024 * 1024;
export const MAX_OCTETS_REQUETE = 100 * 1024 * 1024;

export type FormatImage = 'jpeg' | 'png' | 'webp';

export const TYPES_MIME: Readonly<Record<FormatImage, string>> = { jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp' };
export const EXTENSIONS: Readonly<Record<FormatImage, string>> = { jpeg: 'jpg', png: 'png', webp: 'webp' };

const commencePar = (octets: Uint8Array, signature: readonly number[], decalage = 0): boolean =>
  octets.length >= decalage + signature.length && signature.every((octet, i) => octets[decalage + i] === octet);

export const detecterFormat = (octets: Uint8Array): FormatImage | null => {
  if (commencePar(octets, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (commencePar(octets, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  // RIFF <size> WEBP
  if (commencePar(octets, [0x52, 0x49, 0x46, 0x46]) && commencePar(octets, [0x57, 0x45, 0x42, 0x50], 8)) return 'webp';
  return null;
};

const ascii = (octets: Uint8Array, debut: number, fin: number): string => Buffer.from(octets.subarray(debut, fin)).toString('latin1');

/**
 * What a file we do not read most likely is, by its first bytes: a photographer's brackets often leave the
 * camera as RAW (or an iPhone's as HEIC), and "not a JPEG" alone does not say what to do. Null: unknown.
 */
export const formatRefuse = (octets: Uint8Array): string | null => {
  if (ascii(octets, 0, 15) === 'FUJIFILMCCD-RAW') return 'a Fujifilm RAF RAW file';
  if (ascii(octets, 4, 12) === 'ftypcrx ') return 'a Canon CR3 RAW file';
  if (['ftypheic', 'ftypheix', 'ftypmif1', 'ftyphevc'].includes(ascii(octets, 4, 12))) return 'a HEIC/HEIF photo';
  if (['IIRO', 'IIRS', 'MMOR'].includes(ascii(octets, 0, 4))) return 'an Olympus ORF RAW file';
  if (ascii(octets, 0, 4) === 'IIU\0') return 'a Panasonic RW2 RAW file';
  if (ascii(octets, 0, 4) === 'II*\0' || ascii(octets, 0, 4) === 'MM\0*') {
    return ascii(octets, 8, 10) === 'CR' ? 'a Canon CR2 RAW file' : 'a TIFF or camera RAW file (DNG, NEF, ARW and most RAW formats are TIFF-based)';
  }
  return null;
};

/** Why bytes are not read as an image, said so the client knows what to send instead. `quoi`: 'The image', 'The uploaded file'… */
export const messageIllisible = (octets: Uint8Array, quoi: string): string => {
  if (octets.length === 0) return `${quoi} is empty.`;
  const refuse = formatRefuse(octets);
  return refuse
    ? `${quoi} is ${refuse}, which is not read: export it as JPEG, PNG (16-bit PNG keeps a bracket's range) or WebP first.`
    : `${quoi} is not a JPEG, PNG or WebP file.`;
};

const DATA_URL = /^data:([^;,]*)(?:;[^;,]*)*;base64,/i;

/** Upper bound of the decoded size of a base64 text, computed without decoding it. */
export const tailleDecodee = (texte: string): number => {
  const debut = DATA_URL.exec(texte)?.[0].length ?? 0;
  return Math.floor(((texte.length - debut) * 3) / 4);
};

/**
 * Decodes raw base64 (standard or URL-safe, padding optional, whitespace ignored) or a data URL.
 * Strict, because Buffer.from silently skips characters it does not know and would turn a truncated
 * or mangled upload into a different image.
 */
export const decoderBase64 = (texte: string): Buffer => {
  if (tailleDecodee(texte) > MAX_OCTETS_IMAGE + 2) {
    throw new ErreurApi('image_too_large', 'The image is larger than 15 MB.', { max_octets: MAX_OCTETS_IMAGE });
  }
  const correspondance = DATA_URL.exec(texte);
  const contenu = (correspondance ? texte.slice(correspondance[0].length) : texte).replace(/[\s]+/g, '');
  if (contenu.length === 0) throw new ErreurApi('invalid_image', 'The image is empty.');
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(contenu) || contenu.length % 4 === 1) {
    throw new ErreurApi('invalid_image', 'base64 must be base64 text or a data URL (data:image/jpeg;base64,...).');
  }
  const octets = Buffer.from(contenu.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (octets.length > MAX_OCTETS_IMAGE) {
    throw new ErreurApi('image_too_large', 'The image is larger than 15 MB.', { max_octets: MAX_OCTETS_IMAGE });
  }
  return octets;
};
