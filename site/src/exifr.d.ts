/**
 * exifr's builds as exif.ts loads them, which its package types only under its main entry: the smallest (JPEG's
 * EXIF only, no tag names: 8 KB gzipped) and the full one (PNG's eXIf, and TIFF bytes such as a WebP's EXIF chunk).
 */
declare module 'exifr/dist/mini.esm.mjs' {
  export const parse: (octets: Uint8Array, options: Record<string, unknown>) => Promise<Record<number, unknown> | undefined>;
}
declare module 'exifr/dist/full.esm.mjs' {
  export const parse: (octets: Uint8Array, options: Record<string, unknown>) => Promise<Record<number, unknown> | undefined>;
}
