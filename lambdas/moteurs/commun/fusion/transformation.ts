/**
 * Where a pixel of the reference lies in another photo of the bracket: a similarity (shift, rotation, a
 * scale within a few per cent), in centred coordinates. Handheld brackets move by a few per cent of the
 * width and turn by a degree or two between frames; a similarity is all that a photographer's hand does
 * in the fraction of a second of a bracket (the perspective change of a hand's few centimetres is far
 * under a pixel across a room). Centred coordinates (origin at the frame's centre) make the same
 * transformation hold at every size of the same photo: halving the copy halves the shift and keeps the
 * rotation, which is how an estimate on a small copy is carried to the full-size photo. Same on the local
 * and production engines (no model).
 */

/** x_photo = A·x_reference + t, with A = [[a, b], [c, d]], centred coordinates, in pixels of one size. */
export interface Transformation {
  a: number;
  b: number;
  c: number;
  d: number;
  tx: number;
  ty: number;
}

export const IDENTITE: Transformation = { a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0 };

/** `apres` after `avant`: x ↦ apres(avant(x)). */
export const composer = (apres: Transformation, avant: Transformation): Transformation => ({
  a: apres.a * avant.a + apres.b * avant.c,
  b: apres.a * avant.b + apres.b * avant.d,
  c: apres.c * avant.a + apres.d * avant.c,
  d: apres.c * avant.b + apres.d * avant.d,
  tx: apres.a * avant.tx + apres.b * avant.ty + apres.tx,
  ty: apres.c * avant.tx + apres.d * avant.ty + apres.ty,
});

export const inverser = (t: Transformation): Transformation => {
  const det = t.a * t.d - t.b * t.c;
  const [a, b, c, d] = [t.d / det, -t.b / det, -t.c / det, t.a / det];
  return { a, b, c, d, tx: -(a * t.tx + b * t.ty), ty: -(c * t.tx + d * t.ty) };
};

/** The same motion measured on a copy `fx` times wider and `fy` times taller. */
export const aLEchelle = (t: Transformation, fx: number, fy: number): Transformation => ({ ...t, tx: t.tx * fx, ty: t.ty * fy });

/** A similarity from its figures: rotation in radians, scale, shift. */
export const similitude = (angle: number, echelle: number, tx: number, ty: number): Transformation => {
  const [cos, sin] = [echelle * Math.cos(angle), echelle * Math.sin(angle)];
  return { a: cos, b: -sin, c: sin, d: cos, tx, ty };
};

/** Rotation in degrees (positive: the photo's content turned clockwise on screen, y pointing down). */
export const rotationDegres = (t: Transformation): number => (Math.atan2(t.c - t.b, t.a + t.d) * 180) / Math.PI;

export const echelle = (t: Transformation): number => Math.sqrt(Math.abs(t.a * t.d - t.b * t.c));

/** Where the reference's pixel (x, y) lies in the photo, both in pixel coordinates of frames of l × h. */
export const appliquerPixel = (t: Transformation, x: number, y: number, l: number, h: number): [number, number] => {
  const [cx, cy] = [(l - 1) / 2, (h - 1) / 2];
  const [u, v] = [x - cx, y - cy];
  return [t.a * u + t.b * v + t.tx + cx, t.c * u + t.d * v + t.ty + cy];
};

/** The largest distance, in pixels, that `t` moves a corner of an l × h frame: how far apart two estimates are. */
export const ecartMax = (t: Transformation, u: Transformation, l: number, h: number): number => {
  let pire = 0;
  for (const [x, y] of [
    [0, 0],
    [l - 1, 0],
    [0, h - 1],
    [l - 1, h - 1],
  ] as const) {
    const [a, b] = [appliquerPixel(t, x, y, l, h), appliquerPixel(u, x, y, l, h)];
    pire = Math.max(pire, Math.hypot(a[0] - b[0], a[1] - b[1]));
  }
  return pire;
};
