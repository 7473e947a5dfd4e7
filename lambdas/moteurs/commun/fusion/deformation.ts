/**
 * A photo of the bracket brought into the reference's geometry, at full size and on the small copies.
 *
 * Full size by libvips (sharp's `affine`, bilinear): 24 MP in about half a second of C on a thread of the
 * pool, while the main thread merges the previous photo; the same in JS took as long and blocked the
 * merge (measured on 2 cores). Bilinear rather than bicubic: bicubic doubled the time (1 s a photo) for a
 * softening of under a tenth of the finest detail of the frames other than the reference, which listing
 * photos, shown at a fraction of 24 MP, never reveal.
 *
 * sharp's `affine` has no output-area option: its canvas is the bounding box of the transformed photo,
 * placed by libvips's rule (`canvasAffine`), which a test pins (test/unit/fusion-alignement.test.ts),
 * so a libvips that changed it would fail there, not shift a photo by a pixel. The canvas is kept as it is
 * and read through an offset (a `Cadre`): no copy of 72 MB to crop it.
 *
 * Same on the local and production engines (no model).
 */
import type { Sharp } from 'sharp';
import { depuisPixels } from '../pixels';
import type { Plan } from './plan';
import { inverser, type Transformation } from './transformation';

/** Decoded pixels: 3 channels, 8 or 16 bits, row-major. */
export interface Image {
  data: Uint8Array | Uint16Array;
  largeur: number;
  hauteur: number;
  /** 255 or 65535. */
  max: number;
}

/** An image in the reference's geometry: the reference's pixel (x, y) is the canvas's (x + ox, y + oy). */
export interface Cadre extends Image {
  ox: number;
  oy: number;
  /** Per reference row, the first and last column whose source lies inside the photo (at least 1 px in); empty when first > last. */
  debuts: Int32Array;
  fins: Int32Array;
}

export const versTypee = (octets: Buffer, max: number): Uint8Array | Uint16Array =>
  max > 255 ? new Uint16Array(octets.buffer, octets.byteOffset, octets.length / 2) : new Uint8Array(octets.buffer, octets.byteOffset, octets.length);

export const versImage = async (s: Sharp, max: number): Promise<Image> => {
  const { data, info } = await (max > 255 ? s.raw({ depth: 'ushort' }) : s.raw()).toBuffer({ resolveWithObject: true });
  return { data: versTypee(data, max), largeur: info.width, hauteur: info.height, max };
};

/**
 * libvips's placement of `affine`'s output (libvips 8.18, pinned by a test): the canvas spans the
 * transformed corners (0, 0), (l, 0), (0, h), (l, h) of the matrix alone (odx, ody move the content
 * within it), its origin at the rounded minimum, its size the rounded extent.
 */
const canvasAffine = (m: readonly [number, number, number, number], l: number, h: number) => {
  const coins = [
    [0, 0],
    [l, 0],
    [0, h],
    [l, h],
  ].map(([x, y]) => [m[0] * x! + m[1] * y!, m[2] * x! + m[3] * y!] as const);
  const [xs, ys] = [coins.map((c) => c[0]), coins.map((c) => c[1])];
  const [gauche, haut] = [Math.min(...xs), Math.min(...ys)];
  return { ox: -Math.round(gauche), oy: -Math.round(haut), largeur: Math.round(Math.max(...xs) - gauche), hauteur: Math.round(Math.max(...ys) - haut) };
};

/** Per reference row, the columns whose source (under `t`, full-size pixels) lies inside the photo with a margin of 1 px. */
const colonnesValides = (t: Transformation, l: number, h: number): { debuts: Int32Array; fins: Int32Array } => {
  const [debuts, fins] = [new Int32Array(h), new Int32Array(h)];
  const [cx, cy] = [(l - 1) / 2, (h - 1) / 2];
  for (let y = 0; y < h; y++) {
    let [bas, haut] = [0, l - 1];
    const v = y - cy;
    // u(x) = a·(x − cx) + b·v + tx + cx must lie in [1, l − 2], and likewise v(x) in [1, h − 2].
    for (const [pente, origine, max] of [
      [t.a, t.b * v + t.tx + cx - t.a * cx, l - 2],
      [t.c, t.d * v + t.ty + cy - t.c * cx, h - 2],
    ] as const) {
      if (Math.abs(pente) < 1e-12) {
        if (origine < 1 || origine > max) [bas, haut] = [1, 0];
        continue;
      }
      const [x1, x2] = [(1 - origine) / pente, (max - origine) / pente];
      bas = Math.max(bas, Math.ceil(Math.min(x1, x2)));
      haut = Math.min(haut, Math.floor(Math.max(x1, x2)));
    }
    [debuts[y], fins[y]] = [bas, haut];
  }
  return { debuts, fins };
};

/**
 * The photo resampled into the reference's geometry: `t` takes the reference's pixel to the photo's
 * (centred coordinates, full-size pixels). Outside the photo the canvas is black; `debuts`/`fins` say where.
 */
export const deformer = async (im: Image, t: Transformation): Promise<Cadre> => {
  const { largeur: l, hauteur: h } = im;
  // sharp maps the photo to the output: the inverse of t, in pixel (not centred) coordinates.
  const inv = inverser(t);
  const [cx, cy] = [(l - 1) / 2, (h - 1) / 2];
  const m = [inv.a, inv.b, inv.c, inv.d] as const;
  const odx = cx - (inv.a * cx + inv.b * cy) + inv.tx;
  const ody = cy - (inv.c * cx + inv.d * cy) + inv.ty;
  const attendu = canvasAffine(m, l, h);
  const sortie = await versImage(
    depuisPixels(im).affine(
      [
        [m[0], m[1]],
        [m[2], m[3]],
      ],
      { odx, ody, interpolator: 'bilinear' },
    ),
    im.max,
  );
  if (sortie.largeur !== attendu.largeur || sortie.hauteur !== attendu.hauteur) {
    throw new Error(`sharp affine: canvas ${sortie.largeur}×${sortie.hauteur}, expected ${attendu.largeur}×${attendu.hauteur} (libvips changed its rule)`);
  }
  // The canvas is the bounding box of the matrix alone (odx, ody move the content within it): a thin strip
  // of the reference's frame (l·(1 − cos θ), a few pixels at 2°) can fall outside it, and counts as not covered.
  const { debuts, fins } = colonnesValides(t, l, h);
  for (let y = 0; y < h; y++) {
    const dansLeCanevas = y + attendu.oy >= 0 && y + attendu.oy < sortie.hauteur;
    debuts[y] = dansLeCanevas ? Math.max(debuts[y]!, -attendu.ox) : 1;
    fins[y] = dansLeCanevas ? Math.min(fins[y]!, sortie.largeur - 1 - attendu.ox) : 0;
  }
  return { ...sortie, ox: attendu.ox, oy: attendu.oy, debuts, fins };
};

/**
 * A small copy (planes of one size) resampled into the reference's geometry, bilinear, with the mask of
 * the pixels whose source lies inside the photo. `t` in pixels of these copies.
 */
export const deformerPlans = (plans: readonly Plan[], t: Transformation): { plans: Plan[]; dedans: Uint8Array } => {
  const { largeur: l, hauteur: h } = plans[0]!;
  const [cx, cy] = [(l - 1) / 2, (h - 1) / 2];
  const sorties = plans.map(() => new Float32Array(l * h));
  const dedans = new Uint8Array(l * h);
  for (let y = 0; y < h; y++) {
    const v = y - cy;
    for (let x = 0; x < l; x++) {
      const u = x - cx;
      const X = t.a * u + t.b * v + t.tx + cx;
      const Y = t.c * u + t.d * v + t.ty + cy;
      const x0 = Math.floor(X);
      const y0 = Math.floor(Y);
      if (x0 < 0 || y0 < 0 || x0 >= l - 1 || y0 >= h - 1) continue;
      const fx = X - x0;
      const fy = Y - y0;
      const j = y0 * l + x0;
      const p = y * l + x;
      dedans[p] = 1;
      for (let k = 0; k < plans.length; k++) {
        const d = plans[k]!.data;
        const haut = d[j]! + (d[j + 1]! - d[j]!) * fx;
        const bas = d[j + l]! + (d[j + l + 1]! - d[j + l]!) * fx;
        sorties[k]![p] = haut + (bas - haut) * fy;
      }
    }
  }
  return { plans: sorties.map((data) => ({ data, largeur: l, hauteur: h })), dedans };
};
