/**
 * site/src/studio/exif.ts: the capture and exposure a camera writes, read from JPEG, PNG and WebP as the studio
 * reads them (a Blob, never read whole), including a WebP whose EXIF chunk comes after 200 KiB of image data, as
 * the format puts it. What the grouping then makes of them is site-crochets.test.ts's.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { exifWebp, lireExposition } from '../../site/src/studio/exif';

const EXIF = {
  IFD0: { Make: 'Retouche', Model: 'Test bracket' },
  IFD2: {
    DateTimeOriginal: '2025:05:12 10:00:07',
    SubSecTimeOriginal: '30',
    ExposureBiasValue: '-2/1',
    ExposureTime: '1/250',
    FNumber: '8/1',
    ISOSpeedRatings: '100',
  },
};
const ATTENDU = { prise: Date.UTC(2025, 4, 12, 10, 0, 7) + 300, correction: -2, duree: 1 / 250, ouverture: 8, iso: 100 };

/** A photo of `largeur` px with the EXIF above, in `format`; noise, so that a large WebP's image data is large. */
const photo = async (format: 'jpeg' | 'png' | 'webp', largeur = 64): Promise<Blob> => {
  const hauteur = Math.round((largeur * 2) / 3);
  const bruit = Buffer.from(Array.from({ length: largeur * hauteur * 3 }, (_, i) => (i * 2654435761) >>> 24));
  const octets = await sharp(bruit, { raw: { width: largeur, height: hauteur, channels: 3 } })
    .withExif(EXIF)
    .toFormat(format, { quality: 90 })
    .toBuffer();
  return new Blob([octets]);
};

describe('the studio reads a bracket photo’s EXIF', () => {
  it.each(['jpeg', 'png', 'webp'] as const)('from a %s', async (format) => {
    expect(await lireExposition(await photo(format))).toEqual(ATTENDU);
  });

  it('from a WebP whose EXIF chunk lies past its first 200 KiB, reading chunk headers, not the pixels', async () => {
    const grande = await photo('webp', 1200);
    expect(grande.size).toBeGreaterThan(200 * 1024);
    const tiff = await exifWebp(grande);
    expect(String.fromCharCode(...tiff!.subarray(0, 2))).toMatch(/II|MM/);
    expect(await lireExposition(grande)).toEqual(ATTENDU);
  });

  it('says nothing of a photo without EXIF, nor of what is not a photo', async () => {
    const nue = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#888' } })
      .webp()
      .toBuffer();
    expect(await lireExposition(new Blob([nue]))).toEqual({});
    expect(await lireExposition(new Blob(['not a photo at all']))).toEqual({});
  });
});
