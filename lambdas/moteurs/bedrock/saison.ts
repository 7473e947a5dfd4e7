/**
 * saison → Stable Image Search and Replace: the model finds the snow and the bare winter trees
 * itself and replaces them with summer.
 *
 * Why not a mask of our own: snow is white and flat, like a white facade or an overcast sky; a
 * colour rule would repaint houses green. A segmenting model tells them apart. What it changed is
 * then read from its answer (zone "difference"), and everything else goes back to the photo's pixels.
 */
import { A_EVITER, FORMAT_REPONSE, type Recette } from './recette';

export const RECHERCHE_SAISON = 'snow and bare winter trees';

export const PROMPT_SAISON =
  'Summer: a lush green lawn, leafy green trees and shrubs in full foliage, flowers, dry paths and clear roofs, ' +
  'warm sunny summer daylight. Photorealistic real estate photograph.';

export const recetteSaison = (_valeurs: unknown, modele: string): Recette => ({
  modele,
  zone: { type: 'difference', haut: 0, bas: 1 },
  corps: ({ image, graine }) => ({
    prompt: PROMPT_SAISON,
    search_prompt: RECHERCHE_SAISON,
    negative_prompt: `snow, ice, frost, bare branches, grey sky, ${A_EVITER}`,
    image,
    grow_mask: 3,
    seed: graine,
    output_format: FORMAT_REPONSE,
  }),
});
