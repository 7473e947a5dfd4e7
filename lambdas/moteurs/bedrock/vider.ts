/**
 * vider → Stable Image Inpaint over the lower part of the room, prompted for the same room empty.
 *
 * Why not Erase Object: it fills a region from its surroundings with no guidance, which works for a
 * vase, not for a sofa that covers half the floor — it smears. Inpaint is told what belongs there
 * (floor, skirting, wall) and what must not (furniture). Why a fixed region: furniture stands on
 * the floor, in the lower part of the frame; ceilings, window tops and upper walls stay the photo's own
 * pixels, which is what keeps walls and windows from moving.
 */
import { A_EVITER, FORMAT_REPONSE, type Recette } from './recette';

export const ZONE_VIDER = { x0: 0.03, y0: 0.38, x1: 0.97, y1: 1 } as const;

export const PROMPT_VIDER =
  'The same room completely empty and unfurnished: bare floor continuing with the same flooring material, clean walls and skirting boards, ' +
  'the same windows, doors, light and perspective. Professional real estate interior photograph, photorealistic, natural light.';

export const recetteVider = (_valeurs: unknown, modele: string): Recette => ({
  modele,
  zone: { type: 'rectangle', rectangle: ZONE_VIDER },
  corps: ({ image, masque, graine }) => ({
    prompt: PROMPT_VIDER,
    negative_prompt: `furniture, sofa, chair, table, bed, rug, carpet, boxes, clutter, objects, lamp, decoration, plants, ${A_EVITER}`,
    image,
    mask: masque,
    grow_mask: 6,
    seed: graine,
    output_format: FORMAT_REPONSE,
  }),
});
