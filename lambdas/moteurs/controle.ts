/**
 * The structure check every image result passes before it is delivered, the same for both engines:
 * the lines and edges of what must not move (structure.ts measures them) are compared between the
 * photo the tool started from and its result. Below the threshold the tool runs once more with a new
 * seed (and, for renovation, a tighter structure control); below it again the job fails with
 * `structure_modifiee`, refunded. The score that let a result through is recorded on the job
 * (`Travail.structure`, our extension), so a platform can show it or filter on it.
 *
 * Where it compares, in this order:
 * 1. the fixed elements the detector found (windows, doors, radiators…), and for the tools that see
 *    a building (renovation, saison, ciel) its outline against the sky — what the buyers and
 *    regulators check first;
 * 2. failing those (nothing fixed in view), what the tool was not asked to change: the photo outside
 *    its edited area;
 * 3. failing that too (renovation edits the whole frame), the whole frame.
 */
import sharp from 'sharp';
import type { OutilImage } from '../core/outils';
import { ErreurTravail } from '../core/erreurs';
import { trouverCiel } from './ciel-masque';
import type { ObjetDetecte } from './detection';
import type { Pixels } from './pixels';
import { mesurerStructure, SEUIL_STRUCTURE } from './structure';
import { masqueFixes } from './zones';

/** What the job records (our extension): the score, the threshold it was held to, and how many runs it took. */
export interface ControleStructure {
  score: number;
  seuil: number;
  essais: number;
}

/** A region under this share of the frame holds too few lines to judge a photo by. */
const PART_MIN = 0.01;

const part = (masque: Uint8Array | Buffer): number => {
  let n = 0;
  for (let i = 0; i < masque.length; i++) if (masque[i]) n++;
  return n / masque.length;
};

/** Tools that see a building from outside, whose outline against the sky must stay where it was. */
const AVEC_CONTOUR: ReadonlySet<OutilImage> = new Set(['renovation', 'saison', 'ciel']);

/**
 * The band around the sky's edge: rooflines, chimneys, gables. A few percent of the frame on each
 * side of the boundary, so a roof raised or an extra floor shows, while the sky itself (which ciel
 * replaces) and the ground (which saison repaints) mostly stay out of it.
 */
const contour = async (photo: Pixels): Promise<Uint8Array | null> => {
  const { alpha } = await trouverCiel(photo);
  // The feathered sky's ramp is a few pixels wide: widen the band to ±1.5 % of the short side.
  const rayon = Math.max(2, Math.round(0.015 * Math.min(photo.largeur, photo.hauteur)));
  const { largeur: l, hauteur: h } = photo;
  const bord = new Uint8Array(l * h);
  let trouve = false;
  // Boundary pixels: sky next to not-sky, marked in the columns and rows around them.
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < l; x++) {
      const p = y * l + x;
      const ciel = alpha[p]! >= 128;
      const droite = x + 1 < l && alpha[p + 1]! >= 128 !== ciel;
      const dessous = y + 1 < h && alpha[p + l]! >= 128 !== ciel;
      if (!droite && !dessous) continue;
      trouve = true;
      for (let dy = -rayon; dy <= rayon; dy += Math.max(1, rayon >> 2)) {
        const yy = y + dy;
        if (yy < 0 || yy >= h) continue;
        bord.fill(1, yy * l + Math.max(0, x - rayon), yy * l + Math.min(l, x + rayon + 1));
      }
    }
  }
  return trouve ? bord : null;
};

/**
 * The region the check compares (one byte per pixel of `photo`, non-zero = compare), or null for the
 * whole frame. `edite` is the tool's edited area when it has one fixed in advance (vider, staging).
 */
export const regionStructure = async (
  outil: OutilImage,
  photo: Pixels,
  objets: readonly ObjetDetecte[],
  edite: Uint8Array | Buffer | null,
): Promise<Uint8Array | null> => {
  const fixes = masqueFixes(photo.largeur, photo.hauteur, objets);
  if (AVEC_CONTOUR.has(outil)) {
    const bord = await contour(photo);
    if (bord) for (let p = 0; p < bord.length; p++) if (bord[p]) fixes[p] = 255;
  }
  if (part(fixes) >= PART_MIN) return fixes;
  if (edite) {
    const reste = await loinDe(edite, photo.largeur, photo.hauteur);
    if (part(reste) >= PART_MIN) return reste;
  }
  return null;
};

/**
 * What lies clearly outside the edited area (1 = compare): the comparison blurs and matches lines
 * within a few pixels of its 512 px copy, so a line just inside the mask (the outline of the sofa that
 * vider removed) would otherwise count as lost just outside it. Kept away by 8 px at that scale.
 */
const loinDe = async (edite: Uint8Array | Buffer, largeur: number, hauteur: number): Promise<Uint8Array> => {
  const echelle = Math.min(1, 512 / Math.max(largeur, hauteur));
  const [l, h] = [Math.max(1, Math.round(largeur * echelle)), Math.max(1, Math.round(hauteur * echelle))];
  const petit = await sharp(Buffer.from(edite.buffer, edite.byteOffset, edite.length), { raw: { width: largeur, height: hauteur, channels: 1 } })
    .resize(l, h, { fit: 'fill', kernel: 'linear' })
    .extractChannel(0)
    .raw()
    .toBuffer();
  // Grown by a square of 8 px: rows, then columns (a running "any" over the window).
  const R = 8;
  const lignes = new Uint8Array(l * h);
  for (let y = 0; y < h; y++) for (let x = 0; x < l; x++) for (let d = -R; d <= R && !lignes[y * l + x]; d++) if (x + d >= 0 && x + d < l && petit[y * l + x + d]) lignes[y * l + x] = 1;
  const grand = Buffer.alloc(l * h);
  for (let y = 0; y < h; y++) for (let x = 0; x < l; x++) for (let d = -R; d <= R && !grand[y * l + x]; d++) if (y + d >= 0 && y + d < h && lignes[(y + d) * l + x]) grand[y * l + x] = 255;
  const retour = await sharp(grand, { raw: { width: l, height: h, channels: 1 } }).resize(largeur, hauteur, { fit: 'fill', kernel: 'nearest' }).extractChannel(0).raw().toBuffer();
  return Uint8Array.from(retour, (v) => (v ? 0 : 1));
};

/** One run of a tool: its result, and the seed it used. */
export interface Essai {
  pixels: Pixels;
  graine: number;
}

/**
 * Runs the tool (`produire(1)`, then `produire(2)` if the first result moved the structure) and
 * returns the first result that holds, with its check; throws `structure_modifiee` after two.
 */
export const avecControle = async (
  avant: Pixels,
  region: Uint8Array | null,
  produire: (essai: 1 | 2) => Promise<Essai>,
): Promise<Essai & { structure: ControleStructure }> => {
  let score = 0;
  for (const essai of [1, 2] as const) {
    const resultat = await produire(essai);
    const mesure = await mesurerStructure(avant, resultat.pixels, region);
    score = Math.round(mesure.score * 1000) / 1000;
    if (mesure.score >= SEUIL_STRUCTURE) return { ...resultat, structure: { score, seuil: SEUIL_STRUCTURE, essais: essai } };
  }
  throw new ErreurTravail(
    'structure_modifiee',
    `The result changed the structure of the room or building (walls, windows, doors), so it was not delivered: structure score ${score} below ${SEUIL_STRUCTURE}, twice. The job was refunded.`,
  );
};
