/**
 * A photo of the bracket made ready for the merge, at full size in the reference's frame: its warped
 * canvas (deformation.ts) read through its offset, and, where it has nothing to give or would give a
 * ghost, the reference rendered at its exposure (correspondance.ts) in its place:
 * - where the hand's shift left it uncovered (a strip along one or two edges): black there would be
 *   blended into the reference's edge at every coarse level of the pyramid, a dark fringe;
 * - where it disagrees with the reference (fantomes.ts): what moved is shown once, as the reference shows it;
 *   where the reference is blown there (it shows only white), from the photo's own surroundings instead
 *   (fantomes.ts, `remplissage`).
 * Rows are copied as blocks (memcpy speed); only the replaced pixels are computed, on both threads (parallele.ts).
 * Same on the local and production engines (no model).
 */
import { noyau, parRangees } from '../parallele';
import { appliquer } from './correspondance';
import type { Cadre, Image } from './deformation';
import type { Fantomes } from './fantomes';
import { axeRedimensionne, ligneHorizontalePartielle, ligneVerticale, type Axe } from './pyramide';
import type { Plan } from './plan';

/** Per channel, the photo's value (0–photo.max) for each of the reference's integer values. */
const tables = (fantomes: Fantomes, ref: Image, photo: Image): Float32Array[] =>
  fantomes.versPhoto.map((t) => Float32Array.from({ length: ref.max + 1 }, (_, v) => appliquer(t, v / ref.max) * photo.max));

/** Per row of the ghost copy, the first and last column holding any weight (first > last: none). */
const etendues = (fantomes: Fantomes): { debut: Int32Array; fin: Int32Array } => {
  const { masque } = fantomes;
  const [debut, fin] = [new Int32Array(masque.hauteur).fill(masque.largeur), new Int32Array(masque.hauteur).fill(-1)];
  for (let j = 0; j < masque.hauteur; j++) {
    for (let i = 0; i < masque.largeur; i++) {
      if (masque.data[j * masque.largeur + i]! <= 0) continue;
      if (i < debut[j]!) debut[j] = i;
      fin[j] = i;
    }
  }
  return { debut, fin };
};

/**
 * Full-size columns x0..x1 of row `y` enlarged from the ghost copy's planes into `lignes` (same order):
 * only the span that holds a ghost, so that a person crossing a 24 MP frame costs its own width.
 */
const lignesPartielles = (plans: Plan[], ax: Axe, ay: Axe, y: number, tampon: Float32Array, lignes: Float32Array[], x0: number, x1: number): void => {
  plans.forEach((p, k) => {
    ligneVerticale(p, ay, y, tampon);
    ligneHorizontalePartielle(tampon, p.largeur, ax, lignes[k]!, x0, x1);
  });
};

/**
 * A reference pixel blown in a channel: it says only "at least this bright", nothing to map from. (A black
 * one is mapped all the same: its grain, lifted, stays continuous with its neighbours; a fill there
 * alternated with the mapping pixel by pixel.)
 */
const ecretee = (d: Image['data'], i: number, haut: number): boolean => d[i]! >= haut || d[i + 1]! >= haut || d[i + 2]! >= haut;

interface Remplacement {
  ref: Image;
  tables: Float32Array[];
  /** This row, per channel in the photo's values 0–1: its own fill (null: none needed here), and the reference mapped and smoothed. */
  remplissage: Float32Array[] | null;
  lisse: Float32Array[];
  /** The reference's smoothed luminance, this row, 0–1. */
  luminance: Float32Array;
  max: number;
}

const [KR, KV, KB] = [0.299, 0.587, 0.114];

/**
 * The photo's pixels x0..x1 of the row at `o` replaced, by weight g[x] (or 1): with the reference mapped to
 * its exposure (the smoothed copy's light and colour, plus the reference's own fine detail unlifted), or,
 * where the reference is blown, with the photo's own fill. Without a ghost (uncovered strips: g null), the
 * reference mapped pixel by pixel.
 */
const remplacer = (sortie: Uint8Array | Uint16Array, r: Remplacement, o: number, x0: number, x1: number, g: Float32Array | null): void => {
  const { ref, tables: t, remplissage, lisse, luminance, max } = r;
  const d = ref.data;
  const [t0, t1, t2] = [t[0]!, t[1]!, t[2]!];
  const [l0, l1, l2] = [lisse[0]!, lisse[1]!, lisse[2]!];
  const haut = 0.98 * ref.max;
  const [kr, kv, kb] = [KR / ref.max, KV / ref.max, KB / ref.max];
  for (let x = x0; x <= x1; x++) {
    const poids = g ? Math.min(1, g[x]!) : 1;
    if (poids <= 0.002) continue;
    const i = o + x * 3;
    let s0: number, s1: number, s2: number;
    if (g === null) {
      s0 = t0[d[i]!]!;
      s1 = t1[d[i + 1]!]!;
      s2 = t2[d[i + 2]!]!;
    } else if (remplissage !== null && ecretee(d, i, haut)) {
      s0 = remplissage[0]![x]! * max;
      s1 = remplissage[1]![x]! * max;
      s2 = remplissage[2]![x]! * max;
    } else {
      const detail = kr * d[i]! + kv * d[i + 1]! + kb * d[i + 2]! - luminance[x]!;
      s0 = (l0[x]! + detail) * max;
      s1 = (l1[x]! + detail) * max;
      s2 = (l2[x]! + detail) * max;
    }
    const reste = 1 - poids;
    // + 0.5 and truncation by the typed array: rounding of a positive value (clamped first: detail added may leave the range).
    const v0 = reste * sortie[i]! + poids * s0;
    const v1 = reste * sortie[i + 1]! + poids * s1;
    const v2 = reste * sortie[i + 2]! + poids * s2;
    sortie[i] = (v0 < 0 ? 0 : v0 > max ? max : v0) + 0.5;
    sortie[i + 1] = (v1 < 0 ? 0 : v1 > max ? max : v1) + 0.5;
    sortie[i + 2] = (v2 < 0 ? 0 : v2 > max ? max : v2) + 0.5;
  }
};

/** What the replacement pass reads (`REMPLACEMENT`): the frame already copied into `sortie`, the reference, the ghost copy's planes. */
interface ParamsRemplacement {
  /** Per reference row, the columns the warped canvas covers (deformation.ts). */
  debuts: Int32Array;
  fins: Int32Array;
  ref: Image;
  /** The ghost copy's planes enlarged row by row: its mask, the reference smoothed (3) and its luminance, the fill (3) when needed. */
  plans: Plan[];
  aRemplir: boolean;
  tables: Float32Array[];
  etendue: { debut: Int32Array; fin: Int32Array };
  max: number;
  sortie: Uint8Array | Uint16Array;
}

/** Rows [debut, fin) of the frame: its uncovered strips and its ghosts replaced, in place. */
const REMPLACEMENT = noyau<ParamsRemplacement>('fusion.remplacement', ['sortie'], (p, debutRangees, finRangees) => {
  const { ref, plans, etendue, sortie } = p;
  const { largeur: l, hauteur: h } = ref;
  const masque = plans[0]!;
  const [ax, ay] = [axeRedimensionne(l, masque.largeur), axeRedimensionne(h, masque.hauteur)];
  const tampon = new Float32Array(masque.largeur);
  const lignes = Array.from({ length: 8 }, () => new Float32Array(l));
  const [g, lisse, luminance, remplissage] = [lignes[0]!, lignes.slice(1, 4), lignes[4]!, lignes.slice(5, 8)];
  const r: Remplacement = { ref, tables: p.tables, remplissage: null, lisse, luminance, max: p.max };
  for (let y = debutRangees; y < finRangees; y++) {
    const [debut, fin] = [p.debuts[y]!, p.fins[y]!];
    const o = y * l * 3;
    r.remplissage = null;
    remplacer(sortie, r, o, 0, Math.min(l, debut) - 1, null);
    remplacer(sortie, r, o, Math.max(0, fin + 1), l - 1, null);
    // The ghost copy's columns this row may take (the two rows it is interpolated from), in full-size columns.
    const [j, j2] = [ay.i0[y]!, Math.min(masque.hauteur - 1, ay.i0[y]! + 1)];
    const [c0, c1] = [Math.min(etendue.debut[j]!, etendue.debut[j2]!), Math.max(etendue.fin[j]!, etendue.fin[j2]!)];
    if (c0 > c1) continue;
    const x0 = Math.max(0, debut, Math.floor(((c0 - 1 + 0.5) * l) / masque.largeur));
    const x1 = Math.min(l - 1, fin, Math.ceil(((c1 + 1 + 0.5) * l) / masque.largeur));
    if (x0 > x1) continue;
    lignesPartielles(plans, ax, ay, y, tampon, lignes, x0, x1);
    r.remplissage = p.aRemplir ? remplissage : null;
    remplacer(sortie, r, o, x0, x1, g);
  }
});

/**
 * The frame made ready for the merge, shared (parallele.ts): the merge's passes read it on both threads.
 * The canvas's rows are copied here first (memcpy speed), then the replacements are made in place by both
 * threads: so the canvas itself, which libvips gave in memory the worker cannot see, is never copied whole.
 */
export const assembler = async (cadre: Cadre, ref: Image, fantomes: Fantomes): Promise<Image> => {
  const { largeur: l, hauteur: h } = ref;
  const sortie = cadre.max > 255 ? new Uint16Array(new SharedArrayBuffer(l * h * 3 * 2)) : new Uint8Array(new SharedArrayBuffer(l * h * 3));
  for (let y = 0; y < h; y++) {
    const [debut, fin] = [cadre.debuts[y]!, cadre.fins[y]!];
    if (debut > fin) continue;
    const source = ((y + cadre.oy) * cadre.largeur + debut + cadre.ox) * 3;
    sortie.set(cadre.data.subarray(source, source + (fin - debut + 1) * 3), (y * l + debut) * 3);
  }
  const { masque, aRemplir } = fantomes;
  // The fill's planes only when some ghost lies on the reference's blown parts (fantomes.ts).
  const plans = aRemplir
    ? [masque, ...fantomes.refLisse, fantomes.refLuminance, ...fantomes.remplissage]
    : [masque, ...fantomes.refLisse, fantomes.refLuminance];
  const { debuts, fins, max } = cadre;
  const params = { debuts, fins, ref, plans, aRemplir, tables: tables(fantomes, ref, cadre), etendue: etendues(fantomes), max, sortie };
  await parRangees(REMPLACEMENT, params, h);
  return { data: sortie, largeur: l, hauteur: h, max };
};
