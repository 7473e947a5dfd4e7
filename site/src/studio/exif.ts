/**
 * The few EXIF tags the grouping of a fusion's photos needs (crochets.ts), read in the browser without reading the
 * photo whole: where each format keeps its EXIF.
 * - JPEG: in an APP1 segment among the first bytes; exifr's smallest build reads it.
 * - PNG: in an eXIf chunk before the image data (PNG 1.5's extension); exifr's full build reads it, loaded only
 *   when a PNG is dropped.
 * - WebP: in an EXIF chunk that the format puts after the image data, so at the end of a large file. exifr does not
 *   read WebP; the RIFF container is walked here, chunk header to chunk header (a few reads of 8 bytes), and only the
 *   chunk's TIFF bytes are given to exifr.
 * A photo with none (a JPEG from an editor that strips it, a screenshot) has no capture time to the grouping, which
 * says so.
 */
import { depuisExif, TAGS_EXIF, type Exposition } from './crochets';

/** A JPEG's EXIF segment is at most 64 KiB, after a few small ones; a PNG's eXIf comes before its pixels: what is read of each file. */
const PREMIERS_OCTETS = 128 * 1024;
/** An EXIF chunk is small: a larger one is not what a camera wrote, and is left unread. */
const EXIF_MAX = 256 * 1024;

const OPTIONS = {
  // The EXIF IFD only (IFD0 is walked to find it, and nothing of it kept), the tags by number, the values as written.
  ifd0: false,
  exif: { pick: Object.values(TAGS_EXIF) },
  gps: false,
  interop: false,
  ifd1: false,
  translateKeys: false,
  translateValues: false,
  reviveValues: false,
  mergeOutput: true,
  firstChunkSize: PREMIERS_OCTETS,
};

type Format = 'jpeg' | 'png' | 'webp';

const octets = async (fichier: Blob, debut: number, fin: number): Promise<Uint8Array> => new Uint8Array(await fichier.slice(debut, fin).arrayBuffer());

const ascii = (o: Uint8Array, debut: number, longueur: number): string => String.fromCharCode(...o.subarray(debut, debut + longueur));

const formatDe = (tete: Uint8Array): Format | null => {
  if (tete[0] === 0xff && tete[1] === 0xd8) return 'jpeg';
  if (tete[0] === 0x89 && ascii(tete, 1, 3) === 'PNG') return 'png';
  if (ascii(tete, 0, 4) === 'RIFF' && ascii(tete, 8, 4) === 'WEBP') return 'webp';
  return null;
};

/** A WebP's EXIF chunk, as TIFF bytes (some writers put JPEG's "Exif\0\0" before them), or null. */
export const exifWebp = async (fichier: Blob): Promise<Uint8Array | null> => {
  // Chunks after the 12-byte RIFF header: a fourcc, a little-endian size, the data padded to an even length.
  for (let position = 12; position + 8 <= fichier.size;) {
    const entete = await octets(fichier, position, position + 8);
    const taille = entete[4]! | (entete[5]! << 8) | (entete[6]! << 16) | (entete[7]! * 2 ** 24);
    if (ascii(entete, 0, 4) === 'EXIF') {
      if (taille > EXIF_MAX) return null;
      const donnees = await octets(fichier, position + 8, position + 8 + taille);
      return ascii(donnees, 0, 6) === 'Exif\0\0' ? donnees.subarray(6) : donnees;
    }
    position += 8 + taille + (taille % 2);
  }
  return null;
};

/** What the photo's EXIF says of its capture; nothing when it has none, or it cannot be read. */
export const lireExposition = async (fichier: Blob): Promise<Exposition> => {
  try {
    const format = formatDe(await octets(fichier, 0, 12));
    // Loaded with the first photo, not with the studio's page: a visit that drops none does not pay for them.
    // Bytes, not the Blob, to exifr: the same in the browser and in Node, where the tests read them.
    if (format === 'jpeg') {
      const { parse } = await import('exifr/dist/mini.esm.mjs');
      return depuisExif(await parse(await octets(fichier, 0, PREMIERS_OCTETS), OPTIONS));
    }
    const source = format === 'png' ? await octets(fichier, 0, PREMIERS_OCTETS) : format === 'webp' ? await exifWebp(fichier) : null;
    if (!source) return {};
    const { parse } = await import('exifr/dist/full.esm.mjs');
    return depuisExif(await parse(source, OPTIONS));
  } catch {
    // EXIF it cannot read: the photo goes with those without a capture time.
    return {};
  }
};
