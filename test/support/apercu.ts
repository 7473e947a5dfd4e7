/**
 * The preview engine marks every result in a corner (lambdas/moteurs/commun/apercu.ts). Tests that check
 * where a tool edited compare its result with that corner taken back from the photo: the mark is checked
 * on its own (test/unit/apercu.test.ts, test/integration/apercu.test.ts).
 */
import type { Langue } from '../../lambdas/core/modele/outils';
import { zoneMarqueApercu } from '../../lambdas/moteurs/commun/apercu';

/** `apres` (raw pixels, `canaux` a pixel) with the mark's rectangle copied from `reference`: what the tool itself changed. */
export const sansMarque = async (apres: Buffer, reference: Buffer, largeur: number, hauteur: number, canaux = 3, langue?: Langue): Promise<Buffer> => {
  const zone = await zoneMarqueApercu(largeur, hauteur, langue);
  const copie = Buffer.from(apres);
  for (let y = zone.top; y < Math.min(hauteur, zone.top + zone.hauteur); y++) {
    const debut = (y * largeur + zone.left) * canaux;
    reference.copy(copie, debut, debut, debut + Math.min(zone.largeur, largeur - zone.left) * canaux);
  }
  return copie;
};
