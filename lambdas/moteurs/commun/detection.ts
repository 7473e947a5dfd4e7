/**
 * What a detector tells the tools about a photo: the objects in it, each a box and a nature. Both
 * engines build the edited area of vider and staging from this (zones.ts), whatever found the objects:
 * Amazon Rekognition in production (bedrock/rekognition.ts), a deterministic stand-in in the local
 * preview engine and the tests (local/detecteur-local.ts).
 */
import type { Rectangle } from './masques';
import type { Pixels } from './pixels';

/**
 * meuble: furniture or clutter the tools may remove or hide; fixe: windows, doors, radiators, stairs,
 * fireplaces, built-in units — never in a mask.
 */
export type Nature = 'meuble' | 'fixe';

export interface ObjetDetecte {
  nom: string;
  nature: Nature;
  /** In fractions of the photo's width and height. */
  boite: Rectangle;
  /** 0–1. */
  confiance: number;
}

export interface Detecteur {
  readonly nom: string;
  detecter(photo: Pixels): Promise<ObjetDetecte[]>;
}

/** What is only ever found outside: vehicles and the street's furniture (Rekognition's names). */
const DEHORS = ['Car', 'Bus', 'Truck', 'Motorcycle', 'Traffic Light', 'Fire Hydrant', 'Stop Sign', 'Parking Meter'] as const;

const meubles = (noms: readonly string[]) => noms.map((nom) => [nom, 'meuble'] as const);
const fixes = (noms: readonly string[]) => noms.map((nom) => [nom, 'fixe'] as const);

/**
 * Rekognition DetectLabels label names (Title Case, as the API spells them) → nature. A label that is
 * not here is looked up by its parents (Chesterfield → Couch → Furniture); one that matches nothing is
 * ignored, which is the safe side for both tools: vider leaves it, staging stays off it only if it is
 * also off the floor. A name Rekognition does not use costs nothing; one missing here only means the
 * parent decides.
 *
 * Decisions worth knowing:
 * - People and animals are left out on purpose: another part of the service deals with them, and
 *   repainting a person out of a listing photo is not "removing furniture".
 * - Cabinet is `meuble` (a free-standing sideboard or chest), although Rekognition also says Cabinet
 *   for kitchen units; a kitchen usually comes with Sink, Stove, Oven, Kitchen Island, which are fixed
 *   and cut out of the mask, but a wall of units alone would be repainted. Left as the brief asks.
 * - Kitchen Island is `fixe`: it is plumbed and fixed to the floor like the counters it belongs to;
 *   a buyer who visits finds it there, so a photo without it would mislead.
 * - Shelf is `meuble` (a shelf unit or a shelf with clutter on it); a built-in shelf is then repainted,
 *   the lesser harm next to leaving every free-standing bookcase in an "empty" room.
 * - Furniture and Home Decor, the parents of most pieces, are `meuble`, so an unlisted piece still counts.
 */
export const NATURES: Readonly<Record<string, Nature>> = Object.freeze(
  Object.fromEntries([
    ...meubles([
      // Seating, tables, beds.
      'Furniture',
      'Couch',
      'Chair',
      'Armchair',
      'Stool',
      'Bench',
      'Ottoman',
      'Table',
      'Coffee Table',
      'Dining Table',
      'Desk',
      'Bed',
      'Cushion',
      'Pillow',
      // Storage that stands on the floor.
      'Cabinet',
      'Dresser',
      'Wardrobe',
      'Shelf',
      'Bookcase',
      // Textiles, lights, decor.
      'Rug',
      'Lamp',
      'Table Lamp',
      'Floor Lamp',
      'Home Decor',
      'Potted Plant',
      'Plant',
      'Vase',
      'Painting',
      'Picture Frame',
      'Clock',
      // Clutter and screens.
      'Box',
      'Cardboard',
      'Clothing',
      'Toy',
      'Bag',
      'Bottle',
      'Cup',
      'Book',
      'Television',
      'Monitor',
      'Laptop',
      'Bowl',
    ]),
    ...fixes([
      'Window',
      'Door',
      'Radiator',
      'Staircase',
      'Handrail',
      'Fireplace',
      'Skylight',
      'Column',
      'Pillar',
      // Built in or plumbed in: a buyer finds them where the photo shows them.
      'Kitchen Island',
      'Sink',
      'Bathtub',
      'Toilet',
      'Shower',
      'Stove',
      'Oven',
      'Refrigerator',
      'Microwave',
      // Outdoors: a vehicle or the street's furniture is never repainted (a car before a facade stays
      // a car) and tells an exterior (preuveDExterieur).
      ...DEHORS,
    ]),
  ]),
);

/**
 * What is only ever found inside: one of these in view and the photo is an interior, whatever is
 * bright and smooth at the top of its frame. On the real photos of test/photos the sky detector
 * (ciel-masque.ts) reads a bathroom's white tiles and a kitchen's white wall as an overcast sky; the
 * trained detector's sink, bed or refrigerator says otherwise (no exterior of the set shows one).
 */
const PIECES_D_INTERIEUR: ReadonlySet<string> = new Set([
  'Bed',
  'Couch',
  'Sink',
  'Toilet',
  'Bathtub',
  'Shower',
  'Oven',
  'Refrigerator',
  'Microwave',
  'Television',
]);

/** The object that shows the photo was taken inside, if one was found. */
export const preuveDInterieur = (objets: readonly ObjetDetecte[]): ObjetDetecte | undefined => objets.find((o) => PIECES_D_INTERIEUR.has(o.nom));

const EXTERIEUR: ReadonlySet<string> = new Set(DEHORS);

/**
 * The object that shows the photo was taken outside, if one was found: a street or a square at night
 * shows no sky to say so (test/photos: a car or a truck at a score of 0.48 to 0.62 on four of them,
 * none of these in an interior over 0.16).
 */
export const preuveDExterieur = (objets: readonly ObjetDetecte[]): ObjetDetecte | undefined => objets.find((o) => EXTERIEUR.has(o.nom));
