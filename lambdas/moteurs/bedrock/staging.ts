/**
 * staging → Stable Image Inpaint over the free floor found in the photo and the space above it,
 * prompted with the room's furniture (piece) in the chosen style.
 *
 * Why not Control Structure: it redraws the whole frame from the photo's edges, so walls, windows
 * and floor come back re-rendered; a buyer who visits must find the room that was photographed.
 * Inpainting furniture where the floor is free (commun/zones.ts: the floor found from the bottom of the
 * frame, minus what stands on it, plus the height furniture rises to, minus the windows, doors and
 * radiators found) keeps everything else pixel-exact.
 */
import { A_EVITER, FORMAT_REPONSE, type Recette, type Valeurs } from './recette';

/** What furnishes each kind of room: only pieces that stand on the floor, where the mask is. */
export const MEUBLES: Readonly<Record<string, string>> = {
  'living room': 'a sofa with cushions, a coffee table, an armchair, a rug and a floor lamp',
  bedroom: 'a double bed with bedding and pillows, two bedside tables with lamps and a rug',
  kitchen: 'a dining table or kitchen island with bar stools, a bowl of fruit and a few accessories',
  'dining room': 'a dining table with six chairs, a sideboard and a rug',
  'home office': 'a desk with an office chair, a bookshelf, a desk lamp and a plant',
  "children's bedroom": 'a single bed with colourful bedding, a small desk and chair, a toy storage unit and a play rug',
};

export const STYLES_STAGING: Readonly<Record<string, string>> = {
  modern: 'modern style: clean lines, neutral whites and greys, matte black metal and warm wood accents',
  Scandinavian: 'Scandinavian style: light oak, white and soft grey textiles, simple functional shapes, wool throws and green plants',
  industrial: 'industrial style: black steel frames, reclaimed wood, cognac leather, concrete and brick tones',
  'classic elegant': 'classic elegant style: tufted upholstery, carved wood, brass details, rich fabrics in cream, navy and burgundy',
  japandi: 'japandi style: low natural wood furniture, linen, muted earth tones, handmade ceramics, minimal decoration',
  'warm bohemian': 'warm bohemian style: rattan and wicker, layered patterned rugs, terracotta and mustard textiles, macramé and many plants',
};

export const promptStaging = (valeurs: Valeurs): string => {
  const piece = valeurs.piece && MEUBLES[valeurs.piece] ? valeurs.piece : 'living room';
  const style = valeurs.style && STYLES_STAGING[valeurs.style] ? valeurs.style : 'modern';
  return (
    `A ${piece} furnished with ${MEUBLES[piece]}, in ${STYLES_STAGING[style]}. ` +
    'The furniture stands on the existing floor, at the scale of the room, under the same light; the walls, windows, doors and floor stay as they are. ' +
    'Professional real estate interior photograph, photorealistic, natural light.'
  );
};

export const recetteStaging = (valeurs: Valeurs, modele: string): Recette => ({
  modele,
  zone: { type: 'sol' },
  corps: ({ image, masque, graine }) => ({
    prompt: promptStaging(valeurs),
    negative_prompt: `floating furniture, furniture cut in half, extra windows, extra doors, clutter, ${A_EVITER}`,
    image,
    mask: masque,
    grow_mask: 6,
    seed: graine,
    output_format: FORMAT_REPONSE,
  }),
});
