/**
 * The pixel limit against decompression bombs: dimensions read from the header only, the 413 of
 * POST /travaux, and the decoders' own cap (a job error, never gigabytes of memory).
 */
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { lireDimensions, MAX_PIXELS_IMAGE, verifierDimensions } from '../../lambdas/core/modele/dimensions';
import { ErreurApi, ErreurTravail } from '../../lambdas/core/modele/erreurs';
import { photoPourConverse } from '../../lambdas/moteurs/bedrock/annonce';
import { decoder } from '../../lambdas/moteurs/commun/pixels';
import { bombePng } from '../support/bombe';
import { erreurDe } from '../support/refus';

const image = (largeur: number, hauteur: number) => sharp({ create: { width: largeur, height: hauteur, channels: 3, background: '#6a8caf' } });

/** 16000×16000 pixels of one colour: 256 megapixels (768 MB as RGB) in under 1 MB of PNG. */
let bombe: Buffer;
beforeAll(async () => {
  bombe = await bombePng();
});

describe('lireDimensions', () => {
  it('reads width and height of JPEG, PNG and WebP from their header', async () => {
    expect(lireDimensions(await image(123, 45).jpeg().toBuffer())).toEqual({ largeur: 123, hauteur: 45 });
    expect(lireDimensions(await image(123, 45).jpeg({ progressive: true }).toBuffer())).toEqual({ largeur: 123, hauteur: 45 });
    expect(lireDimensions(await image(67, 890).png().toBuffer())).toEqual({ largeur: 67, hauteur: 890 });
    // The three WebP flavours: lossy (VP8), lossless (VP8L), extended (VP8X, here for the EXIF).
    expect(lireDimensions(await image(301, 17).webp().toBuffer())).toEqual({ largeur: 301, hauteur: 17 });
    expect(lireDimensions(await image(301, 17).webp({ lossless: true }).toBuffer())).toEqual({ largeur: 301, hauteur: 17 });
    expect(
      lireDimensions(
        await image(301, 17)
          .withExif({ IFD0: { Software: 'test' } })
          .webp()
          .toBuffer(),
      ),
    ).toEqual({ largeur: 301, hauteur: 17 });
  });

  it('reads a JPEG whose frame header comes after an EXIF segment, as a camera writes it', async () => {
    const jpeg = await image(640, 480)
      .withExif({ IFD0: { Make: 'Retouche', Model: 'Test', Software: 'x'.repeat(2000) } })
      .jpeg()
      .toBuffer();
    expect(lireDimensions(jpeg)).toEqual({ largeur: 640, hauteur: 480 });
  });

  it('returns null for bytes that are not an image and for a truncated header', async () => {
    expect(lireDimensions(Buffer.from('not an image at all'))).toBeNull();
    expect(lireDimensions(new Uint8Array(0))).toBeNull();
    const png = await image(50, 60).png().toBuffer();
    const jpeg = await image(50, 60).jpeg().toBuffer();
    const webp = await image(50, 60).webp().toBuffer();
    expect(lireDimensions(png.subarray(0, 20))).toBeNull();
    expect(lireDimensions(jpeg.subarray(0, 8))).toBeNull();
    expect(lireDimensions(webp.subarray(0, 16))).toBeNull();
  });

  it('never completes a truncated header with the bytes that follow it in memory', async () => {
    const png = await image(50, 60).png().toBuffer();
    // A view on the first 20 bytes of a larger buffer, like Node's pooled Buffers: the width
    // would be read from the bytes beyond the view if the reader were not given its own copy.
    const suite = Buffer.concat([png.subarray(0, 20), Buffer.alloc(64, 0x7f)]);
    expect(lireDimensions(suite.subarray(0, 20))).toBeNull();
  });
});

describe('verifierDimensions', () => {
  it('lets through images within the limit, and unreadable bytes (reported elsewhere)', async () => {
    expect(() => verifierDimensions(Buffer.from('garbage'), 0)).not.toThrow();
    expect(() => verifierDimensions(Buffer.alloc(0), 0)).not.toThrow();
    expect(MAX_PIXELS_IMAGE).toBe(50_000_000);
  });

  it('refuses a small PNG that announces 16000×16000 pixels with a 413 naming its dimensions', async () => {
    expect(bombe.length).toBeLessThan(1024 * 1024);
    const erreur = await erreurDe(() => verifierDimensions(bombe, 3));
    expect(erreur).toBeInstanceOf(ErreurApi);
    const api = erreur as ErreurApi;
    expect(api.code).toBe('image_too_large');
    expect(api.statut).toBe(413);
    expect(api.message).toBe('Image 3 is 16000×16000 pixels; at most 50 megapixels are accepted.');
    expect(api.corps().error).toMatchObject({ code: 'image_too_large', index: 3, largeur: 16000, hauteur: 16000, max_pixels: 50_000_000 });
  });
});

describe('decoders refuse more than 50 megapixels before allocating', () => {
  it('decoder (both engines) ends the job with image_trop_grande, not image_illisible', async () => {
    const erreur = await erreurDe(() => decoder(bombe));
    expect(erreur).toBeInstanceOf(ErreurTravail);
    expect((erreur as ErreurTravail).code).toBe('image_trop_grande');
    expect((erreur as ErreurTravail).message).toContain('16000×16000');
  });

  it('the listing photo goes through the same cap (sharp limitInputPixels)', async () => {
    const erreur = await erreurDe(() => photoPourConverse(bombe));
    expect(erreur).toBeInstanceOf(ErreurTravail);
    expect((erreur as ErreurTravail).code).toBe('image_trop_grande');
  });

  it('unreadable bytes are still image_illisible', async () => {
    const erreur = await erreurDe(() => decoder(Buffer.from('not an image')));
    expect((erreur as ErreurTravail).code).toBe('image_illisible');
  });
});
