/**
 * The renovation preview: the walls found (not sky, snow, foliage, branches, glass or highlights)
 * re-rendered in the style's colour, keeping their shading; the windows and doors found stay as they are.
 */
import { adoucir, cielAnalyse, copieAnalyse } from '../commun/ciel-masque';
import { luminance, type Pixels } from '../commun/pixels';
import { borner, saturation } from './couleurs';
import { solAnalyse } from '../commun/sol';
import { neigeAnalyse } from './neige';

const TEINTES_RENOVATION: Record<string, [number, number, number]> = {
  contemporary: [236, 238, 240],
  classic: [240, 228, 205],
  'natural materials': [205, 180, 145],
};

/**
 * The walls the preview re-renders, on the analysis copy: not sky, not the ground (commun/sol.ts), not snow on the ground, not
 * foliage or bare branches, not glass (dark and cool), not blown highlights; for a facade, what stands between 25%
 * and 92% of the height, for an interior the upper 55% (the walls above the floor). The band's ends
 * and the mask's edges are feathered.
 */
export const zoneRenovation = async (p: Pixels, zone: string | undefined): Promise<Buffer> => {
  // The sky of the analysis copy only: the full-size feathered mask trouverCiel also builds is not needed here.
  const analyse = await copieAnalyse(p);
  const masqueAnalyse = cielAnalyse(analyse);
  const { data, largeur: l, hauteur: h } = analyse;
  const interieur = zone === 'interieur';
  const ciel = interieur ? new Uint8Array(l * h) : masqueAnalyse;
  const neige = interieur ? ciel : neigeAnalyse(analyse, ciel);
  // The ground in front (paving, a terrace, a lawn; the floor inside) is no wall: on real facades the
  // band below reached a square's wet paving and a street's setts and painted them.
  const sol = solAnalyse(analyse);
  const [debut, fin] = interieur ? [0, 0.55] : [0.25, 0.92];
  const masque = new Uint8Array(l * h);
  for (let y = 0; y < h; y++) {
    const fy = (y + 0.5) / h;
    if (fy < debut || fy >= fin) continue;
    for (let x = 0; x < l; x++) {
      const p0 = y * l + x;
      const [r, g, b] = [data[p0 * 3]!, data[p0 * 3 + 1]!, data[p0 * 3 + 2]!];
      const lu = luminance(r, g, b);
      const feuillage = g > r + 6 && g > b + 6;
      const vitre = b > r + 8 && lu < 130;
      // Bare winter trees: dark, grey and busy, where a wall, even of brick (saturated), is not.
      const voisin = (dx: number, dy: number) => {
        const q = Math.min(h - 1, Math.max(0, y + dy)) * l + Math.min(l - 1, Math.max(0, x + dx));
        return luminance(data[q * 3]!, data[q * 3 + 1]!, data[q * 3 + 2]!);
      };
      const agite = Math.abs(voisin(1, 0) - voisin(-1, 0)) + Math.abs(voisin(0, 1) - voisin(0, -1)) > 10;
      const branches = agite && lu < 125 && saturation(r, g, b) < 40;
      if (ciel[p0] || neige[p0] || sol[p0] || feuillage || vitre || branches || lu < 45 || lu > 245) continue;
      masque[p0] = 1;
    }
  }
  const alpha = await adoucir(masque, analyse, p, 1.5);
  // The band's ends ramp over 5% of the height: no line across the photo.
  const rampe = 0.05 * p.hauteur;
  for (let y = 0; y < p.hauteur; y++) {
    const k = Math.max(0, Math.min(1, (y - debut * p.hauteur) / rampe, (fin * p.hauteur - y) / rampe));
    if (k === 1) continue;
    for (let x = 0; x < p.largeur; x++) alpha[y * p.largeur + x] = Math.round(alpha[y * p.largeur + x]! * k);
  }
  return alpha;
};

/** `fixes`: the windows and doors found (commun/zones.ts masqueFixes): the openings stay as they are, as production's structure control keeps them. */
export const apercuRenovation = async (p: Pixels, valeurs: Readonly<Record<string, string>>, fixes: Buffer): Promise<Buffer> => {
  const sortie = Buffer.from(p.data);
  const teinte = TEINTES_RENOVATION[valeurs.style ?? 'contemporary'] ?? TEINTES_RENOVATION.contemporary!;
  const force = valeurs.niveau === 'rafraichissement' ? 0.45 : 0.85;
  const alpha = await zoneRenovation(p, valeurs.zone);
  for (let q = 0; q < alpha.length; q++) if (fixes[q]) alpha[q] = 0;
  // The walls' own median light: the new render keeps their shading relative to it.
  const histo = new Float64Array(256);
  let n = 0;
  for (let q = 0; q < alpha.length; q++) if (alpha[q]! >= 128) (histo[Math.round(luminance(p.data[q * 3]!, p.data[q * 3 + 1]!, p.data[q * 3 + 2]!))]!++, n++);
  let [cumul, mediane] = [0, 128];
  for (let v = 0; v < 256 && n; v++)
    if ((cumul += histo[v]!) >= n / 2) {
      mediane = Math.max(1, v);
      break;
    }
  const lt = luminance(...teinte);
  // Part of the way from the old wall's brightness to the new colour's (a repainted wall, not a white
  // veil), by at most a quarter: brightening further washed a facade into the sky above it, and the
  // structure check (commun/controle.ts) rightly read the lost roofline as a changed outline.
  const niveau = Math.min(1.25, Math.sqrt(lt / mediane));
  for (let q = 0; q < alpha.length; q++) {
    if (!alpha[q]) continue;
    const w = (force * alpha[q]!) / 255;
    const i = q * 3;
    const lu = luminance(p.data[i]!, p.data[i + 1]!, p.data[i + 2]!);
    const k = (lu * niveau) / lt;
    for (let c = 0; c < 3; c++) sortie[i + c] = borner(p.data[i + c]! + w * (teinte[c]! * k - p.data[i + c]!));
  }
  return sortie;
};
