/**
 * exifr's smallest build (JPEG's EXIF only, no tag names: 8 KB gzipped), which its package types only under its
 * main entry: its `parse` as exif.ts calls it.
 */
declare module 'exifr/dist/mini.esm.mjs' {
  export const parse: (fichier: Blob, options: Record<string, unknown>) => Promise<Record<number, unknown> | undefined>;
}
