/**
 * vider → Stable Image Inpaint over the furniture and clutter found in the photo, prompted for the
 * same room empty.
 *
 * Why not Erase Object: it fills a region from its surroundings with no guidance, which works for a
 * vase, not for a sofa that covers half the floor — it smears. Inpaint is told what belongs there
 * (floor, skirting, wall) and what must not (furniture). The mask is the detector's furniture boxes,
 * grown and feathered, with the windows, doors and radiators it found kept out (commun/zones.ts): what is
 * not furniture stays the photo's own pixels, which is what keeps walls and windows from moving.
 */
import { A_EVITER, FORMAT_REPONSE, type Recette } from './recette';

export const PROMPT_VIDER =
  'The same room completely empty and unfurnished: bare floor continuing with the same flooring material, clean walls and skirting boards, ' +
  'the same windows, doors, light and perspective. Professional real estate interior photograph, photorealistic, natural light.';

export const recetteVider = (_valeurs: unknown, modele: string): Recette => ({
  modele,
  zone: { type: 'objets' },
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
