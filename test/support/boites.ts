/** Measures of boxes (in fractions of a photo) the detector tests compare with their truth. */
import type { Rectangle } from '../../lambdas/moteurs/commun/masques';

export const aire = (b: Rectangle): number => Math.max(0, b.x1 - b.x0) * Math.max(0, b.y1 - b.y0);
export const inter = (a: Rectangle, b: Rectangle): number =>
  aire({ x0: Math.max(a.x0, b.x0), y0: Math.max(a.y0, b.y0), x1: Math.min(a.x1, b.x1), y1: Math.min(a.y1, b.y1) });
/** Intersection over union: 1 for the same box, 0 for boxes apart. */
export const iou = (a: Rectangle, b: Rectangle): number => inter(a, b) / (aire(a) + aire(b) - inter(a, b));
