/**
 * The local stand-in for the blur's detector (personnes-local.ts: BlazeFace, a trained face detector,
 * and the colour rule for plates) on drawn street scenes (test/support/scenes-personnes.ts) and on the
 * project's drawn rooms, facades and gardens. A trained model over whole images, so in the `photos`
 * project with the other engine campaigns (vitest.config.ts); the blur itself and the production
 * detector: floutage.test.ts.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { decoder } from '../../lambdas/moteurs/commun/pixels';
import { detecteurCouleurs, detecteurPersonnesLocal } from '../../lambdas/moteurs/local/personnes-local';
import { iou } from '../support/boites';
import { imageTest } from '../support/images';
import { scenePersonnes } from '../support/scenes-personnes';

describe('the local stand-in', () => {
  it('finds the drawn face and plate of every scene from the pixels alone', async () => {
    for (const graine of [1, 2, 3, 4, 5, 6]) {
      const scene = scenePersonnes({ largeur: 1280, hauteur: 853, graine });
      const trouves = await detecteurCouleurs.detecter(scene.pixels, new Set(['visage', 'plaque']));
      const visages = trouves.filter((r) => r.genre === 'visage');
      const plaques = trouves.filter((r) => r.genre === 'plaque');
      expect([visages.length, plaques.length], `scene ${graine}`).toEqual([1, 1]);
      expect(iou(visages[0]!.boite, scene.visages[0]!), `scene ${graine}`).toBeGreaterThan(0.6);
      expect(iou(plaques[0]!.boite, scene.plaques[0]!), `scene ${graine}`).toBeGreaterThan(0.6);
    }
  });

  it('the engine finds the drawn face by BlazeFace and the drawn plate by the colour rule, each once', async () => {
    // The integration tests' street (c2pa.test.ts) counts one face and one plate through the whole engine.
    for (const graine of [2, 7]) {
      const scene = scenePersonnes({ largeur: 1280, hauteur: 853, graine });
      const trouves = await detecteurPersonnesLocal.detecter(scene.pixels, new Set(['visage', 'plaque']));
      expect(trouves.map((r) => r.genre).sort(), `scene ${graine}`).toEqual(['plaque', 'visage']);
    }
  });

  it("finds nothing in the project's rooms, facades and gardens", async () => {
    for (const n of [0, 1, 2, 3]) {
      const { pixels } = await decoder(await imageTest(n, 'png', 640, 427));
      expect(await detecteurPersonnesLocal.detecter(pixels, new Set(['visage', 'plaque'])), `imageTest ${n}`).toEqual([]);
    }
    const vide = {
      data: await sharp({ create: { width: 320, height: 240, channels: 3, background: '#d8c8b0' } })
        .raw()
        .toBuffer(),
      largeur: 320,
      hauteur: 240,
    };
    expect(await detecteurPersonnesLocal.detecter(vide, new Set(['visage', 'plaque']))).toEqual([]);
  });
});
