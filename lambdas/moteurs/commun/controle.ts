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
import type { OutilImage } from '../../core/modele/outils';
import { ErreurTravail } from '../../core/modele/erreurs';
import type { ControleStructure } from '../../core/modele/sorties';
import { cielAnalyse, copieAnalyse } from './ciel-masque';
import type { ObjetDetecte } from './detection';
import type { Pixels } from './pixels';
import { mesurerStructure, SEUIL_STRUCTURE } from './structure';
import { masqueFixes, part } from './zones';

/** A region under this share of the frame holds too few lines to judge a photo by. */
const PART_MIN = 0.01;

/** Tools that see a building from outside, whose outline against the sky must stay where it was. */
const AVEC_CONTOUR: ReadonlySet<OutilImage> = new Set(['renovation', 'saison', 'ciel']);

/**
 * The band along the sky's edge: rooflines, chimneys, gables. 1.5 % of the frame on the building's
 * side, so a roof raised or an extra floor shows, and only a sliver on the sky's side: ciel replaces
 * the sky, clouds and all, and the clouds' edges are not the building's.
 */
const contour = async (photo: Pixels): Promise<Uint8Array | null> => {
  // On the sky detector's 640 px copy, then brought to the photo's size: a band, not a line, so its
  // resolution is plenty, and a 24 MP photo costs milliseconds instead of seconds.
  // The sky of the analysis copy only: the full-size feathered mask trouverCiel would also build is not needed here.
  const analyse = await copieAnalyse(photo);
  const ciel = cielAnalyse(analyse);
  const { largeur: l, hauteur: h } = analyse;
  const rayon = Math.max(2, Math.round(0.015 * Math.min(l, h)));
  const lisiere = 1;
  const bord = new Uint8Array(l * h);
  let trouve = false;
  // What stands on the ground: the not-sky connected to the bottom of the frame. A cloud the detector
  // left out of the sky is not-sky too, but floats: its edge is not the building's.
  const sol = new Uint8Array(l * h);
  const pile: number[] = [];
  for (let x = 0; x < l; x++) if (!ciel[(h - 1) * l + x]) ((sol[(h - 1) * l + x] = 1), pile.push((h - 1) * l + x));
  while (pile.length) {
    const p = pile.pop()!;
    const [x, y] = [p % l, (p / l) | 0];
    for (const q of [x > 0 ? p - 1 : -1, x < l - 1 ? p + 1 : -1, y > 0 ? p - l : -1, y < h - 1 ? p + l : -1]) {
      if (q < 0 || sol[q] || ciel[q]) continue;
      sol[q] = 1;
      pile.push(q);
    }
  }
  const marquer = (x: number, y: number, r: number, seulementSol: boolean) => {
    for (let yy = Math.max(0, y - r); yy <= Math.min(h - 1, y + r); yy++) {
      for (let xx = Math.max(0, x - r); xx <= Math.min(l - 1, x + r); xx++) if (!seulementSol || sol[yy * l + xx]) bord[yy * l + xx] = 255;
    }
  };
  const limite = new Uint8Array(l * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < l; x++) {
      const p = y * l + x;
      const [a, b, c] = [ciel[p] ? 2 : sol[p]!, x + 1 < l ? (ciel[p + 1] ? 2 : sol[p + 1]!) : -1, y + 1 < h ? (ciel[p + l] ? 2 : sol[p + l]!) : -1];
      // Sky (2) next to the ground's not-sky (1), in either order.
      if ((a === 2 && (b === 1 || c === 1)) || (a === 1 && (b === 2 || c === 2))) limite[p] = 1;
    }
  }
  // Only where the edge is a line (a roof, a gable, a chimney): a 7 × 7 window around a straight edge
  // holds about 7 of its pixels, around a tree crown's ragged edge far more — and sky seen through
  // branches is replaced by ciel and repainted by saison, so its edges would read as moved structure.
  const RAGGED = 12;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < l; x++) {
      if (!limite[y * l + x]) continue;
      let n = 0;
      for (let yy = Math.max(0, y - 3); yy <= Math.min(h - 1, y + 3); yy++)
        for (let xx = Math.max(0, x - 3); xx <= Math.min(l - 1, x + 3); xx++) n += limite[yy * l + xx]!;
      if (n > RAGGED) continue;
      trouve = true;
      marquer(x, y, rayon, true);
      marquer(x, y, lisiere, false);
    }
  }
  if (!trouve) return null;
  // Non-zero = in the band (a typed array's `from` with a function costs a second at 24 MP: none here).
  return sharp(Buffer.from(bord), { raw: { width: l, height: h, channels: 1 } })
    .resize(photo.largeur, photo.hauteur, { fit: 'fill', kernel: 'nearest' })
    .extractChannel(0)
    .raw()
    .toBuffer();
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
  for (let y = 0; y < h; y++)
    for (let x = 0; x < l; x++) for (let d = -R; d <= R && !lignes[y * l + x]; d++) if (x + d >= 0 && x + d < l && petit[y * l + x + d]) lignes[y * l + x] = 1;
  const grand = Buffer.alloc(l * h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < l; x++)
      for (let d = -R; d <= R && !grand[y * l + x]; d++) if (y + d >= 0 && y + d < h && lignes[(y + d) * l + x]) grand[y * l + x] = 255;
  // Inverted on the small copy: the full-size mask comes out of sharp ready (non-zero = far from the edit).
  for (let i = 0; i < grand.length; i++) grand[i] = grand[i] ? 0 : 255;
  return sharp(grand, { raw: { width: l, height: h, channels: 1 } })
    .resize(largeur, hauteur, { fit: 'fill', kernel: 'nearest' })
    .extractChannel(0)
    .raw()
    .toBuffer();
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
