/**
 * The colour rules of the local preview engine, in place of Rekognition: a deterministic reading of
 * the analysis copy, a few tens of milliseconds, no model. Tuned on drawn scenes, and used for them
 * (the tests' images, the examples of docs/engines.md); the engine's detector is a trained model
 * (`detecteurLocal`, detecteur-local.ts), which these rules only confirm where the model is unsure.
 *
 * What it finds, in a room photographed from standing height with its floor at the bottom of the frame:
 * - the floor (commun/sol.ts), and from it the floor line: the top of the floor's convex hull (a room's floor
 *   is a convex polygon in the image, so furniture hiding part of it does not bend the line);
 * - the walls and ceiling: the most common colour above that line, smooth;
 * - windows (`fixe`): what shows outdoor colours (foliage, sky) on the walls, bright as a whole, the
 *   panes either side of a mullion joined, grown by the frame and sill; not one that reaches the top
 *   of the frame (that is the sky of an outdoor photo);
 * - radiators (`fixe`): under a window, the rows down to the floor line crossed by vertical lines (its
 *   sides and fins), or a low, wide, light region there;
 * - everything else, cut into regions of one colour, regions of close colour (the faces of one sofa),
 *   small ones, legs (to what rests on them) and those inside another's box (cushions, a book)
 *   merged into one object. Then:
 *   · standing on the floor or lying in it (its foot at or below the floor line): `meuble`, a flat one
 *     within the floor being a rug;
 *   · on a wall, tall and rectangular, down to the floor line: a door (`fixe`);
 *   · on a wall, rectangular: a framed picture (`meuble`); anything else on a wall is ignored.
 * Measured on the living room of the examples (docs/exemples) (test/unit/zones.test.ts): sofa, armchair, plant, window and
 * radiator found (IoU 0.52–0.94); the coffee table's legs go to the rug under them (IoU 0.46); the
 * floor lamp (a white shade, a thin pole) is missed. Its time is part of the engine's (docs/benchmarks.md,
 * Benchmarks: `bench/moteur-local.ts`).
 * What it cannot: tell a wardrobe from a door or a built-in unit from a piece standing against the
 * wall (both are rectangles on the floor line); see furniture the colour of the walls (a white
 * lampshade, a white chest against a white wall) or of the floor; separate two touching pieces of the
 * same colour; find a radiator that is not under a window; find anything without a floor in view (it returns nothing then, and says nothing of
 * stairs, fireplaces or doors ajar); name objects beyond these few words. Its boxes are bounding
 * boxes of what is seen, as Rekognition's are.
 * Outdoors (a sky in view), the lawn or snow reads as a floor and the house standing on it as furniture:
 * there, a piece of furniture counts only if the ground is seen just above and just below it (a garden
 * chair on the lawn), never what rises from the ground line (a front door, a hedge, the house). And a
 * "piece" whose box covers more than a quarter of the frame is a building or a wall seen whole.
 *
 * This file names what is found; the room (floor line, walls, windows, radiators) is read by
 * murs-fenetres.ts, and the rest cut and grouped into objects by regions-couleur.ts.
 */
import { priseDehors } from '../commun/ciel-masque';
import type { Detecteur, ObjetDetecte } from '../commun/detection';
import type { Pixels } from '../commun/pixels';
import { mesurer, trouverSol } from '../commun/sol';
import { fenetres, ligneDuSol, radiateur, surfaces } from './murs-fenetres';
import { AIRE_MIN, grouper, regions, type Region } from './regions-couleur';

/** An object fills at least this share of its box: a skirting board or a wall's corner is a line. */
const REMPLISSAGE_MIN = 0.2;
const CONFIANCE = 0.6;

/** The box in fractions of the frame. */
const boite = (R: Region, l: number, h: number) => ({ x0: R.x0 / l, y0: R.y0 / h, x1: R.x1 / l, y1: R.y1 / h });

/** The objects of one analysis copy, before detecteurCouleurs weighs them against the outdoors. */
const detecterAnalyse = (analyse: Pixels, sol: Uint8Array): ObjetDetecte[] => {
  const { largeur: l, hauteur: h } = analyse;
  const n = l * h;
  if (!sol.some((v) => v)) return [];
  const m = mesurer(analyse);
  const ligne = ligneDuSol(sol, l, h);
  const { surface, mur } = surfaces(m, sol, ligne, l, h);
  const vitres = fenetres(analyse, m, mur, surface, ligne, l, h);
  // A window with its frame and sill is not an object of the room: out of the regions, so that what
  // hangs under it (a radiator) is found by itself.
  for (const f of vitres) for (let y = f.y0; y < f.y1; y++) surface.fill(1, y * l + f.x0, y * l + f.x1);
  const { liste } = regions(analyse, surface, l, h);
  const groupes = grouper(liste, n);
  const objets: ObjetDetecte[] = [];
  for (const R of groupes) {
    const [w, hh] = [R.x1 - R.x0, R.y1 - R.y0];
    if (R.aire < AIRE_MIN * n || R.aire < REMPLISSAGE_MIN * w * hh) continue;
    // The floor line under the object: the lowest of it across its columns (a piece in a corner).
    let pied = 0;
    for (let x = R.x0; x < R.x1; x++) pied = Math.max(pied, ligne[x]!);
    const marge = 0.02 * h;
    const auSol = R.y1 >= pied - marge;
    const clair = (0.299 * R.r + 0.587 * R.g + 0.114 * R.b) / R.aire;
    const rectangle = R.aire >= 0.6 * w * hh;
    const ajouter = (nom: string, nature: 'meuble' | 'fixe') => objets.push({ nom, nature, boite: boite(R, l, h), confiance: CONFIANCE });
    const sousFenetre = vitres.some((f) => R.x1 >= f.x0 - 0.1 * l && R.x0 <= f.x1 + 0.1 * l && R.y0 >= f.y0);
    if (sousFenetre && R.y1 >= pied - 0.12 * h && hh <= 0.15 * h && w >= 1.5 * hh && clair >= 0.75 * mur.L) ajouter('Radiator', 'fixe');
    else if (auSol && R.y0 >= pied - marge && hh < 0.6 * w) ajouter('Rug', 'meuble');
    else if (auSol && hh >= 0.35 * h && w >= 0.3 * hh && w <= 0.7 * hh && rectangle) ajouter('Door', 'fixe');
    else if (auSol) ajouter('Furniture', 'meuble');
    else if (rectangle) ajouter('Picture Frame', 'meuble');
  }
  for (const f of vitres) {
    objets.push({ nom: 'Window', nature: 'fixe', boite: boite(f, l, h), confiance: CONFIANCE });
    const r = radiateur(m, f, ligne, l, h);
    if (r) objets.push({ nom: 'Radiator', nature: 'fixe', boite: boite(r, l, h), confiance: CONFIANCE });
  }
  return objets;
};

/** Above this share of the frame, a box is a building or a wall seen whole, not a piece of furniture. */
const AIRE_MEUBLE_MAX = 0.25;

const aire = ({ boite: b }: ObjetDetecte) => (b.x1 - b.x0) * (b.y1 - b.y0);

/** Outdoors, the share of the ground a piece's top and bottom edges must lie on. */
const SOL_AUTOUR = 0.6;

/** Whether the ground (floor mask of the analysis copy) is seen along the rows just above and just below a box. */
const entoureDeSol = ({ boite: b }: ObjetDetecte, sol: Uint8Array, l: number, h: number): boolean => {
  const [x0, x1] = [Math.floor(b.x0 * l), Math.min(l, Math.ceil(b.x1 * l))];
  const part = (y: number) => {
    if (y >= h) return 1;
    if (y < 0) return 0;
    let n = 0;
    for (let x = x0; x < x1; x++) n += sol[y * l + x] ? 1 : 0;
    return n / Math.max(1, x1 - x0);
  };
  return part(Math.floor(b.y0 * h) - 2) >= SOL_AUTOUR && part(Math.ceil(b.y1 * h) + 1) >= SOL_AUTOUR;
};

/** The colour rules alone: the floor, windows, radiators and doors, and furniture of drawn scenes. */
export const detecteurCouleurs: Detecteur = {
  nom: 'couleurs',
  async detecter(photo: Pixels): Promise<ObjetDetecte[]> {
    const { analyse, sol } = await trouverSol(photo);
    const dehors = priseDehors(analyse);
    return detecterAnalyse(analyse, sol).filter(
      (o) => o.nature !== 'meuble' || (aire(o) <= AIRE_MEUBLE_MAX && (!dehors || entoureDeSol(o, sol, analyse.largeur, analyse.hauteur))),
    );
  },
};
