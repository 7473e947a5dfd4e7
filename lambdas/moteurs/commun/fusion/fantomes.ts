/**
 * Ghosts: what moved between the frames of a bracket (leaves, a person, a car) must appear once, where
 * the reference shows it, not as a translucent copy in each place. For each other photo, the pixels that
 * disagree with the reference are found, and there the photo's pixels are replaced, before the merge, by
 * the reference rendered at that photo's exposure (assemblage.ts, through the intensity mapping of
 * correspondance.ts). Replacing rather than giving those pixels no weight: a region only the reference
 * fills comes out at the reference's exposure inside a merge of several, a dark hole in a lifted corner
 * where the object had been (measured: 12 % of the object's contrast left on a drawn room); replaced, the
 * photo still brings its exposure there, only not its content.
 *
 * How disagreement is judged, and why:
 * - On copies about 512 px long, blurred: a moving object is far larger than that, while the grain, the
 *   JPEG blocks and the last tenth of a pixel of misalignment (which would light up every edge) are gone.
 *   The clipping below is applied a step before, at about 800 px.
 * - In the darker photo's values, the brighter one mapped down to them (correspondance.ts, medians of
 *   aligned pairs, pairs far from the exposure gap's prediction left out: a figure in one frame only must
 *   not bend the map that judges it).
 * - Both given the same clipping first: where the brighter photo is blown it only says "at least this
 *   bright", so both are clamped to the level that maps to (and to the darker one's black): a dark figure
 *   in front of a window the reference blows still disagrees, a bright wall the other frame blows does not.
 * - A channel off by more than SEUIL (after blurring; less in the darks) counts; isolated pixels are dropped (opening), and the
 *   rest grown by 2 % of the long side and feathered, so the object's soft edge and its shadow go with it.
 * Same on the local and production engines (no model).
 */
import { apportDesHautesLumieres } from './apport';
import { apparierPaires, appliquer, appliquerTout, exposer, type Correspondance } from './correspondance';
import { deformerPlans } from './deformation';
import type { Copie } from './decodage';
import { flouCarre, plan, reduireDeMoitie, type Plan } from './plan';
import { remplir } from './pyramide';
import type { Transformation } from './transformation';

/** Long side of the copies compared. */
const COTE_FANTOMES = 512;
/**
 * Disagreement (0–1, in the darker photo's values, after blurring) over which a pixel is a ghost's: 0.07,
 * or 30 % of the two values' mean where that is less, down to 0.03. The darker photo's values compress a
 * dark region's contrasts: a dark coat on a wet pavement differed from it by 0.10 there, so a fixed 0.07
 * missed most of the figure, which stayed in the merge at a quarter of its strength. Under 0.03 the grain
 * of a dark frame, blurred, would count.
 */
const SEUIL = 0.07;
const SEUIL_RELATIF = 0.3;
const SEUIL_MIN = 0.03;
/** Clipped: at or over this, a value only says "at least"; at or under NOIR, "at most". */
const CLIP = 0.97;
const NOIR = 0.03;
/** Growth of a ghost, share of the long side, and the width of its feathered edge. */
const MARGE = 0.02;
const FONDU = 0.01;

export interface Fantomes {
  /** Ghost weight per pixel of the compared copies, 0–1 (1: take the reference's). */
  masque: Plan;
  /** Per channel, the map from the reference's values to the photo's. */
  versPhoto: [Correspondance, Correspondance, Correspondance];
  /**
   * The photo's own colours, in its values 0–1 at the mask's size, filled across its ghosts from around
   * them (pull-push): what replaces a ghost where the reference is blown and has nothing to give (a figure
   * passing in front of a window the reference blows). Mapping the reference's white there gave a flat
   * patch of one colour in the view; the fill is a soft patch of the view's own colours.
   */
  remplissage: [Plan, Plan, Plan];
  /** Whether any ghost lies where the reference is blown (else the fill is not made, nor read). */
  aRemplir: boolean;
  /**
   * What replaces a ghost where the reference is not blown (assemblage.ts): the reference mapped to the
   * photo's exposure at the mask's size (blurred: its light and colour), plus the reference's own fine
   * detail (its luminance minus `refLuminance`, this copy's), unlifted. Mapped at full size, a dark region's
   * grain and JPEG colour noise came out lifted two stops with it, as speckles.
   */
  refLisse: [Plan, Plan, Plan];
  refLuminance: Plan;
  /** Share of the frame replaced (weight over one half). */
  part: number;
  /**
   * A darker photo's: where it shows more than the reference's white (apport.ts), at the mask's size; over
   * a ghost, where its fill does. Null for a brighter photo.
   */
  apport: Plan | null;
}

const reduirePour = (p: Plan): Plan => {
  let r = p;
  while (Math.max(r.largeur, r.hauteur) > COTE_FANTOMES * 1.5) r = reduireDeMoitie(r);
  return flouCarre(r, Math.max(1, Math.round(Math.max(r.largeur, r.hauteur) / 256)));
};

/** A plane's values clamped to [bas, haut] (after `table`, when given). */
const borner = (p: Plan, bas: number, haut: number, table: Correspondance | null): Plan => {
  const sortie = new Float32Array(p.data.length);
  for (let i = 0; i < sortie.length; i++) sortie[i] = Math.max(bas, Math.min(haut, table ? appliquer(table, p.data[i]!) : p.data[i]!));
  return plan(p.largeur, p.hauteur, sortie);
};

/**
 * Per pixel of the ghost copies, the largest disagreement over the channels (≤ 0 where they agree). Both
 * photos are first given the same clipping, in the darker one's values and at full analysis size, before
 * any blur: the brighter photo mapped down, and both clamped to what the darker one reaches where the
 * brighter one clips, and to the darker one's black. Blurring first would mix a blown region with its
 * edge into a value the darker photo contradicts. `tables`: the maps from the brighter to the darker, when
 * already built (null: built here).
 */
const desaccords = (sombre: Plan[], clair: Plan[], dedans: Uint8Array, ecart: number, tables: readonly Correspondance[] | null): Float32Array => {
  let pire: Float32Array | null = null;
  const attendu = exposer(-ecart);
  for (let k = 0; k < 3; k++) {
    const table = tables?.[k] ?? apparierPaires(clair[k]!.data, sombre[k]!.data, dedans, attendu);
    const haut = Math.min(CLIP, appliquer(table, CLIP));
    const [pa, pb] = [borner(sombre[k]!, NOIR, haut, null), borner(clair[k]!, NOIR, haut, table)];
    // Where the photo does not cover the reference both agree, so the blur brings no edge of its own.
    for (let p = 0; p < dedans.length; p++) if (!dedans[p]) pb.data[p] = pa.data[p]!;
    const [a, b] = [reduirePour(pa), reduirePour(pb)];
    pire ??= new Float32Array(a.data.length).fill(-1);
    for (let p = 0; p < pire.length; p++) {
      const [u, v] = [a.data[p]!, b.data[p]!];
      const seuil = Math.max(SEUIL_MIN, Math.min(SEUIL, (SEUIL_RELATIF * (u + v)) / 2));
      pire[p] = Math.max(pire[p]!, Math.abs(u - v) - seuil);
    }
  }
  return pire!;
};

/** Binary erosion (min) or dilation (max) over a (2r + 1)² square, separably, by running counts. */
const morpho = (m: Uint8Array, l: number, h: number, r: number, dilater: boolean): Uint8Array => {
  const passe = (src: Uint8Array, pas: number, longueur: number, lignes: number, saut: number): Uint8Array => {
    const dst = new Uint8Array(src.length);
    for (let j = 0; j < lignes; j++) {
      const o = j * saut;
      let s = 0;
      for (let d = 0; d <= Math.min(longueur - 1, r); d++) s += src[o + d * pas]!;
      for (let i = 0; i < longueur; i++) {
        const n = Math.min(longueur - 1, i + r) - Math.max(0, i - r) + 1;
        dst[o + i * pas] = dilater ? (s > 0 ? 1 : 0) : s === n ? 1 : 0;
        if (i + r + 1 < longueur) s += src[o + (i + r + 1) * pas]!;
        if (i - r >= 0) s -= src[o + (i - r) * pas]!;
      }
    }
    return dst;
  };
  return passe(passe(m, 1, l, h, l), l, h, l, 1);
};

/** The analysis copy halved down to at most COMPARAISON px: clamped at this size, then reduced further. */
const COMPARAISON = 800;
const aComparer = (p: Plan): Plan => (Math.max(p.largeur, p.hauteur) > COMPARAISON ? aComparer(reduireDeMoitie(p)) : p);

/**
 * What replaces the ghosts (assemblage.ts): the reference mapped to the photo's exposure (per channel, and
 * smoothed), its smoothed luminance, and, only when the reference is blown under a ghost, the photo's own
 * fill. `r` and `p`: the reference and the photo at comparison size, `dedans` where the photo covers it.
 */
const remplacants = (
  r: Plan[],
  p: Plan[],
  masque: Plan,
  dedans: Uint8Array,
  versPhoto: Fantomes['versPhoto'],
): Omit<Fantomes, 'masque' | 'part' | 'apport'> => {
  const petites = r.map(reduirePour);
  const refLisse = petites.map((c, k) => plan(c.largeur, c.hauteur, appliquerTout(versPhoto[k]!, c.data))) as Fantomes['refLisse'];
  const [pr, pv, pb] = petites.map((c) => c.data) as [Float32Array, Float32Array, Float32Array];
  const refLuminance = plan(masque.largeur, masque.hauteur);
  for (let i = 0; i < pr.length; i++) refLuminance.data[i] = 0.299 * pr[i]! + 0.587 * pv[i]! + 0.114 * pb[i]!;
  // The fill draws on what the photo shows around the ghost where the reference is blown too (the rest
  // of the window's view, not its frame nor the wall), since only such pixels are ever filled.
  const [rr, rv, rb] = r.map((c) => c.data) as [Float32Array, Float32Array, Float32Array];
  const source = new Float32Array(dedans.length);
  for (let i = 0; i < source.length; i++) source[i] = dedans[i] && Math.max(rr[i]!, rv[i]!, rb[i]!) >= 0.98 ? 1 : 0;
  const couvert = reduirePour(plan(r[0]!.largeur, r[0]!.hauteur, source));
  const confiance = new Float32Array(masque.data.length);
  let aRemplir = false;
  for (let i = 0; i < confiance.length; i++) {
    confiance[i] = couvert.data[i]! * (1 - masque.data[i]!);
    aRemplir ||= masque.data[i]! > 0 && Math.max(pr[i]!, pv[i]!, pb[i]!) >= 0.97;
  }
  // No blown reference under any ghost: nothing will be filled (the planes are never read).
  const remplissage = (aRemplir ? p.map((c) => remplir(reduirePour(c), confiance)) : [masque, masque, masque]) as Fantomes['remplissage'];
  return { versPhoto, remplissage, aRemplir, refLisse, refLuminance };
};

/**
 * Where `photo` disagrees with the reference (both analysis copies, `t` from the reference's pixel to
 * the photo's in their pixels), `ev` its exposure relative to the reference; and what replaces it there.
 */
export const detecterFantomes = (ref: Copie, photo: Copie, t: Transformation, ev: number): Fantomes => {
  const r = [ref.rouge, ref.vert, ref.bleu].map(aComparer);
  const f = r[0]!.largeur / ref.rouge.largeur;
  const { plans: p, dedans } = deformerPlans([photo.rouge, photo.vert, photo.bleu].map(aComparer), { ...t, tx: t.tx * f, ty: t.ty * f });
  const versPhoto = [0, 1, 2].map((k) => apparierPaires(r[k]!.data, p[k]!.data, dedans, exposer(ev))) as Fantomes['versPhoto'];
  // A darker photo's disagreement is measured in its own values, through this same map (built once).
  const pire = ev > 0 ? desaccords(r, p, dedans, ev, null) : desaccords(p, r, dedans, -ev, versPhoto);
  const { largeur: l, hauteur: h } = reduirePour(r[0]!);
  const brut = new Uint8Array(pire.length);
  for (let i = 0; i < pire.length; i++) brut[i] = pire[i]! > 0 ? 1 : 0;
  const ouvert = morpho(morpho(brut, l, h, 1, false), l, h, 1, true);
  const grossi = morpho(ouvert, l, h, Math.max(1, Math.round(MARGE * Math.max(l, h))), true);
  const masque = flouCarre(plan(l, h, new Float32Array(grossi)), Math.max(1, Math.round(FONDU * Math.max(l, h))));
  let n = 0;
  for (let i = 0; i < masque.data.length; i++) {
    // The feathering must not lower the core: what was found is replaced whole.
    if (ouvert[i]) masque.data[i] = 1;
    if (masque.data[i]! > 0.5) n++;
  }
  const remplacement = remplacants(r, p, masque, dedans, versPhoto);
  let apport: Plan | null = null;
  if (ev < 0) {
    apport = reduirePour(apportDesHautesLumieres(p, remplacement.versPhoto, dedans));
    // Over a ghost on what the reference blows, the photo gives its fill (assemblage.ts): what that shows.
    if (remplacement.aRemplir) {
      const rempli = apportDesHautesLumieres(remplacement.remplissage, remplacement.versPhoto, new Uint8Array(masque.data.length).fill(1));
      for (let i = 0; i < apport.data.length; i++) apport.data[i] = apport.data[i]! + (rempli.data[i]! - apport.data[i]!) * masque.data[i]!;
    }
  }
  return { masque, ...remplacement, part: n / masque.data.length, apport };
};
