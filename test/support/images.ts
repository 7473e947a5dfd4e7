/** Test images made with sharp (no photograph is copied into this repository). */
import sharp from 'sharp';

/** A small photo-like JPEG: a sky gradient over a darker ground, different per `graine`. */
export const imageTest = async (graine = 0, format: 'jpeg' | 'png' | 'webp' = 'jpeg', largeur = 96, hauteur = 64): Promise<Buffer> => {
  const pixels = Buffer.alloc(largeur * hauteur * 3);
  for (let y = 0; y < hauteur; y++) {
    for (let x = 0; x < largeur; x++) {
      const i = (y * largeur + x) * 3;
      const ciel = y < hauteur / 2;
      pixels[i] = ciel ? 170 + ((x + graine * 7) % 40) : 90 + ((x * y + graine) % 50);
      pixels[i + 1] = ciel ? 180 + (y % 30) : 80 + ((x + graine) % 40);
      pixels[i + 2] = ciel ? 200 + ((graine * 13) % 40) : 60 + (y % 30);
    }
  }
  return sharp(pixels, { raw: { width: largeur, height: hauteur, channels: 3 } })[format]().toBuffer();
};
