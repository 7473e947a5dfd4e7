/**
 * The edited area of each tool, as a one-channel mask at the photo's resolution (255 = edit).
 *
 * Two kinds: a region decided before the call (inpainting: commun/zones.ts builds it from what the photo
 * shows, the model is told where to paint, and the same mask composites its answer), and a region read
 * from the answer (search-replace finds its own target, e.g. the sky: what it really changed is kept,
 * everything else — including the faint global drift of a diffusion model's re-encoding — goes back
 * to the photo's pixels). What both engines share of masks (the rectangle's rounding, the soft edge
 * inside a mask, compositing through it) is in commun/masques.ts.
 */
import { flouterMasque, sigmaCouture } from '../commun/masques';
import type { Pixels } from '../commun/pixels';

export type Zone =
  /** The furniture and clutter found in the photo (commun/zones.ts, zoneVider): sent as the mask, used to composite. */
  | { type: 'objets' }
  /** The free floor found in the photo and the space above it (commun/zones.ts, zoneStaging): the same. */
  | { type: 'sol' }
  /** The whole frame is the edit (a global restyle): nothing of the photo is kept. */
  | { type: 'cadre' }
  /** Whatever the model changed clearly, within a horizontal band (fractions of the height). */
  | { type: 'difference'; haut: number; bas: number };

/** Clearly changed, not sensor noise or re-encoding drift: a mean gap of ~10% over a small neighbourhood. */
const SEUIL_DIFFERENCE = 28;

/**
 * What the model actually replaced, within a band of rows: per-pixel difference, smoothed so that
 * isolated specks of drift drop out, then grown a little so the blend covers the replaced edge.
 */
export const masqueDifference = async (origine: Pixels, resultat: Pixels, haut: number, bas: number): Promise<Buffer> => {
  const { largeur, hauteur } = origine;
  const ecart = Buffer.alloc(largeur * hauteur);
  const [debut, fin] = [Math.floor(haut * hauteur), Math.ceil(bas * hauteur)];
  for (let y = debut; y < fin; y++) {
    for (let x = 0; x < largeur; x++) {
      const p = y * largeur + x;
      const i = p * 3;
      ecart[p] = Math.max(
        Math.abs(origine.data[i]! - resultat.data[i]!),
        Math.abs(origine.data[i + 1]! - resultat.data[i + 1]!),
        Math.abs(origine.data[i + 2]! - resultat.data[i + 2]!),
      );
    }
  }
  const sigma = sigmaCouture(largeur, hauteur);
  const lisse = await flouterMasque(ecart, largeur, hauteur, sigma);
  const masque = Buffer.alloc(largeur * hauteur);
  for (let p = 0; p < masque.length; p++) if (lisse[p]! > SEUIL_DIFFERENCE) masque[p] = 255;
  // Grow by about two blur radii, then keep within the band: rows outside it are never edited.
  const grand = await flouterMasque(masque, largeur, hauteur, 2 * sigma);
  for (let p = 0; p < masque.length; p++) {
    const y = Math.floor(p / largeur);
    masque[p] = y >= debut && y < fin && grand[p]! > 24 ? 255 : 0;
  }
  return masque;
};
