/**
 * What identifies a person in a listing photo — a face, a number plate — found so that it can be blurred
 * (floutage.ts; the `floutage` setting of every image tool, our extension). The same shape as the object
 * detector of vider and staging (detection.ts): boxes in fractions of the photo, whatever found them.
 * Amazon Rekognition in production (bedrock/rekognition-personnes.ts: DetectFaces for faces, DetectLabels
 * then DetectText on each vehicle for plates), a deterministic stand-in in the local preview engine and
 * the tests (local/personnes-local.ts).
 */
import type { VALEURS_FLOUTAGE } from '../../core/modele/outils';
import { aireCommune, type Rectangle } from './masques';
import type { Pixels } from './pixels';

/** visage: a face (forehead to chin, as face detectors box it); plaque: a number plate (its characters at least). */
export type Genre = 'visage' | 'plaque';

export interface RegionPersonnelle {
  genre: Genre;
  /** In fractions of the photo's width and height. */
  boite: Rectangle;
  /** 0–1. */
  confiance: number;
}

export interface DetecteurPersonnes {
  readonly nom: string;
  /**
   * True when the engine's edits never add a face or a plate (the local preview paints no one and
   * copies only floor and wall): what the photo before the edit shows is then all there is to find,
   * and the result is not read a second time (floutage.ts). A generative model may paint a person, so
   * Rekognition reads both.
   */
  readonly photoSuffit?: boolean;
  /** Finds only the kinds asked: a job that blurs faces pays no plate detection, and the other way round. */
  detecter(photo: Pixels, genres: ReadonlySet<Genre>): Promise<RegionPersonnelle[]>;
}

type ValeurFloutage = (typeof VALEURS_FLOUTAGE)[number];

const GENRES: Readonly<Record<ValeurFloutage, readonly Genre[]>> = {
  none: [],
  faces: ['visage'],
  plates: ['plaque'],
  'faces and plates': ['visage', 'plaque'],
};

/** The kinds a setting asks for: none for `none`, for a job recorded before the setting existed, or for a value this build does not know. */
export const genresDe = (floutage: string | undefined): ReadonlySet<Genre> =>
  new Set(floutage !== undefined && Object.hasOwn(GENRES, floutage) ? GENRES[floutage as ValeurFloutage] : []);

/** Intersection over the smaller box: 1 when one box lies inside the other. */
const recouvrement = (a: Rectangle, b: Rectangle): number => {
  const aire = (r: Rectangle) => (r.x1 - r.x0) * (r.y1 - r.y0);
  const petite = Math.min(aire(a), aire(b));
  return petite > 0 ? aireCommune(a, b) / petite : 0;
};

/**
 * One region per thing seen: the same face found in the whole frame and in a tile, or a plate found
 * both as a label and as text, becomes the union of its boxes (so the blur covers both, and the
 * manifest counts it once). Boxes of different kinds are never merged.
 */
export const fusionner = (regions: readonly RegionPersonnelle[], seuil = 0.5): RegionPersonnelle[] => {
  const sortie: RegionPersonnelle[] = [];
  for (const r of regions) {
    const meme = sortie.find((s) => s.genre === r.genre && recouvrement(s.boite, r.boite) >= seuil);
    if (!meme) {
      sortie.push({ ...r, boite: { ...r.boite } });
      continue;
    }
    meme.boite = {
      x0: Math.min(meme.boite.x0, r.boite.x0),
      y0: Math.min(meme.boite.y0, r.boite.y0),
      x1: Math.max(meme.boite.x1, r.boite.x1),
      y1: Math.max(meme.boite.y1, r.boite.y1),
    };
    meme.confiance = Math.max(meme.confiance, r.confiance);
  }
  return sortie;
};
