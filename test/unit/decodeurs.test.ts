/**
 * Customer bytes are decoded only as JPEG, PNG or WebP (issue 21, point 1): whatever a record says,
 * no decoder for SVG, PDF, GIF, TIFF, HEIF or raw formats is reachable from them, and the decoders
 * libvips may use at all are the four of moteurs/pixels.ts.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { photoPourConverse } from '../../lambdas/moteurs/bedrock/annonce';
import { CHARGEURS_PERMIS, decoder } from '../../lambdas/moteurs/commun/pixels';
import { imageTest } from '../support/client';

/** An SVG whose turbulence filter keeps librsvg busy for minutes at this size (the review's 300 s). */
const svgLent = (taille = 2000): string =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${taille}" height="${taille}"><filter id="f"><feTurbulence baseFrequency="0.9" numOctaves="10"/>` +
  `<feGaussianBlur stdDeviation="40"/></filter><rect width="100%" height="100%" filter="url(#f)"/></svg>`;

const creer = () => sharp({ create: { width: 64, height: 48, channels: 3, background: '#808080' } });

/** Other formats, made by sharp's encoders (writing is not blocked, only reading). */
const autresFormats = async (): Promise<Record<string, Buffer>> => ({
  svg: Buffer.from(svgLent()),
  gif: await creer().gif().toBuffer(),
  tiff: await creer().tiff().toBuffer(),
  avif: await creer().avif().toBuffer(),
  heif: await creer().heif({ compression: 'av1' }).toBuffer(),
  // A minimal PDF and a PPM ("raw" bitmap) header: formats libvips can open when its loaders are there.
  pdf: Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n'),
  ppm: Buffer.concat([Buffer.from('P6\n64 48\n255\n'), Buffer.alloc(64 * 48 * 3, 128)]),
});

const chronometre = async <T>(fn: () => Promise<T>): Promise<{ ms: number; resultat: T | Error }> => {
  const debut = performance.now();
  const resultat = await fn().catch((e: unknown) => e as Error);
  return { ms: performance.now() - debut, resultat };
};

describe('decoding customer bytes', () => {
  it('decodes JPEG, PNG and WebP, and says which by their bytes', async () => {
    for (const format of ['jpeg', 'png', 'webp'] as const) {
      const { format: lu, pixels } = await decoder(await imageTest(1, format, 80, 60));
      expect(lu).toBe(format);
      expect([pixels.largeur, pixels.hauteur]).toEqual([80, 60]);
    }
  });

  it('refuses SVG, GIF, TIFF, AVIF, HEIF, PDF and PPM at once as image_illisible, in the image engines and the listing engine', async () => {
    for (const [nom, octets] of Object.entries(await autresFormats())) {
      const { ms, resultat } = await chronometre(() => decoder(octets));
      expect(resultat, nom).toMatchObject({ name: 'image_illisible' });
      expect(ms, nom).toBeLessThan(1000);
      await expect(photoPourConverse(octets), nom).rejects.toMatchObject({ name: 'image_illisible' });
    }
  });

  it('an SVG behind a JPEG, PNG or WebP signature goes to that format’s decoder, which refuses it', async () => {
    const svg = Buffer.from(svgLent());
    const polyglottes = {
      jpeg: Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), svg]),
      png: Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), svg]),
      webp: Buffer.concat([Buffer.from('RIFF'), Buffer.from('    '), Buffer.from('WEBP'), svg]),
    };
    for (const [nom, octets] of Object.entries(polyglottes)) {
      const { ms, resultat } = await chronometre(() => decoder(octets));
      expect(resultat, nom).toMatchObject({ name: 'image_illisible' });
      expect(ms, nom).toBeLessThan(1000);
    }
  });

  it('libvips itself can no longer open GIF, TIFF, AVIF, HEIF, PDF or PPM in this process, whoever calls it', async () => {
    const formats = await autresFormats();
    for (const nom of ['gif', 'tiff', 'avif', 'heif', 'pdf', 'ppm']) {
      await expect(sharp(formats[nom]).metadata(), nom).rejects.toThrow(/unsupported image format|blocked|corrupt/i);
    }
    // Only the engines' own overlays are SVG, and only these loaders are left.
    expect(CHARGEURS_PERMIS).toEqual(['VipsForeignLoadJpegBuffer', 'VipsForeignLoadPngBuffer', 'VipsForeignLoadWebpBuffer', 'VipsForeignLoadSvgBuffer']);
  });
});
