// The part of opentype.js 2 that mention.ts uses. opentype.js ships no types, and
// @types/opentype.js (written for 1.x) pulls the DOM library into the whole program.
declare module 'opentype.js/dist/opentype.mjs' {
  export interface Path {
    toPathData(decimales?: number): string;
  }
  export interface Font {
    unitsPerEm: number;
    ascender: number;
    descender: number;
    getAdvanceWidth(texte: string, taille: number): number;
    getPath(texte: string, x: number, y: number, taille: number): Path;
  }
  export function parse(octets: ArrayBuffer): Font;
}
