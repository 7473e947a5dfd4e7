/**
 * The few EXIF tags the grouping of a fusion's photos needs (crochets.ts), read in the browser from the file's first
 * bytes, where a JPEG keeps its EXIF: the photo itself is never read whole for this. exifr's smallest build reads
 * JPEG only; a PNG or WebP (or a JPEG without EXIF) has no capture time to the grouping, which says so.
 */
import { depuisExif, TAGS_EXIF, type Exposition } from './crochets';

/** A JPEG's EXIF segment is at most 64 KiB, after a few small ones: what is read of each file. */
const PREMIERS_OCTETS = 128 * 1024;

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

/** What the photo's EXIF says of its capture; nothing when it has none, or it cannot be read. */
export const lireExposition = async (fichier: File): Promise<Exposition> => {
  try {
    // Loaded with the first photo, not with the studio's page: a visit that drops none does not pay for it.
    const { parse } = await import('exifr/dist/mini.esm.mjs');
    return depuisExif(await parse(fichier.slice(0, PREMIERS_OCTETS), OPTIONS));
  } catch {
    // Not a JPEG, or EXIF it cannot read: the photo goes with those without a capture time.
    return {};
  }
};
