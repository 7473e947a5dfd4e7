/**
 * The colour arithmetic the preview recipes share: a colour's saturation (to tell snow, walls and
 * branches apart) and the clamp of a painted value to a byte.
 */

/** Max minus min of the three channels: 0 for a grey, high for a vivid colour. */
export const saturation = (r: number, g: number, b: number) => Math.max(r, g, b) - Math.min(r, g, b);
/** A computed channel value, rounded and held within 0–255. */
export const borner = (v: number) => (v < 0 ? 0 : v > 255 ? 255 : Math.round(v));
