/**
 * The exposures of a bracket: their order, the reference every other photo is aligned to and checked
 * against, and whether there is anything to merge at all.
 *
 * - Order by mean brightness, not by the request's order nor by EXIF (which a phone's or an editor's
 *   export may strip): the result must not depend on how the photos were listed, so everything after
 *   this works in this order.
 * - The reference is the middle exposure: the one the photographer metered, closest in exposure to
 *   every other (alignment and ghost checks compare through the smallest gaps), and the one whose
 *   geometry and moving things the result keeps. With an even count, of the two middle ones the one
 *   with more pixels neither black nor blown.
 * - "Nothing to merge": the exposure gap between the darkest and brightest photo, measured where both are
 *   neither clipped nor black (median ratio of linear light, sRGB assumed), is under ECART_MIN. Three
 *   frames of one exposure are a burst, not a bracket: refused (`expositions_identiques`), not merged
 *   into a copy of one of them. A camera's smallest bracket step is 1/3 EV.
 * Same on the local and production engines (no model).
 */
import { ErreurTravail } from '../../../core/modele/erreurs';
import type { Copie } from './decodage';
import type { Plan } from './plan';
import type { Transformation } from './transformation';

/** Under this gap (EV) between the darkest and the brightest photo there is nothing to merge. */
export const ECART_MIN = 0.25;

const moyenne = (p: Plan): number => {
  let s = 0;
  for (let i = 0; i < p.data.length; i++) s += p.data[i]!;
  return s / p.data.length;
};

/** A fingerprint of the pixels: orders two photos of exactly one mean brightness the same way whatever the request's order. */
const empreinte = (p: Plan): number => {
  let s = 0;
  for (let i = 0; i < p.data.length; i++) s += p.data[i]! * ((i % 7919) + 1);
  return s;
};

const partBienExposee = (p: Plan): number => {
  let n = 0;
  for (let i = 0; i < p.data.length; i++) if (p.data[i]! > 0.05 && p.data[i]! < 0.95) n++;
  return n / p.data.length;
};

/** The photos' indices from darkest to brightest, and the reference's index. */
export const ordonner = (copies: readonly Copie[]): { ordre: number[]; reference: number } => {
  const cles = copies.map((c, i) => ({ i, m: moyenne(c.luminance), e: empreinte(c.luminance) }));
  cles.sort((a, b) => a.m - b.m || a.e - b.e || a.i - b.i);
  const ordre = cles.map((c) => c.i);
  const n = ordre.length;
  if (n % 2 === 1) return { ordre, reference: ordre[(n - 1) / 2]! };
  const [sombre, claire] = [ordre[n / 2 - 1]!, ordre[n / 2]!];
  // Ties go to the darker: a highlight blown in the reference is lost to the ghost check there.
  const reference = partBienExposee(copies[claire]!.luminance) > partBienExposee(copies[sombre]!.luminance) ? claire : sombre;
  return { ordre, reference };
};

/** log2 of linear light (sRGB decoding) at 4096 steps of 0–1: a median in hundredths of EV needs no finer. */
const LOG_LINEAIRE = Float64Array.from({ length: 4097 }, (_, i) => {
  const v = i / 4096;
  return Math.log2(Math.max(1e-6, v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
});
const logLineaire = (v: number): number => LOG_LINEAIRE[Math.round(v * 4096)]!;

/**
 * Exposure of `photo` relative to `ref` in EV (positive: brighter), with `t` taking the reference's pixel
 * to the photo's (pixels of these copies): median log ratio of linear light where both are exposed.
 */
export const ecartEV = (ref: Plan, photo: Plan, t: Transformation): number => {
  const { largeur: l, hauteur: h } = ref;
  const [cx, cy] = [(l - 1) / 2, (h - 1) / 2];
  // Histogram of log2 ratios from −10 to +10 EV in hundredths.
  const bins = new Uint32Array(2001);
  let n = 0;
  const pas = Math.max(1, Math.floor(Math.sqrt((l * h) / 100_000)));
  for (let y = 0; y < h; y += pas) {
    for (let x = 0; x < l; x += pas) {
      const u = x - cx;
      const v = y - cy;
      const X = Math.round(t.a * u + t.b * v + t.tx + cx);
      const Y = Math.round(t.c * u + t.d * v + t.ty + cy);
      if (X < 0 || Y < 0 || X >= l || Y >= h) continue;
      const r = ref.data[y * l + x]!;
      const p = photo.data[Y * l + X]!;
      if (r < 0.04 || r > 0.96 || p < 0.04 || p > 0.96) continue;
      const ev = logLineaire(p) - logLineaire(r);
      bins[Math.max(0, Math.min(2000, Math.round(ev * 100) + 1000))]!++;
      n++;
    }
  }
  if (n === 0) return 0;
  let cumul = 0;
  for (let b = 0; b <= 2000; b++) if ((cumul += bins[b]!) >= n / 2) return (b - 1000) / 100;
  return 0;
};

/** Refuses a bracket with nothing to merge: one photo, or all of one exposure. */
export const verifierEcarts = (ecarts: readonly number[]): void => {
  if (ecarts.length < 2) throw new ErreurTravail('expositions_identiques', 'One photo alone has nothing to merge: send the bracket, 2 photos or more.');
  const ecart = Math.max(...ecarts) - Math.min(...ecarts);
  if (ecart < ECART_MIN) {
    throw new ErreurTravail(
      'expositions_identiques',
      `The photos have the same exposure (they differ by ${ecart.toFixed(2)} EV at most, under ${ECART_MIN} EV): there is nothing to merge.`,
    );
  }
};
