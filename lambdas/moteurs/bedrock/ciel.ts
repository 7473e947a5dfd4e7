/**
 * ciel → deterministic light balance and vertical-line correction (commun/redressement.ts), then Stable
 * Image Search and Replace of the sky.
 *
 * Light and geometry are measured, not imagined: a model asked for "straight lines" redraws the
 * building. The sky is the one part a model should invent; it is found by the model (a bright
 * white facade is not sky), and only what it changed in the upper part of the frame is kept.
 *
 * Unlike the other tools, `ciel` changes every pixel on purpose (light, geometry): the pixels outside
 * the sky are those of the corrected photo, exactly.
 */
import { redresser } from '../commun/redressement';
import { A_EVITER, FORMAT_REPONSE, type Recette } from './recette';

export const RECHERCHE_CIEL = 'sky';

export const PROMPT_CIEL = 'A clear bright blue sky with a few small soft white clouds, sunny daylight, photorealistic.';

/** The sky is above the horizon: nothing below 80% of the height may come from the model. */
export const BANDE_CIEL = { haut: 0, bas: 0.8 } as const;

export const recetteCiel = (_valeurs: unknown, modele: string): Recette => ({
  modele,
  zone: { type: 'difference', ...BANDE_CIEL },
  pretraiter: redresser,
  corps: ({ image, graine }) => ({
    prompt: PROMPT_CIEL,
    search_prompt: RECHERCHE_CIEL,
    negative_prompt: `buildings, trees, birds, dark clouds, rain, sunset, ${A_EVITER}`,
    image,
    grow_mask: 3,
    seed: graine,
    output_format: FORMAT_REPONSE,
  }),
});
