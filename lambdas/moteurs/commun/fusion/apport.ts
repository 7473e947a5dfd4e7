/**
 * Where the reference is blown, whether a darker photo shows anything more: the only places where it
 * should give way to them. Mertens's weights give a blown pixel to whichever photo is not blown there,
 * whatever that photo holds. On a real bracket the darker photo holds the window's view or the lampshade's
 * glow, brighter than anything the reference records. But where it says no more than "as bright as the
 * reference's white" (a lamp or a sky flat in every frame, or brackets made from one photo, as people
 * try the tool with), it holds a dull grey copy of that white: a bedroom's blown lampshade and the glow
 * on the wall around it came out as blotchy grey-blue patches (grey from the darker photo, blue once the
 * white balance warmed the rest of the room back), where the reference's smooth white was right.
 *
 * So, per pixel, a darker photo's value is compared with what the reference's white maps to in it (the
 * measured intensity map of correspondance.ts, per channel, so a camera's own tone curve is no excuse):
 * over it by EXCES, the scene was brighter than the reference could record, and the darker photo brings
 * it; at or under it, the reference keeps its own pixels (ponderation.ts). Grown by a few pixels and
 * blurred, so that the rim of a blown window goes with its view and the switch leaves no seam.
 * Same on the local and production engines (no model).
 */
import { appliquer, type Correspondance } from './correspondance';
import { lisse } from '../lisse';
import { extremumCarre, plan, type Plan } from './plan';

/**
 * A darker photo's value over the reference's white (in its values, relative): under 4 %, nothing more
 * (grain and JPEG steps reach 2 %); over 15 %, all of it. In linear light, about 1.1× and 1.35× the
 * reference's white on a −2 EV frame: a blown window's view is usually several times it.
 */
const EXCES = [0.04, 0.15] as const;

/**
 * 0–1 per pixel of `photo` (a darker photo's channels in the reference's geometry, at a working size;
 * `dedans` where it covers the reference): how much it shows beyond the reference's white. `versPhoto`
 * maps the reference's values to the photo's, per channel.
 */
export const apportDesHautesLumieres = (photo: readonly Plan[], versPhoto: readonly Correspondance[], dedans: Uint8Array): Plan => {
  const { largeur: l, hauteur: h } = photo[0]!;
  const blancs = versPhoto.map((t) => appliquer(t, 1));
  const apport = new Float32Array(l * h);
  for (let p = 0; p < apport.length; p++) {
    if (!dedans[p]) continue;
    let exces = -1;
    for (let k = 0; k < 3; k++) exces = Math.max(exces, (photo[k]!.data[p]! - blancs[k]!) / Math.max(0.05, blancs[k]!));
    apport[p] = lisse(EXCES[0], EXCES[1], exces);
  }
  return extremumCarre(plan(l, h, apport), Math.max(1, Math.round(Math.max(l, h) / 256)), 'max');
};
