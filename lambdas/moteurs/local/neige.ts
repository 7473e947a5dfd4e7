/**
 * Snow on the ground, for the previews of saison (the lawn is painted where it was) and renovation
 * (a facade's snowy foreground is not a wall to re-render).
 */
import { luminance, type Pixels } from '../commun/pixels';
import { saturation } from './couleurs';

/**
 * Snow on the ground, on the analysis copy: snow-like pixels (grey to cool, not saturated) grown from
 * the bottom of the frame through smooth steps only, outside the sky; kept only if, as a whole, it is
 * among the brightest of the photo (grey asphalt or a concrete yard is not snow). No fixed row: the
 * snow ends where the photo says, not at a line across the frame.
 */
export const neigeAnalyse = ({ data, largeur: l, hauteur: h }: Pixels, ciel: Uint8Array): Uint8Array => {
  const n = l * h;
  const L = new Float32Array(n);
  for (let p = 0; p < n; p++) L[p] = luminance(data[p * 3]!, data[p * 3 + 1]!, data[p * 3 + 2]!);
  const neigeuse = (p: number) => {
    const [r, g, b] = [data[p * 3]!, data[p * 3 + 1]!, data[p * 3 + 2]!];
    return !ciel[p] && L[p]! >= 80 && saturation(r, g, b) <= 35 && (b - r >= 2 || L[p]! >= 200);
  };
  const masque = new Uint8Array(n);
  const pile: number[] = [];
  for (let x = 0; x < l; x++) if (neigeuse((h - 1) * l + x)) ((masque[(h - 1) * l + x] = 1), pile.push((h - 1) * l + x));
  while (pile.length) {
    const p = pile.pop()!;
    const [x, y] = [p % l, (p / l) | 0];
    for (const q of [x > 0 ? p - 1 : -1, x < l - 1 ? p + 1 : -1, y > 0 ? p - l : -1, y < h - 1 ? p + l : -1]) {
      if (q < 0 || masque[q] || Math.abs(L[q]! - L[p]!) > 8 || !neigeuse(q)) continue;
      masque[q] = 1;
      pile.push(q);
    }
  }
  const hors = [...L.filter((_, p) => !ciel[p])].sort((a, b) => a - b);
  const p90 = hors[Math.floor(hors.length * 0.9)] ?? 255;
  let [aire, somme] = [0, 0];
  for (let p = 0; p < n; p++) if (masque[p]) (aire++, (somme += L[p]!));
  return aire > n * 0.01 && somme / aire >= 0.75 * p90 ? masque : new Uint8Array(n);
};
