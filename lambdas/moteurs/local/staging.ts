/**
 * The staging preview: furniture drawn (dessin.ts) in the free floor found in the photo (the zone of
 * commun/zones.ts), composited through the zone's feathered mask as production composites the model's.
 */
import { boiteDuMasque, recomposer } from '../commun/masques';
import { depuisPixels, type Pixels } from '../commun/pixels';
import type { ZoneOutil } from '../commun/zones';
import { defsMeubles, PALETTES, svgMeubles } from './dessin';

/**
 * The furniture is laid out in the free floor's box (the edited area found in the photo), then
 * blended through its feathered mask: where a window, a door or a radiator is, the photo stays, as
 * in production.
 */
export const apercuStaging = async (p: Pixels, zone: ZoneOutil, valeurs: Readonly<Record<string, string>>): Promise<Buffer> => {
  const palette = PALETTES[valeurs.style ?? 'modern'] ?? PALETTES.modern!;
  // Never empty: zoneStaging refuses a photo without free floor (sol_introuvable).
  const b = boiteDuMasque(zone.masque, p.largeur, p.hauteur) ?? { gauche: 0, haut: 0, largeur: p.largeur, hauteur: p.hauteur };
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${p.largeur}" height="${p.hauteur}">${defsMeubles(b.largeur)}` +
    `<g transform="translate(${b.gauche} ${b.haut})">${svgMeubles(valeurs.piece ?? 'living room', b.largeur, b.hauteur, palette)}</g></svg>`;
  const dessine = await depuisPixels(p)
    .composite([{ input: Buffer.from(svg) }])
    .removeAlpha()
    .raw()
    .toBuffer();
  return recomposer(p, { data: dessine, largeur: p.largeur, hauteur: p.hauteur }, zone.alpha);
};
