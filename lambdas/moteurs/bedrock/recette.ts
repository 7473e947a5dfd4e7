/**
 * What one image tool asks of Bedrock: which model, which request body, which part of the photo it
 * may change. The engine (index.ts) does the rest — decoding, working size, masks, compositing —
 * the same way for every tool.
 */
import type { Pixels } from '../commun/pixels';
import type { Zone } from './masques';

/** What the engine hands a recipe to build its body: base64 images at the working size, the seed, which run. */
export interface EntreeModele {
  image: string;
  /** Present when the zone comes from the photo (objets, sol): white is what the model repaints. */
  masque?: string;
  graine: number;
  /** 2 when the first result failed the structure check (commun/controle.ts): hold the structure tighter. */
  essai: 1 | 2;
}

export interface Recette {
  modele: string;
  zone: Zone;
  corps(entree: EntreeModele): Record<string, unknown> & { seed: number };
  /** A deterministic step on the photo before the model sees it (ciel: light and straight lines). */
  pretraiter?: (photo: Pixels) => Promise<Pixels>;
}

export type Valeurs = Readonly<Record<string, string>>;

/**
 * Answers come back as JPEG. InvokeModel's answer is at most 25 000 000 bytes, the image inside it in
 * base64: at the largest working frame (9.4 MP) a PNG of a photo is 24–28 MB of base64, at or over the
 * limit, a JPEG 3–6 MB at quality 90–95 and 17 MB at most even at quality 100, whatever quality
 * Stability encodes with (npm run bench:reponse-bedrock). The answer is decoded, scaled and composited
 * into the photo, then encoded once in the customer's own format (commun/resultat.ts): its JPEG generation is
 * never the delivered file's.
 */
export const FORMAT_REPONSE = 'jpeg';

/** What no listing photo should gain from a model, whatever the tool. */
export const A_EVITER = 'people, text, watermark, logo, cartoon, illustration, painting, blurry, distorted perspective';
