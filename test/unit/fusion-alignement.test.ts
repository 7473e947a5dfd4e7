/**
 * `fusion`'s geometry (lambdas/moteurs/commun/fusion/): the alignment of a bracket's frames, estimated on
 * small copies of a real photo with a known motion, and the full-size warp by libvips, whose placement of
 * its canvas (an undocumented rule of `affine`) is pinned here: a libvips that changed it would shift every
 * merged photo by a pixel, and must fail here first.
 */
import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { aligner, SCORE_MIN } from '../../lambdas/moteurs/commun/fusion/alignement';
import { deformer } from '../../lambdas/moteurs/commun/fusion/deformation';
import { echantillon, plan, type Plan } from '../../lambdas/moteurs/commun/fusion/plan';
import { appliquerPixel, ecartMax, inverser, rotationDegres, similitude } from '../../lambdas/moteurs/commun/fusion/transformation';
import { hachage } from '../support/scenes-lumiere';

const lineaire = (v: number) => (v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
const srgb = (v: number) => (v <= 0.0031308 ? 12.92 * v : 1.055 * v ** (1 / 2.4) - 0.055);

/** A photo of test/photos as a luminance plane 0–1, `largeur` wide. */
const photo = async (nom: string, largeur: number): Promise<Plan> => {
  const { data, info } = await sharp(await readFile(`test/photos/${nom}`))
    .resize({ width: largeur })
    .greyscale()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return plan(
    info.width,
    info.height,
    Float32Array.from(data, (v) => v / 255),
  );
};

/** The same view through a hand's motion `t` (reference pixel → frame pixel), exposed `k` times more, clipped, with grain. */
const cadrer = (ref: Plan, t: ReturnType<typeof similitude>, k: number, graine: number): Plan => {
  const { largeur: l, hauteur: h } = ref;
  const inv = inverser(t);
  const sortie = plan(l, h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < l; x++) {
      const [u, v] = appliquerPixel(inv, x, y, l, h);
      const s = echantillon(ref, Math.min(l - 1, Math.max(0, u)), Math.min(h - 1, Math.max(0, v)));
      const grain = (hachage(x, y, graine) - 0.5) * 0.02;
      sortie.data[y * l + x] = Math.max(0, Math.min(1, srgb(Math.min(1, lineaire(s) * k)) + grain));
    }
  }
  return sortie;
};

describe('fusion: alignment of handheld frames (alignement.ts)', () => {
  // Shifts up to 4 % of the width and turns up to 2°, what a hand does between the frames of a bracket.
  const mouvements = [
    { angle: 1.3, tx: 12.37, ty: -7.81, k: 4 },
    { angle: -1.9, tx: -20.6, ty: 9.25, k: 0.25 },
    { angle: 0.4, tx: 3.3, ty: 1.1, k: 1 },
  ] as const;

  it.each(['sejour_polyhaven-wooden-lounge.jpg', 'cuisine_coco030213.jpg', 'facade-ciel-bleu_polyhaven-palermo.jpg'])(
    '%s: recovers a known sub-pixel shift and rotation within 0.3 px at every corner, through a 2 EV gap',
    async (nom) => {
      const ref = await photo(nom, 512);
      for (const [i, m] of mouvements.entries()) {
        const vraie = similitude((m.angle * Math.PI) / 180, 1, m.tx, m.ty);
        const { transformation, score } = aligner(ref, cadrer(ref, vraie, m.k, i));
        expect(ecartMax(transformation, vraie, ref.largeur, ref.hauteur)).toBeLessThan(0.3);
        expect(Math.abs(rotationDegres(transformation) - m.angle)).toBeLessThan(0.05);
        expect(score).toBeGreaterThan(SCORE_MIN);
      }
    },
  );

  it('scores two unrelated photos under the threshold', async () => {
    const [a, b] = await Promise.all([photo('cuisine_coco030213.jpg', 480), photo('chambre_coco403353.jpg', 480)]);
    const b2 = plan(
      a.largeur,
      a.hauteur,
      Float32Array.from({ length: a.data.length }, (_, p) => b.data[Math.min(b.data.length - 1, p)]!),
    );
    expect(aligner(a, b2).score).toBeLessThan(SCORE_MIN);
    // The measure itself: the same photo, moved, scores high.
    expect(aligner(a, cadrer(a, similitude(0.01, 1, 5.5, -3.2), 1, 9)).score).toBeGreaterThan(0.9);
  });
});

describe("fusion: the full-size warp (deformation.ts, libvips's affine)", () => {
  it("puts each pixel where the transformation says, to a twentieth of a pixel, whatever libvips's canvas", async () => {
    let pire = 0;
    for (let k = 0; k < 40; k++) {
      const [l, h] = [60 + ((k * 37) % 240), 50 + ((k * 53) % 160)];
      const t = similitude(
        ((hachage(k, 1, 2) - 0.5) * 6 * Math.PI) / 180,
        1 + (hachage(k, 2, 2) - 0.5) * 0.04,
        (hachage(k, 3, 2) - 0.5) * 0.1 * l,
        (hachage(k, 4, 2) - 0.5) * 0.1 * h,
      );
      // A soft dot in the photo where the reference's pixel (xr, yr) lands.
      const [xr, yr] = [Math.round(l * (0.3 + 0.4 * hachage(k, 5, 2))), Math.round(h * (0.3 + 0.4 * hachage(k, 6, 2)))];
      const [xp, yp] = appliquerPixel(t, xr, yr, l, h);
      const data = new Uint8Array(l * h * 3);
      for (let y = Math.floor(yp) - 6; y <= Math.floor(yp) + 6; y++) {
        for (let x = Math.floor(xp) - 6; x <= Math.floor(xp) + 6; x++)
          data.fill(Math.round(250 * Math.exp(-((x - xp) ** 2 + (y - yp) ** 2) / 4.5)), (y * l + x) * 3, (y * l + x) * 3 + 3);
      }
      const cadre = await deformer({ data, largeur: l, hauteur: h, max: 255 }, t);
      let [sx, sy, sw] = [0, 0, 0];
      for (let y = 0; y < h; y++) {
        for (let x = cadre.debuts[y]!; x <= cadre.fins[y]!; x++) {
          const v = cadre.data[((y + cadre.oy) * cadre.largeur + x + cadre.ox) * 3]!;
          ((sx += x * v), (sy += y * v), (sw += v));
        }
      }
      pire = Math.max(pire, Math.hypot(sx / sw - xr, sy / sw - yr));
    }
    expect(pire).toBeLessThan(0.05);
  });
});
