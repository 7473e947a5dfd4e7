/**
 * The smooth step (Hermite): 0 at or under `a`, 1 at or over `b`, and between them a curve with no kink at
 * either end, so that a soft transition shows no edge of its own. The engines' soft transitions all take
 * it: a blur fading into the photo (floutage.ts), the white balance easing off towards white
 * (redressement.ts), fusion's confidences (fusion/ponderation.ts, fusion/apport.ts).
 */
export const lisse = (a: number, b: number, v: number): number => {
  const t = Math.max(0, Math.min(1, (v - a) / (b - a)));
  return t * t * (3 - 2 * t);
};
