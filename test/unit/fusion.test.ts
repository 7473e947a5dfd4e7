/**
 * `fusion` end to end (`fusionner`, lambdas/moteurs/commun/fusion/index.ts) on small brackets of a drawn
 * room whose light is known in linear units: a window 10 to 20 times brighter than the wall (blown in the
 * metered frame, readable in the ×¼ one), a corner 50 times darker (black in the metered frame, readable in
 * the ×4 one), textured everywhere so that both the alignment and the eye have something to hold. Each
 * frame is shot by a hand (shifted, turned), exposed, clipped, given grain and encoded as a camera does.
 * The photos-project test (photos-fusion.test.ts) measures the same on real photographs.
 */
import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { decoderEntree, lireEntrees, MAX_PIXELS_SEIZE } from '../../lambdas/moteurs/commun/fusion/decodage';
import { fusionner as fusionnerBrut, type ResultatFusion } from '../../lambdas/moteurs/commun/fusion/index';
import { appliquerPixel, inverser, similitude, type Transformation } from '../../lambdas/moteurs/commun/fusion/transformation';
import { ErreurTravail } from '../../lambdas/core/modele/erreurs';
import { depuisPixels, estSeize, versPixels, type Pixels } from '../../lambdas/moteurs/commun/pixels';
import { encoderResultat } from '../../lambdas/moteurs/commun/resultat';
import { huitBits } from '../support/mesures-fusion';
import { fbm, hachage } from '../support/scenes-lumiere';

/** A merge of 8-bit brackets, whose result is 8-bit (the 16-bit bracket's, below, through `fusionnerBrut`). */
type Fusion8 = ResultatFusion & { pixels: Pixels };
const fusionner = async (photos: readonly Buffer[]): Promise<Fusion8> => {
  const r = await fusionnerBrut(photos);
  return { ...r, pixels: huitBits(r.pixels) };
};

const [L, H] = [480, 320];
type Rgb = [number, number, number];
type Boite = { x0: number; y0: number; x1: number; y1: number };
const FENETRE: Boite = { x0: 0.56, y0: 0.12, x1: 0.86, y1: 0.55 };
/** The window's two panes, its frame and mullion left out. */
const VITRES: Boite[] = [
  { x0: 0.58, y0: 0.14, x1: 0.7, y1: 0.53 },
  { x0: 0.72, y0: 0.14, x1: 0.84, y1: 0.53 },
];
const COIN: Boite = { x0: 0.02, y0: 0.55, x1: 0.24, y1: 0.97 };
const dans = (b: Boite, fx: number, fy: number) => fx >= b.x0 && fx < b.x1 && fy >= b.y0 && fy < b.y1;

/** The room's light at (fx, fy), linear: wall, floor, a picture, the window's view, the dark corner; and a square, when given. */
const lumiere = (fx: number, fy: number, carre: Boite | null): Rgb => {
  if (carre && dans(carre, fx, fy)) return [0.1, 0.08, 0.06];
  if (dans(COIN, fx, fy)) {
    const t = 0.6 + 0.8 * fbm(fx * 3, fy * 3, 6, 4) + (Math.floor(fx * 40) % 2) * 0.5;
    return [0.0026 * t, 0.0022 * t, 0.0018 * t];
  }
  if (dans(FENETRE, fx, fy)) {
    const cadre = Math.min(fx - FENETRE.x0, FENETRE.x1 - fx, fy - FENETRE.y0, FENETRE.y1 - fy) < 0.012 || Math.abs(fx - 0.71) < 0.005;
    if (cadre) return [0.5, 0.48, 0.45];
    // Outside: a bright sky with clouds over a lit facade with windows, 10 to 20 times the wall.
    const ciel = fy < 0.3;
    const t = ciel ? 0.8 + 0.4 * fbm(fx * 2, fy * 2, 5, 7) : Math.floor(fx * 60) % 3 === 0 || Math.floor(fy * 40) % 3 === 0 ? 0.5 : 1;
    return ciel ? [2.2 * t, 2.8 * t, 3.6 * t] : [3.2 * t, 2.6 * t, 2.0 * t];
  }
  if (fy > 0.75) return Array.from([0.11, 0.08, 0.05], (c) => c * (0.8 + 0.4 * hachage(Math.floor(fx * 12), Math.floor(fy * 50), 5))) as Rgb;
  if (fx > 0.3 && fx < 0.46 && fy > 0.2 && fy < 0.45) return Array.from([0.05, 0.09, 0.15], (c) => c * (0.7 + 0.6 * fbm(fx, fy, 20, 3))) as Rgb;
  const enduit = 0.9 + 0.2 * fbm(fx, fy, 30, 2);
  return [0.2 * enduit, 0.18 * enduit, 0.15 * enduit];
};

const srgb = (v: number): number => (v <= 0.0031308 ? 12.92 * v : 1.055 * v ** (1 / 2.4) - 0.055);

interface Prise {
  exposition: number;
  mouvement: Transformation;
  carre: Boite | null;
}

/** One frame: the room through the hand's motion (reference pixel → frame pixel), exposed, clipped, with grain; 8 or 16 bits. */
const photographier = (p: Prise, graine: number, seize: boolean): Uint8Array | Uint16Array => {
  const max = seize ? 65535 : 255;
  const sortie = seize ? new Uint16Array(L * H * 3) : new Uint8Array(L * H * 3);
  const inv = inverser(p.mouvement);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < L; x++) {
      const [u, v] = appliquerPixel(inv, x, y, L, H);
      const c = lumiere((u + 0.5) / L, (v + 0.5) / H, p.carre);
      for (let k = 0; k < 3; k++) {
        const s = Math.min(1, c[k]! * p.exposition);
        const grain = (hachage(x, y, graine * 3 + k) + hachage(x, y, graine * 3 + k + 50) - 1) * Math.sqrt(0.00001 + 0.0002 * s);
        sortie[(y * L + x) * 3 + k] = Math.round(max * srgb(Math.max(0, Math.min(1, s + grain))));
      }
    }
  }
  return sortie;
};

const encoder = (data: Uint8Array | Uint16Array, format: 'jpeg' | 'png'): Promise<Buffer> => {
  const s = sharp(data, { raw: { width: L, height: H, channels: 3 } });
  return format === 'png' ? (data instanceof Uint16Array ? s.toColourspace('rgb16') : s).png().toBuffer() : s.jpeg({ quality: 95 }).toBuffer();
};

/** ×¼, ×1, ×4, the middle one still, the others moved by a hand (about 2 % and a degree). */
const PRISES: Prise[] = [
  { exposition: 0.25, mouvement: similitude((-0.9 * Math.PI) / 180, 1, 9.3, -4.6), carre: null },
  { exposition: 1, mouvement: similitude(0, 1, 0, 0), carre: null },
  { exposition: 4, mouvement: similitude((1.1 * Math.PI) / 180, 1, -7.4, 5.2), carre: null },
];

const crochets = (prises = PRISES, format: 'jpeg' | 'png' = 'jpeg', seize = false): Promise<Buffer[]> =>
  Promise.all(prises.map((p, i) => encoder(photographier(p, i + 1, seize), format)));

const luminances = (p: Pixels, b: Boite, marge = 0.02): number[] => {
  const v: number[] = [];
  for (let y = Math.ceil((b.y0 + marge) * p.hauteur); y < (b.y1 - marge) * p.hauteur; y++) {
    for (let x = Math.ceil((b.x0 + marge) * p.largeur); x < (b.x1 - marge) * p.largeur; x++) {
      const i = (y * p.largeur + x) * 3;
      v.push(0.299 * p.data[i]! + 0.587 * p.data[i + 1]! + 0.114 * p.data[i + 2]!);
    }
  }
  return v;
};
const vitres = (p: Pixels): number[] => VITRES.flatMap((b) => luminances(p, b, 0.01));
/**
 * The corner's stripes (every other fortieth of the width, half as bright again) in a photo taken through
 * `t` (reference pixel → its pixel; the reference's geometry by default): their contrast, in levels, over
 * the grain (the spread of a pixel minus its right neighbour within the stripes, over √2): how clearly the
 * corner's detail shows.
 */
const rayures = (p: Pixels, t: Transformation = similitude(0, 1, 0, 0)): { contraste: number; grain: number } => {
  const claires: number[] = [];
  const sombres: number[] = [];
  const voisins: number[] = [];
  const inv = inverser(t);
  const lum = (i: number) => 0.299 * p.data[i]! + 0.587 * p.data[i + 1]! + 0.114 * p.data[i + 2]!;
  for (let y = 0; y < p.hauteur; y++) {
    for (let x = 0; x < p.largeur - 1; x++) {
      const [u, v] = appliquerPixel(inv, x, y, p.largeur, p.hauteur);
      const [fx, fy] = [(u + 0.5) / p.largeur, (v + 0.5) / p.hauteur];
      if (fx < COIN.x0 + 0.02 || fx > COIN.x1 - 0.02 || fy < COIN.y0 + 0.04 || fy > COIN.y1 - 0.04) continue;
      // Only the stripes' middles: their edges are a pixel away from where a straightening may put them.
      if (Math.abs(((fx * 40) % 1) - 0.5) > 0.25) continue;
      const i = (y * p.largeur + x) * 3;
      (Math.floor(fx * 40) % 2 ? claires : sombres).push(lum(i));
      voisins.push(lum(i) - lum(i + 3));
    }
  }
  return { contraste: moyenne(claires) - moyenne(sombres), grain: ecartType(voisins) / Math.SQRT2 };
};
const nettete = (r: { contraste: number; grain: number }) => r.contraste / r.grain;
const moyenne = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
const ecartType = (v: number[]) => Math.sqrt(moyenne(v.map((x) => (x - moyenne(v)) ** 2)));

const decode = async (octets: Buffer): Promise<Pixels> => {
  const { data, info } = await sharp(octets).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  return { data, largeur: info.width, hauteur: info.height };
};

const refus = async (promesse: Promise<unknown>): Promise<ErreurTravail> => {
  const erreur = await promesse.then(
    () => null,
    (e: unknown) => e,
  );
  expect(erreur).toBeInstanceOf(ErreurTravail);
  return erreur as ErreurTravail;
};

describe('fusion: a ×¼ / ×1 / ×4 bracket merged (fusionner)', () => {
  let resultat: Fusion8;
  let cadres: Pixels[];

  // Merged once for the three tests, whatever their order.
  beforeAll(async () => {
    const photos = await crochets();
    cadres = await Promise.all(photos.map(decode));
    resultat = await fusionner(photos);
  });

  it('shows the window the metered frame blows and the corner it leaves black', () => {
    const [sombre, metre, claire] = cadres as [Pixels, Pixels, Pixels];
    // The brackets are what the test says: the metered frame's window is flat white, its corner nearly black.
    expect(moyenne(vitres(metre))).toBeGreaterThan(245);
    expect(ecartType(vitres(metre))).toBeLessThan(6);
    expect(moyenne(luminances(metre, COIN, 0.04))).toBeLessThan(16);
    // The window: the view's texture, as the dark frame shows it, and no longer blown.
    const fenetre = vitres(resultat.pixels);
    expect(ecartType(fenetre)).toBeGreaterThan(0.6 * ecartType(vitres(sombre)));
    expect(moyenne(fenetre)).toBeLessThan(235);
    // The corner: lifted well above the metered frame, and its stripes standing out of the grain at least
    // twice as clearly (the bright frame's, less noisy, shows them better than the metered one's).
    expect(moyenne(luminances(resultat.pixels, COIN, 0.04))).toBeGreaterThan(2 * moyenne(luminances(metre, COIN, 0.04)));
    expect(nettete(rayures(claire, PRISES[2]!.mouvement))).toBeGreaterThan(2 * nettete(rayures(metre)));
    expect(nettete(rayures(resultat.pixels))).toBeGreaterThan(2 * nettete(rayures(metre)));
    expect(rayures(resultat.pixels).contraste).toBeGreaterThan(rayures(metre).contraste);
  });

  it('keeps the reference geometry and reports each frame: its motion, its exposure', () => {
    expect(resultat.reference).toBe(1);
    expect(resultat.format).toBe('jpeg');
    expect([resultat.pixels.largeur, resultat.pixels.hauteur]).toEqual([L, H]);
    const [sombre, , claire] = resultat.mesures.photos;
    expect(sombre!.ev).toBeCloseTo(-2, 0);
    expect(claire!.ev).toBeCloseTo(2, 0);
    expect(Math.abs(sombre!.decalage.x - 9.3)).toBeLessThan(0.3);
    expect(Math.abs(claire!.rotation - 1.1)).toBeLessThan(0.05);
    expect(resultat.structure.score).toBeGreaterThanOrEqual(resultat.structure.seuil);
  });

  it('gives the same bytes whatever the order of the photos', async () => {
    const photos = await crochets();
    const autre = await fusionner([photos[2]!, photos[0]!, photos[1]!]);
    expect(autre.reference).toBe(2);
    expect(Buffer.compare(autre.pixels.data, resultat.pixels.data)).toBe(0);
  });
});

describe('fusion: what moved shows once, where the reference shows it', () => {
  // A grey box carried across: on the wall in the metered frame (A), on the window in the dark one (B), in
  // the corner in the bright one (C): where each of those frames is the one the merge takes.
  const A: Boite = { x0: 0.32, y0: 0.55, x1: 0.42, y1: 0.7 };
  const B: Boite = { x0: 0.74, y0: 0.16, x1: 0.83, y1: 0.3 };
  const C: Boite = { x0: 0.05, y0: 0.72, x1: 0.13, y1: 0.86 };
  /** The same places moved sideways within the same surface: the wall, the other pane, the corner. */
  const aCote = (b: Boite, dx: number): Boite => ({ ...b, x0: b.x0 + dx, x1: b.x1 + dx });
  const [A2, B2, C2] = [aCote(A, 0.2), aCote(B, -0.14), aCote(C, 0.1)];
  const avecCarre = PRISES.map((p, i) => ({ ...p, carre: [B, A, C][i]! }));

  it('leaves no ghost of it in the corner, a faint one at most in the window the reference blows, and keeps it on the wall', async () => {
    const [photosAvec, photosSans] = await Promise.all([crochets(avecCarre), crochets()]);
    const [avec, sans] = await Promise.all([fusionner(photosAvec), fusionner(photosSans)]);
    // Each place against its neighbour on the same surface, with the box and without it, as a share of
    // the box's own contrast in the frame that carries it there: 1 would be the box in full, 0 no trace.
    const difference = (p: Pixels, b: Boite, b2: Boite) => moyenne(luminances(p, b, 0)) - moyenne(luminances(p, b2, 0));
    const trace = async (b: Boite, b2: Boite, k: number) => {
      const [cadreAvec, cadreSans] = await Promise.all([decode(photosAvec[k]!), decode(photosSans[k]!)]);
      // In the frame, the box stands where the hand moved it: its box in the frame's own pixels.
      const [u0, v0] = appliquerPixel(PRISES[k]!.mouvement, b.x0 * L, b.y0 * H, L, H);
      const [u1, v1] = appliquerPixel(PRISES[k]!.mouvement, b.x1 * L, b.y1 * H, L, H);
      const dansLeCadre = { x0: u0 / L + 0.01, y0: v0 / H + 0.01, x1: u1 / L - 0.01, y1: v1 / H - 0.01 };
      const contraste = Math.abs(moyenne(luminances(cadreAvec, dansLeCadre, 0)) - moyenne(luminances(cadreSans, dansLeCadre, 0)));
      return Math.abs(difference(avec.pixels, b, b2) - difference(sans.pixels, b, b2)) / contraste;
    };
    // In the corner the reference is dark but readable: what the box hid is the reference's, mapped.
    expect(await trace(C, C2, 2)).toBeLessThan(0.05);
    // In the window the reference is blown: nothing of it to map, the dark frame's own view fills the place
    // from around it, a soft patch (a fifth of the box's contrast here, where it covers a third of the pane).
    expect(await trace(B, B2, 0)).toBeLessThan(0.25);
    // Where it stands in the reference: there, as the reference shows it (darker than the wall).
    expect(difference(avec.pixels, A, A2) - difference(sans.pixels, A, A2)).toBeLessThan(-25);
    expect(avec.mesures.photos[0]!.fantomes).toBeGreaterThan(0);
    expect(avec.mesures.photos[2]!.fantomes).toBeGreaterThan(0);
  });
});

describe('fusion: refusals', () => {
  it('refuses photos of different sizes, naming both (vues_differentes)', async () => {
    const [a, b] = await crochets();
    const petite = await sharp(b!).resize(360, 240).jpeg().toBuffer();
    const erreur = await refus(fusionner([a!, petite]));
    expect(erreur.code).toBe('vues_differentes');
    expect(erreur.message).toBe('The photos are not the same size: 480×320 (photo 1) and 360×240 (photo 2).');
  });

  it('refuses photos of different views (vues_differentes), naming the photo that could not be aligned', async () => {
    const [sombre, metre] = await crochets();
    const ailleurs = await sharp(await readFile('test/photos/cuisine_coco030213.jpg'))
      .resize(L, H, { fit: 'cover' })
      .jpeg()
      .toBuffer();
    const erreur = await refus(fusionner([sombre!, metre!, ailleurs]));
    expect(erreur.code).toBe('vues_differentes');
    expect(erreur.message).toMatch(/^The photos are not of the same view: photo 3 could not be aligned with photo [12]\.$/);
  });

  it('refuses three frames of one exposure (expositions_identiques): nothing to merge', async () => {
    const memes = PRISES.map((p) => ({ ...p, exposition: 1 }));
    const erreur = await refus(fusionner(await crochets(memes)));
    expect(erreur.code).toBe('expositions_identiques');
    expect(erreur.message).toMatch(/same exposure/);
  });
});

describe('fusion: what it reads', () => {
  it('reads a 16-bit PNG at 16 bits, and merges a 16-bit bracket into a 16-bit PNG', async () => {
    const prises = PRISES.slice(0, 2);
    const seize = await crochets(prises, 'png', true);
    const [entree] = await lireEntrees(seize);
    expect(entree!.seize).toBe(true);
    const image = await decoderEntree(entree!);
    expect(image.max).toBe(65535);
    expect(image.data).toEqual(photographier(prises[0]!, 1, true));
    const resultat = await fusionnerBrut(seize);
    expect(resultat.format).toBe('png');
    // Kept at 16 bits, for the photographer who grades it further: a 16-bit PNG.
    const pixels = resultat.pixels;
    if (!estSeize(pixels)) throw new Error('the merge of 16-bit PNGs came out at 8 bits');
    const fichier = await encoderResultat(pixels, 'png', { outil: 'fusion', apercu: false, graine: null });
    expect((await sharp(fichier).metadata()).depth).toBe('ushort');
    // The same merge as the same bracket at 8 bits, to within the 8-bit frames' rounding.
    const huit = await fusionner(await crochets(prises, 'png', false));
    const reduit = await versPixels(depuisPixels(pixels).toColourspace('srgb'));
    let ecart = 0;
    for (let i = 0; i < reduit.data.length; i++) ecart += Math.abs(reduit.data[i]! - huit.pixels.data[i]!);
    expect(ecart / reduit.data.length).toBeLessThan(1.5);
    expect(ecartType(vitres(reduit))).toBeGreaterThan(10);
    // Used more finely than 8 bits: values between the 8-bit steps (×257) in the merge.
    expect(pixels.data.some((v) => v % 257 !== 0)).toBe(true);
  });

  it('reads a 16-bit PNG over MAX_PIXELS_SEIZE at 8 bits, so that the merge stays within the function’s memory', async () => {
    const [l, h] = [6600, 4900];
    expect(l * h).toBeGreaterThan(MAX_PIXELS_SEIZE);
    const grande = await sharp({ create: { width: l, height: h, channels: 3, background: { r: 40, g: 90, b: 160 } } })
      .toColourspace('rgb16')
      .png({ compressionLevel: 1 })
      .toBuffer();
    expect((await sharp(grande).metadata()).depth).toBe('ushort');
    const [entree] = await lireEntrees([grande]);
    expect(entree!.seize).toBe(false);
    const image = await decoderEntree(entree!);
    expect(image.max).toBe(255);
    expect([...image.data.subarray(0, 3)]).toEqual([40, 90, 160]);
  });

  it('applies the EXIF orientation: a frame stored on its side merges with the upright ones', async () => {
    const photos = await crochets();
    // Stored turned a quarter clockwise back, tagged 6 (rotate 90° clockwise to view), as phones do.
    const couchee = await sharp(photos[2]!).rotate(-90).withMetadata({ orientation: 6 }).jpeg({ quality: 95 }).toBuffer();
    expect((await sharp(couchee).metadata()).width).toBe(H);
    const resultat = await fusionner([photos[0]!, photos[1]!, couchee]);
    expect([resultat.pixels.largeur, resultat.pixels.hauteur]).toEqual([L, H]);
    expect(Math.abs(resultat.mesures.photos[2]!.rotation - 1.1)).toBeLessThan(0.1);
  });
});
