/**
 * The visible "virtually staged" notice (our extension: staging setting `mention`). Several markets
 * require a staged photo to say so on the image itself, and a notice in the photo survives where
 * metadata is stripped (portals re-encode uploads).
 *
 * The text is drawn as vector outlines from a font shipped with the code (opentype.js reads it), so
 * nothing depends on the fonts or the fontconfig setup of the machine — Lambda has none.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
// Its ES module build, by path: the package's main entry is a UMD bundle without named exports for Node.
import { parse, type Font } from 'opentype.js/dist/opentype.mjs';
import type { Langue } from '../../core/modele/outils';
import { depuisPixels, versPixels, type Pixels } from './pixels';

/** The notice in each language `mention` accepts (the same six as `annonce`). */
export const MENTIONS: Readonly<Record<Langue, string>> = {
  French: 'Home staging virtuel',
  English: 'Virtually staged',
  Dutch: 'Virtueel ingericht',
  German: 'Virtuell eingerichtet',
  Spanish: 'Amueblado virtualmente',
  Italian: 'Arredato virtualmente',
};

/** Open Sans Bold, Latin subset (16 kB, SIL Open Font License), from @fontsource/open-sans. */
const FICHIER_POLICE = '@fontsource/open-sans/files/open-sans-latin-700-normal.woff';

let police: Promise<Font> | undefined;
const chargerPolice = (): Promise<Font> =>
  (police ??= readFile(createRequire(import.meta.url).resolve(FICHIER_POLICE)).then((o) =>
    parse(o.buffer.slice(o.byteOffset, o.byteOffset + o.byteLength) as ArrayBuffer),
  ));

/** A plate's colour behind the white text: the staging notice's is dark; the preview mark's is its own (apercu.ts). */
export interface Fond {
  couleur: string;
  opacite: number;
}

const FOND_MENTION: Fond = { couleur: '#000', opacite: 0.62 };

/** A notice as an SVG: white text on a translucent plate, sized from the photo's short side. */
export const svgMention = async (
  texte: string,
  largeur: number,
  hauteur: number,
  fond: Fond = FOND_MENTION,
): Promise<{ svg: string; l: number; h: number }> => {
  const font = await chargerPolice();
  // Legible on a thumbnail, discreet on the full photo.
  const taille = Math.max(11, Math.round(Math.min(largeur, hauteur) * 0.032));
  const marge = Math.round(taille * 0.55);
  const avance = font.getAdvanceWidth(texte, taille);
  const l = Math.min(largeur, Math.ceil(avance + 2 * marge));
  const h = Math.min(hauteur, Math.ceil(taille * 1.45 + marge));
  const ligneDeBase = (h + ((font.ascender + font.descender) / font.unitsPerEm) * taille) / 2;
  const chemin = font.getPath(texte, marge, ligneDeBase, taille).toPathData(2);
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${l}" height="${h}">` +
    `<rect width="${l}" height="${h}" rx="${Math.round(taille * 0.3)}" fill="${fond.couleur}" fill-opacity="${fond.opacite}"/>` +
    `<path d="${chemin}" fill="#fff"/></svg>`;
  return { svg, l, h };
};

/** Where a notice of `l` × `h` goes in a lower corner of the photo, a little off its edges. */
export const placeEtiquette = (p: Pick<Pixels, 'largeur' | 'hauteur'>, l: number, h: number, coin: 'gauche' | 'droite') => {
  const ecart = Math.round(Math.min(p.largeur, p.hauteur) * 0.025);
  const gauche = coin === 'gauche' ? Math.max(0, Math.min(ecart, p.largeur - l)) : Math.max(0, p.largeur - l - ecart);
  return { left: gauche, top: Math.max(0, p.hauteur - h - ecart) };
};

/** The photo with `texte` on a plate in a lower corner; every other pixel unchanged. */
export const poserEtiquette = async (p: Pixels, texte: string, coin: 'gauche' | 'droite', fond?: Fond): Promise<Pixels> => {
  const { svg, l, h } = await svgMention(texte, p.largeur, p.hauteur, fond);
  return versPixels(
    depuisPixels(p)
      .composite([{ input: Buffer.from(svg), ...placeEtiquette(p, l, h, coin) }])
      .removeAlpha(),
  );
};

/** The photo with the notice in its lower left corner; every other pixel unchanged. */
export const ajouterMention = (p: Pixels, langue: Langue): Promise<Pixels> => poserEtiquette(p, MENTIONS[langue], 'gauche');

export const estLangue = (v: string | undefined): v is Langue => v !== undefined && Object.hasOwn(MENTIONS, v);

export const estLangueMention = (v: string | undefined): v is Langue => v !== undefined && Object.hasOwn(MENTIONS, v);
