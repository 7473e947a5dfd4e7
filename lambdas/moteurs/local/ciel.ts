/**
 * The ciel preview: the sky of the photo, already corrected for light and verticals by the factory
 * (index.ts, as in production), painted through the feathered sky mask (commun/ciel-masque.ts): blue
 * by day, its own hour at dusk; none inside.
 */
import { trouverCiel } from '../commun/ciel-masque';
import { luminance, type Pixels } from '../commun/pixels';
import { borner } from './couleurs';

/** A sky darker than this (luma, 0–255) is a dusk or blue-hour sky: its mood is kept, not turned to noon. */
const L_CREPUSCULE = 120;
/** A sky whose red exceeds its green by this much (mean, 0–255) is a sunset's. */
const ROUGEUR = 8;

/** Mean colour of the sky pixels (alpha ≥ 128) in rows [y0, y1). */
const moyenne = (p: Pixels, alpha: Uint8Array | Buffer, y0: number, y1: number): [number, number, number] | null => {
  const somme = [0, 0, 0];
  let n = 0;
  for (let y = y0; y < y1; y++)
    for (let x = 0; x < p.largeur; x++) {
      const q = y * p.largeur + x;
      if (alpha[q]! < 128) continue;
      n++;
      for (let c = 0; c < 3; c++) somme[c]! += p.data[q * 3 + c]!;
    }
  return n ? [somme[0]! / n, somme[1]! / n, somme[2]! / n] : null;
};

/**
 * The first row of the sky (alpha ≥ 128) and the row after its last, its horizon: the day's gradient
 * runs between them. [-1, 1] without sky.
 */
export const rangeesDuCiel = (alpha: Uint8Array | Buffer, largeur: number): [number, number] => {
  let [haut, bas] = [-1, 1];
  for (let i = 0; i < alpha.length; i++)
    if (alpha[i]! >= 128) {
      haut = Math.floor(i / largeur);
      break;
    }
  for (let i = alpha.length - 1; i >= 0; i--)
    if (alpha[i]! >= 128) {
      bas = Math.floor(i / largeur) + 1;
      break;
    }
  return [haut, bas];
};

/** A clear day sky at height `t` (0 at the top of the sky, 1 at its horizon): deep blue to pale. */
export const bleuDuJour = (t: number): [number, number, number] => [40 + 120 * t, 110 + 100 * t, 215 + 30 * t];

/**
 * The sky of the corrected photo becomes a clean sky, through the feathered mask: no seam at the
 * roofline. A day sky becomes blue; a dusk or blue-hour sky (dark, or warmer than blue, as taken:
 * `original`, before the light correction) stays the hour it was: a smooth gradient from its own
 * colour at the top to its own colour at the horizon, a little richer, so the lit facade under it
 * still matches (a noon sky behind a dusk-lit house reads as a fake).
 */
export const apercuCiel = async (p: Pixels, original: Pixels = p, { interieur = false } = {}): Promise<Buffer> => {
  const sortie = Buffer.from(p.data);
  // Inside (a sink, a bed in view), nothing is a sky: the light and verticals alone, done by the factory.
  const { alpha } = await trouverCiel(p, { interieur });
  // The gradient runs from the top to the lowest sky row: a horizon that is the photo's own.
  const [haut, bas] = rangeesDuCiel(alpha, p.largeur);
  // The hour is read on the photo as taken: the light correction greys a sunset (same frame, nearly the same geometry).
  const tout = haut < 0 ? null : moyenne(original, alpha, haut, bas);
  // Dark (blue hour, night) or redder than green (a pink or orange sunset); a grey overcast sky is neither.
  const crepuscule = tout !== null && (luminance(...tout) < L_CREPUSCULE || tout[0] > tout[1] + ROUGEUR);
  const bande = Math.max(1, Math.round((bas - Math.max(0, haut)) / 5));
  const [dessus, dessous] = crepuscule
    ? [moyenne(original, alpha, haut, haut + bande) ?? tout!, moyenne(original, alpha, bas - bande, bas) ?? tout!]
    : [null, null];
  for (let y = 0; y < p.hauteur; y++) {
    const t = Math.min(1, y / bas);
    const cible =
      dessus && dessous
        ? // Its own colours, a touch more saturated around their grey.
          [0, 1, 2].map((c) => {
            const v = dessus[c]! * (1 - t) + dessous[c]! * t;
            const gris = luminance(...(dessus.map((d, k) => d * (1 - t) + dessous[k]! * t) as [number, number, number]));
            return gris + 1.15 * (v - gris);
          })
        : bleuDuJour(t);
    for (let x = 0; x < p.largeur; x++) {
      const a = alpha[y * p.largeur + x]! / 255;
      if (a === 0) continue;
      const i = (y * p.largeur + x) * 3;
      // Keep a little of the original texture (clouds) under the new sky.
      for (let c = 0; c < 3; c++) sortie[i + c] = borner(p.data[i + c]! + a * (0.8 * cible[c]! + 0.2 * p.data[i + c]! - p.data[i + c]!));
    }
  }
  return sortie;
};
