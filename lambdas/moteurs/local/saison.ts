/**
 * The saison preview: winter to summer without a model. The snow on the ground (neige.ts) becomes a
 * lawn with the snow's own light and shade, the ground and the house take a warmer light, and nothing
 * of the sky changes.
 */
import { adoucir, trouverCiel } from '../commun/ciel-masque';
import { luminance, type Pixels } from '../commun/pixels';
import { borner } from './couleurs';
import { neigeAnalyse } from './neige';

/** Per pixel weight 0–1 of a feathered 0–255 mask: 0 from the sky's edge (alpha 128) outwards, 1 inside. */
const dansCiel = (alpha: number) => Math.min(1, alpha / 128);

/** A per-pixel value in [0, 1) from its position: grass texture that is the same on every run. */
const hachage = (x: number, y: number) => {
  let v = Math.imul(x, 0x27d4eb2d) ^ Math.imul(y, 0x165667b1);
  v = Math.imul(v ^ (v >>> 15), 0x85ebca6b);
  return ((v ^ (v >>> 13)) >>> 0) / 2 ** 32;
};

/** Where saison paints lawn (0–255, feathered) and where the sky is (0–255): exported for the tests and the bench. */
export const zonesSaison = async (p: Pixels): Promise<{ pelouse: Buffer; ciel: Buffer }> => {
  const { analyse, masqueAnalyse, alpha } = await trouverCiel(p);
  const neige = neigeAnalyse(analyse, masqueAnalyse);
  // Feathered over a couple of analysis pixels: grass tufts in the snow are covered, the edge is soft.
  return { pelouse: await adoucir(neige, analyse, p, 1.5), ciel: alpha };
};

export const apercuSaison = async (p: Pixels): Promise<Buffer> => {
  const sortie = Buffer.from(p.data);
  const { pelouse, ciel } = await zonesSaison(p);
  // The snow's own mean light: the lawn keeps its light and shade whatever the exposure.
  let [somme, n] = [0, 0];
  for (let q = 0; q < pelouse.length; q++) if (pelouse[q]! >= 128) ((somme += luminance(p.data[q * 3]!, p.data[q * 3 + 1]!, p.data[q * 3 + 2]!)), n++);
  const reference = n ? somme / n : 180;
  for (let y = 0; y < p.hauteur; y++) {
    for (let x = 0; x < p.largeur; x++) {
      const q = y * p.largeur + x;
      // Nothing of the sky changes; the edit fades out towards it.
      const hors = 1 - dansCiel(ciel[q]!);
      if (hors === 0) continue;
      const i = q * 3;
      const r = p.data[i]!,
        g = p.data[i + 1]!,
        b = p.data[i + 2]!;
      const w = pelouse[q]! / 255;
      // A warmer summer light on the ground and the house, lawn where the snow was, with a blade-scale variation.
      const chaud = [r * 1.04 + 4, g * 1.04 + 3, b * 0.94];
      const l = (0.8 + 0.45 * (luminance(r, g, b) / reference - 1)) * (0.88 + 0.24 * hachage(x, y));
      const herbe = [92 * l, 142 * l, 56 * l];
      for (let c = 0; c < 3; c++) sortie[i + c] = borner(p.data[i + c]! + hors * (chaud[c]! + w * (herbe[c]! - chaud[c]!) - p.data[i + c]!));
    }
  }
  return sortie;
};
