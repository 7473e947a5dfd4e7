/**
 * `fusion` on real photographs: brackets made from photos of test/photos (test/support/crochets.ts: ×¼, ×1,
 * ×4 in linear light, clipped, with a camera's noise, each frame moved by a hand and a person-sized figure
 * walking through), merged by `fusionner`, and judged against the photo they were made from
 * (test/support/mesures-fusion.ts).
 *
 * What is fair to compare, and how:
 * - Geometry: the reference frame is the photo unmoved, so the result has the photo's geometry except for
 *   the verticals the merge straightens; the original is straightened with the very same lean
 *   (`mesures.verticales`), and balanced by the same light correction, before any comparison.
 * - Clipping: the result must not blow or block more than the original, within half a percentage point.
 *   It may do less (its purpose: the corners the original blocks come back from the ×4 frame), so an
 *   equality both ways would refuse the result for doing its job.
 * - What the original blows in every channel (a lamp, a window) no frame of these brackets holds: the ×¼
 *   frame shows only a dull copy of that white. It must stay white, smooth and colourless (fusion/apport.ts):
 *   measured 251.6–254.0 of 255, spread 0.6–3.4, colour 1.4–3.0 on the four photos that have such parts;
 *   before the merge asked whether the darker frame showed more than white, 163–230, 3.3–8.2 and 20–34,
 *   grey-blue patches on a bedroom's lampshade.
 * - Structure: SSIM's structure term (tone-blind: the merge changes tones on purpose), on luminance, in
 *   8 px windows, over the whole frame and over its strongest edges; a double edge lowers it.
 * - Double edges: an edge doubled or blurred by a frame off by a pixel or two looks more like the original
 *   moved by a pixel than a sharp edge does, so where the other frames make the result (the original's
 *   darks and blown parts: elsewhere the result is the reference frame's own), the drop of the structure
 *   term when the original is moved by one pixel must stay at least 60 % of the original's own drop
 *   (measured 73–93 %, bilinear resampling softening the other frames a little; with the other frames
 *   put 2 px off, from −35 % to 42 % on the nine photos);
 *   and a frame left where the hand put it would leave a copy of the scene moved as that frame moved, so
 *   the result must not resemble the original moved so more than the original itself does.
 * - Ghosts: where the figure stood in the other frames, the result must not move towards the figure more
 *   than the result of the same brackets without the figure does: 1 would be the figure in full, a third a
 *   ghost from one frame of three. Measured 0.00–0.10; with the ghost detection switched off, up to 0.39
 *   (0.26 and 0.39 on the facades, whose figures stand on pavement the other frames give; in the rooms
 *   the reference makes most of the places and the structure check refuses the rest).
 * About 35 s for nine photos (each merged twice, with the figure and without).
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { fusionner } from '../../lambdas/moteurs/commun/fusion/index';
import { fabriquerCrochets, PHOTOS_FUSION } from '../support/crochets';
import { juger } from '../support/mesures-fusion';

describe('fusion on brackets made from real photographs', () => {
  it.each(PHOTOS_FUSION)('%s: no more clipping, the same structure, no double edge, no ghost, its white kept white', async (nom) => {
    const photo = await readFile(`test/photos/${nom}`);
    const [crochets, sansFigure] = await Promise.all([fabriquerCrochets(photo), fabriquerCrochets(photo, { personne: false })]);
    const { pixels, mesures } = await fusionner(crochets.photos);
    const j = await juger(crochets, pixels, mesures.verticales, (await fusionner(sansFigure.photos)).pixels);
    expect(j.resultat.hautes).toBeLessThanOrEqual(j.original.hautes + 0.5);
    expect(j.resultat.basses).toBeLessThanOrEqual(j.original.basses + 0.5);
    expect(j.tout.structure).toBeGreaterThanOrEqual(0.9);
    expect(j.tout.aretes).toBeGreaterThanOrEqual(0.9);
    // Where the other frames make the result (the original's darks and blown parts): its edges nearly as
    // sharp as the original's (measured 73–93 % of the drop; with the other frames put 2 px off, 42 % at most).
    expect(j.ailleurs.aretes - j.ailleurs.decalees).toBeGreaterThanOrEqual(0.6 * (1 - j.ailleurs.decaleesOriginal));
    expect(j.tout.secondeCopie).toBeLessThanOrEqual(j.tout.secondeCopieOriginal + 0.06);
    expect(j.fantome).toBeLessThan(0.15);
    if (j.blancs.part > 0) {
      expect(j.blancs.luminance).toBeGreaterThanOrEqual(245);
      expect(j.blancs.ecart).toBeLessThanOrEqual(5);
      expect(j.blancs.couleur).toBeLessThanOrEqual(6);
    }
  });
});
