/**
 * Blurring faces and number plates (the `floutage` setting of every image tool, our extension): after
 * the tool's edit and its structure check, before the staging notice, the encoding and the C2PA
 * signature, so the signed manifest binds the blurred pixels and says they were blurred.
 *
 * The blur must leave nothing to recognise, not merely look soft: a light Gaussian blur or a fine
 * mosaic is undone by matching against candidates blurred the same way (the "parrot" attack that
 * defeated YouTube's blur and pixelation in the literature). So each region is first reduced to a few
 * averages — a face to 3 cells across its width, a plate to 2 — and only
 * then smoothed back to size (bilinear, then a Gaussian of half a cell): whatever is inside the region
 * afterwards is a function of those few averages alone, nothing of the eyes, mouth or characters is
 * left to sharpen or match. bench/floutage.ts measures it (docs/engines.md, "Faces and plates blurred").
 *
 * Only the regions are touched: each is cut out (grown by a margin, so the hairline, ears and the plate's
 * frame go too), blurred, and blended back through a feathered edge — an ellipse for a face, a rounded
 * rectangle for a plate — that is fully opaque over the whole detected box. Pixels outside the grown
 * regions keep their exact values, and the full frame is neither copied nor decoded again: the blend is
 * written into the engine's own result buffer.
 */
import sharp from 'sharp';
import type { Floutage } from '../../core/modele/sorties';
import { lisse } from './lisse';
import type { Rectangle } from './masques';
import { fusionner, genresDe, type DetecteurPersonnes, type Genre, type RegionPersonnelle } from './personnes';
import type { Pixels } from './pixels';

/** Margin added on each side, as a share of the detected box's width and height: hair, ears, the plate's rim. */
const MARGE: Readonly<Record<Genre, { x: number; y: number }>> = {
  visage: { x: 0.35, y: 0.35 },
  // A plate box is the characters (Rekognition's text line) or the plate (the local stand-in): half its height all round covers the rim and the country band.
  plaque: { x: 0.5, y: 0.5 },
};

/**
 * Cell size of the reduction, from the detected box. Set by bench/floutage.ts, which matches blurred
 * faces and plates against candidates blurred the same way (the attack that defeats light blurs and
 * mosaics): with 4 averages across a face, 20–25 % of 40 faces were still identified, 25–40 % of plates
 * with a cell per character height; with 3 across a face (about 4 down) and a cell of 2.4 plate heights
 * (2 cells for a whole plate), identification falls to chance.
 */
export interface ReglagesFlou {
  /** Averages kept across a face's width. */
  cellulesVisage: number;
  /** Cell size of a plate, in plate heights. */
  cellulePlaque: number;
}
export const REGLAGES_FLOU: ReglagesFlou = { cellulesVisage: 3, cellulePlaque: 2.4 };
const cellule = (r: ReglagesFlou, genre: Genre, largeur: number, hauteur: number): number =>
  Math.max(1, genre === 'visage' ? largeur / r.cellulesVisage : hauteur * r.cellulePlaque);

/**
 * Share of the grown region's radius (face ellipse) or margin (plate) over which the blend fades to the
 * photo. The detected box lies entirely inside the opaque part: a face box's corners sit at 0.83 of the
 * ellipse's radius with a 0.35 margin, the opaque part reaches 0.85.
 */
const OPAQUE_VISAGE = 0.85;

/** The grown region in pixels (fractional) and its part inside the frame (integer, end excluded). */
export const regionAgrandie = (r: RegionPersonnelle, largeur: number, hauteur: number) => {
  const [x0, y0, x1, y1] = [r.boite.x0 * largeur, r.boite.y0 * hauteur, r.boite.x1 * largeur, r.boite.y1 * hauteur];
  const [l, h] = [x1 - x0, y1 - y0];
  const base = r.genre === 'plaque' ? h : 0;
  const [mx, my] = r.genre === 'plaque' ? [MARGE.plaque.x * base, MARGE.plaque.y * base] : [MARGE.visage.x * l, MARGE.visage.y * h];
  const exacte = { x0: x0 - mx, y0: y0 - my, x1: x1 + mx, y1: y1 + my };
  const pixels = {
    x0: Math.max(0, Math.floor(exacte.x0)),
    y0: Math.max(0, Math.floor(exacte.y0)),
    x1: Math.min(largeur, Math.ceil(exacte.x1)),
    y1: Math.min(hauteur, Math.ceil(exacte.y1)),
  };
  return { boite: { x0, y0, x1, y1 }, exacte, pixels, marge: { x: mx, y: my } };
};

/** Opacity 0–1 of the blurred copy at pixel (x, y) of the frame, for one region. */
const opacite = (r: RegionPersonnelle, g: ReturnType<typeof regionAgrandie>) => {
  if (r.genre === 'visage') {
    const [cx, cy] = [(g.exacte.x0 + g.exacte.x1) / 2, (g.exacte.y0 + g.exacte.y1) / 2];
    const [ax, ay] = [(g.exacte.x1 - g.exacte.x0) / 2, (g.exacte.y1 - g.exacte.y0) / 2];
    return (x: number, y: number) => {
      const rayon = Math.hypot((x + 0.5 - cx) / ax, (y + 0.5 - cy) / ay);
      return 1 - lisse(OPAQUE_VISAGE, 1, rayon);
    };
  }
  // A rounded rectangle: opaque up to half the margin outside the box, fading over the other half.
  const demi = Math.max(0.5, g.marge.y / 2);
  const interieur = { x0: g.boite.x0 - demi, y0: g.boite.y0 - demi, x1: g.boite.x1 + demi, y1: g.boite.y1 + demi };
  return (x: number, y: number) => {
    const dx = Math.max(0, interieur.x0 - (x + 0.5), x + 0.5 - interieur.x1);
    const dy = Math.max(0, interieur.y0 - (y + 0.5), y + 0.5 - interieur.y1);
    return 1 - lisse(0, demi, Math.hypot(dx, dy));
  };
};

/** The region's crop reduced to cell averages, then smoothed back to the crop's size: the blurred copy. */
const copieFloutee = async (p: Pixels, zone: { x0: number; y0: number; x1: number; y1: number }, taille: number): Promise<Buffer> => {
  const [l, h] = [zone.x1 - zone.x0, zone.y1 - zone.y0];
  const [nx, ny] = [Math.max(1, Math.round(l / taille)), Math.max(1, Math.round(h / taille))];
  const sommes = new Float64Array(nx * ny * 3);
  const comptes = new Float64Array(nx * ny);
  for (let y = 0; y < h; y++) {
    const cy = Math.min(ny - 1, Math.floor((y * ny) / h));
    let i = ((zone.y0 + y) * p.largeur + zone.x0) * 3;
    for (let x = 0; x < l; x++, i += 3) {
      const c = cy * nx + Math.min(nx - 1, Math.floor((x * nx) / l));
      comptes[c]!++;
      sommes[c * 3]! += p.data[i]!;
      sommes[c * 3 + 1]! += p.data[i + 1]!;
      sommes[c * 3 + 2]! += p.data[i + 2]!;
    }
  }
  const moyennes = Buffer.alloc(nx * ny * 3);
  for (let c = 0; c < nx * ny; c++) for (let k = 0; k < 3; k++) moyennes[c * 3 + k] = Math.round(sommes[c * 3 + k]! / comptes[c]!);
  let image = sharp(moyennes, { raw: { width: nx, height: ny, channels: 3 } }).resize(l, h, { fit: 'fill', kernel: 'linear' });
  // A Gaussian of half a cell takes out the creases the bilinear steps leave between cells.
  const sigma = taille / 2;
  if (sigma >= 0.3 && l > 1 && h > 1) image = sharp(await image.raw().toBuffer(), { raw: { width: l, height: h, channels: 3 } }).blur(sigma);
  return image.raw().toBuffer();
};

/**
 * Blurs the regions into `p.data`, in place (the engine's own result, about to be encoded): no copy of
 * the frame. Returns the same Pixels. Overlapping regions are blurred one after the other.
 */
export const flouterEnPlace = async (p: Pixels, regions: readonly RegionPersonnelle[], reglages: ReglagesFlou = REGLAGES_FLOU): Promise<Pixels> => {
  for (const r of regions) {
    const g = regionAgrandie(r, p.largeur, p.hauteur);
    const z = g.pixels;
    if (z.x1 - z.x0 < 1 || z.y1 - z.y0 < 1) continue;
    const floue = await copieFloutee(p, z, cellule(reglages, r.genre, g.boite.x1 - g.boite.x0, g.boite.y1 - g.boite.y0));
    const alpha = opacite(r, g);
    const l = z.x1 - z.x0;
    for (let y = z.y0; y < z.y1; y++) {
      for (let x = z.x0; x < z.x1; x++) {
        const a = alpha(x, y);
        if (a <= 0) continue;
        const [i, j] = [(y * p.largeur + x) * 3, ((y - z.y0) * l + (x - z.x0)) * 3];
        for (let k = 0; k < 3; k++) p.data[i + k] = Math.round(p.data[i + k]! + a * (floue[j + k]! - p.data[i + k]!));
      }
    }
  }
  return p;
};

/**
 * The tool's result with what identifies people blurred, as the job's `floutage` setting asks: with
 * `none` (the default) nothing is called and nothing changes; otherwise the detector looks for the kinds
 * asked and each region found is blurred. `floutage` is null when nothing was asked, else the counts.
 *
 * `avant`: the photo the tool edited, in the result's geometry (after ciel's straightening). It is looked
 * at too, and what is found in either is blurred: an edit that recolours a plate (saison) or repaints a
 * facade around a person (renovation) must not let them through because the detector no longer
 * recognises them, while the person or the plate is still there to be recognised by a reader. A
 * detector whose engine adds no one (`photoSuffit`: the local preview) reads the photo alone, which
 * halves the blur's time.
 */
export const appliquerFloutage = async (
  p: Pixels,
  reglage: string | undefined,
  detecteur: DetecteurPersonnes,
  avant?: Pixels,
): Promise<{ pixels: Pixels; floutage: Floutage | null }> => {
  const genres = genresDe(reglage);
  if (genres.size === 0 || reglage === undefined) return { pixels: p, floutage: null };
  const meme = avant !== undefined && avant !== p && avant.largeur === p.largeur && avant.hauteur === p.hauteur;
  const trouves = [...(meme ? await detecteur.detecter(avant, genres) : []), ...(meme && detecteur.photoSuffit ? [] : await detecteur.detecter(p, genres))];
  const regions = fusionner(trouves.filter((r) => genres.has(r.genre) && valide(r.boite)));
  await flouterEnPlace(p, regions);
  return {
    pixels: p,
    floutage: { reglage, visages: regions.filter((r) => r.genre === 'visage').length, plaques: regions.filter((r) => r.genre === 'plaque').length },
  };
};

const valide = (b: Rectangle): boolean => [b.x0, b.y0, b.x1, b.y1].every(Number.isFinite) && b.x1 > b.x0 && b.y1 > b.y0;
