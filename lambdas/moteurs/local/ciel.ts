/**
 * The ciel preview: the sky of the photo, already corrected for light and verticals by the factory
 * (index.ts, as in production), painted blue through the feathered sky mask (commun/ciel-masque.ts).
 */
import { trouverCiel } from '../commun/ciel-masque';
import type { Pixels } from '../commun/pixels';
import { borner } from './couleurs';

/** The sky of the corrected photo becomes blue, through the feathered mask: no seam at the roofline. */
export const apercuCiel = async (p: Pixels): Promise<Buffer> => {
  const sortie = Buffer.from(p.data);
  const { alpha } = await trouverCiel(p);
  // The gradient runs from the top to the lowest sky row: a horizon that is the photo's own.
  let bas = 1;
  for (let i = alpha.length - 1; i >= 0; i--)
    if (alpha[i]! >= 128) {
      bas = Math.floor(i / p.largeur) + 1;
      break;
    }
  for (let y = 0; y < p.hauteur; y++) {
    const t = Math.min(1, y / bas);
    const bleu = [40 + 120 * t, 110 + 100 * t, 215 + 30 * t];
    for (let x = 0; x < p.largeur; x++) {
      const a = alpha[y * p.largeur + x]! / 255;
      if (a === 0) continue;
      const i = (y * p.largeur + x) * 3;
      // Keep a little of the original texture (clouds) under the new blue.
      for (let c = 0; c < 3; c++) sortie[i + c] = borner(p.data[i + c]! + a * (0.8 * bleu[c]! + 0.2 * p.data[i + c]! - p.data[i + c]!));
    }
  }
  return sortie;
};
