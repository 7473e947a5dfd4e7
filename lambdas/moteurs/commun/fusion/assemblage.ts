/**
 * A photo of the bracket made ready for the merge, at full size in the reference's frame: its warped
 * canvas (deformation.ts) read through its offset, and, where it has nothing to give or would give a
 * ghost, the reference rendered at its exposure (correspondance.ts) in its place:
 * - where the hand's shift left it uncovered (a strip along one or two edges): black there would be
 *   blended into the reference's edge at every coarse level of the pyramid, a dark fringe;
 * - where it disagrees with the reference (fantomes.ts): what moved is shown once, as the reference shows it;
 *   where the reference is blown there (it shows only white), from the photo's own surroundings instead
 *   (fantomes.ts, `remplissage`).
 * Rows are copied as blocks (memcpy speed); only the replaced pixels are computed.
 * Same on the local and production engines (no model).
 */
import { appliquer } from './correspondance';
import type { Cadre, Image } from './deformation';
import type { Fantomes } from './fantomes';
import { axeRedimensionne, ligneAgrandie, type Axe } from './pyramide';

/** Per channel, the photo's value (0–photo.max) for each of the reference's integer values. */
const tables = (fantomes: Fantomes, ref: Image, photo: Image): Float32Array[] =>
  fantomes.versPhoto.map((t) => Float32Array.from({ length: ref.max + 1 }, (_, v) => appliquer(t, v / ref.max) * photo.max));

/** Rows of the ghost copy that hold any weight, enlarged to full-size rows. */
const lignesFantomes = (fantomes: Fantomes, l: number, h: number): { ax: Axe; ay: Axe; occupee: Uint8Array } => {
  const { masque } = fantomes;
  const occupee = new Uint8Array(masque.hauteur);
  for (let j = 0; j < masque.hauteur; j++) {
    for (let i = 0; i < masque.largeur; i++) if (masque.data[j * masque.largeur + i]! > 0) occupee[j] = 1;
  }
  return { ax: axeRedimensionne(l, masque.largeur), ay: axeRedimensionne(h, masque.hauteur), occupee };
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
  /** The photo's own fill, this row, per channel in its values (null: the row holds no ghost). */
  remplissage: Float32Array[] | null;
  max: number;
}

/**
 * The photo's pixels x0..x1 of the row at `o` replaced, by weight g[x] (or 1), with the reference mapped to
 * its exposure, or, where the reference is clipped, with the photo's own fill.
 */
const remplacer = (sortie: Uint8Array | Uint16Array, r: Remplacement, o: number, x0: number, x1: number, g: Float32Array | null): void => {
  const { ref, tables: t, remplissage, max } = r;
  const d = ref.data;
  const haut = 0.98 * ref.max;
  for (let x = x0; x <= x1; x++) {
    const poids = g ? Math.min(1, g[x]!) : 1;
    if (poids <= 0.002) continue;
    const i = o + x * 3;
    const reste = 1 - poids;
    const propre = remplissage !== null && ecretee(d, i, haut);
    for (let k = 0; k < 3; k++) {
      const source = propre ? remplissage[k]![x]! * max : t[k]![d[i + k]!]!;
      // + 0.5 and truncation by the typed array: rounding of a positive value.
      sortie[i + k] = reste * sortie[i + k]! + poids * source + 0.5;
    }
  }
};

export const assembler = (cadre: Cadre, ref: Image, fantomes: Fantomes): Image => {
  const { largeur: l, hauteur: h } = ref;
  const sortie = cadre.max > 255 ? new Uint16Array(l * h * 3) : new Uint8Array(l * h * 3);
  const { ax, ay, occupee } = lignesFantomes(fantomes, l, h);
  const tampon = new Float32Array(fantomes.masque.largeur);
  const g = new Float32Array(l);
  const remplissage = [new Float32Array(l), new Float32Array(l), new Float32Array(l)];
  const r: Remplacement = { ref, tables: tables(fantomes, ref, cadre), remplissage: null, max: cadre.max };
  for (let y = 0; y < h; y++) {
    const [debut, fin] = [cadre.debuts[y]!, cadre.fins[y]!];
    const o = y * l * 3;
    if (debut <= fin) {
      const source = ((y + cadre.oy) * cadre.largeur + debut + cadre.ox) * 3;
      sortie.set(cadre.data.subarray(source, source + (fin - debut + 1) * 3), o + debut * 3);
    }
    r.remplissage = null;
    remplacer(sortie, r, o, 0, Math.min(l, debut) - 1, null);
    remplacer(sortie, r, o, Math.max(0, fin + 1), l - 1, null);
    const j = ay.i0[y]!;
    if (!occupee[j] && !occupee[Math.min(occupee.length - 1, j + 1)]) continue;
    ligneAgrandie(fantomes.masque, ax, ay, y, tampon, g);
    fantomes.remplissage.forEach((c, k) => ligneAgrandie(c, ax, ay, y, tampon, remplissage[k]!));
    r.remplissage = remplissage;
    remplacer(sortie, r, o, Math.max(0, debut), Math.min(l - 1, fin), g);
  }
  return { data: sortie, largeur: l, hauteur: h, max: cadre.max };
};
