/** Drawn test images made with sharp (real photographs, for what drawings cannot pin down: test/photos). */
import sharp from 'sharp';

/**
 * A small photo-like JPEG: a pale grey winter sky over a dark roofline, then a ground with a dark chest
 * standing on it (so `vider` has furniture to find with the colour rules, and `saison` a grey sky to
 * turn to summer), different per `graine`.
 */
export const imageTest = (graine = 0, format: 'jpeg' | 'png' | 'webp' = 'jpeg', largeur = 96, hauteur = 64): Promise<Buffer> =>
  dessiner(graine, format, largeur, hauteur, true);

/**
 * The same scene indoors: a warm wall instead of the sky, the photo `staging` is for (it refuses an
 * exterior). Still drawn: an engine that reads it needs the colour rules (detecteurCouleurs).
 */
export const pieceTest = (graine = 0, format: 'jpeg' | 'png' | 'webp' = 'jpeg', largeur = 96, hauteur = 64): Promise<Buffer> =>
  dessiner(graine, format, largeur, hauteur, false);

const dessiner = async (graine: number, format: 'jpeg' | 'png' | 'webp', largeur: number, hauteur: number, dehors: boolean): Promise<Buffer> => {
  const pixels = Buffer.alloc(largeur * hauteur * 3);
  for (let y = 0; y < hauteur; y++) {
    for (let x = 0; x < largeur; x++) {
      const i = (y * largeur + x) * 3;
      const ciel = y < hauteur / 2;
      const [fx, fy] = [x / largeur, y / hauteur];
      if (fy >= 0.5 && fy < 0.56) {
        pixels.set([38 + ((x + graine) % 5), 32 + (x % 4), 30], i);
        continue;
      }
      if (fx >= 0.4 && fx < 0.62 && fy >= 0.6 && fy < 0.86) {
        pixels.set([52 + ((x + y + graine) % 6), 40 + ((x * 3 + graine) % 5), 32 + (y % 4)], i);
        continue;
      }
      // The ground darkens towards the camera with a fine grain, as a floor or a lawn does.
      const grain = (x * 7 + y * 13 + graine * 5) % 9;
      const bas = (y / hauteur) * 30;
      if (ciel && !dehors) {
        pixels.set([214 + ((x + graine * 7) % 6), 204 + (y % 5), 182 + ((graine * 13) % 6)], i);
        continue;
      }
      pixels[i] = ciel ? 170 + ((x + graine * 7) % 40) : 110 + grain + Math.round(bas);
      pixels[i + 1] = ciel ? 180 + (y % 30) : 96 + grain + Math.round(bas * 0.8);
      pixels[i + 2] = ciel ? 200 + ((graine * 13) % 20) : 70 + grain + Math.round(bas * 0.5);
    }
  }
  return sharp(pixels, { raw: { width: largeur, height: hauteur, channels: 3 } })
    [format]()
    .toBuffer();
};
