/**
 * The colour rules' regions (detecteur-couleurs.ts): what is neither floor nor wall cut into regions of
 * one colour, then grouped into objects — the faces of one material, the small pieces with what they
 * touch most, what lies inside another's box.
 */
import type { Pixels } from '../commun/pixels';

/** Below this share of the frame an object is noise, a switch or a shadow's edge. */
export const AIRE_MIN = 0.002;
/** Regions smaller than this share are pieces (a leg, a knot): they join their largest neighbour. */
const AIRE_PIECE = 0.0006;
/**
 * One region: steps between neighbours under the first bound (any channel, on the blurred analysis
 * copy), and no further than the second from the colour it started from (a soft shadow from a sofa onto
 * a rug is a chain of small steps between two colours far apart).
 */
const [PAS_REGION, ECART_REGION] = [14, 36];
/** Mean chromaticities closer than this: the same material under other light (a sofa's faces). */
const MEME_TEINTE = 0.025;
/** …and luminances within this ratio: shade, not a black leg standing on a grey rug. */
const MEME_LUMIERE = 0.55;
/** Up to this share of the frame, a region inside a neighbour's box is part of it (a cushion); a coffee table before a sofa is not. */
const PIECE_DANS = 0.008;

export interface Region {
  aire: number;
  r: number;
  g: number;
  b: number;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  /** Shared border length with each neighbouring region. */
  voisins: Map<number, number>;
  /** Pixels of foliage or sky colour. */
  dehors: number;
}

/** Foliage or sky colour: what a window shows of the outdoors. */
export const dehors = (r: number, g: number, b: number) => (g >= r + 12 && g >= b + 16) || b >= r + 16;

/** Regions of one colour among the pixels that are neither floor nor wall. */
export const regions = ({ data }: Pixels, surface: Uint8Array, l: number, h: number): { etiquette: Int32Array; liste: Region[] } => {
  const etiquette = new Int32Array(l * h).fill(-1);
  const liste: Region[] = [];
  const ecart = (p: number, q: number) =>
    Math.max(Math.abs(data[p * 3]! - data[q * 3]!), Math.abs(data[p * 3 + 1]! - data[q * 3 + 1]!), Math.abs(data[p * 3 + 2]! - data[q * 3 + 2]!));
  for (let depart = 0; depart < l * h; depart++) {
    if (surface[depart] || etiquette[depart]! >= 0) continue;
    const id = liste.length;
    const reg: Region = { aire: 0, r: 0, g: 0, b: 0, x0: l, y0: h, x1: 0, y1: 0, voisins: new Map(), dehors: 0 };
    const pile = [depart];
    etiquette[depart] = id;
    while (pile.length) {
      const p = pile.pop()!;
      const [x, y] = [p % l, (p / l) | 0];
      const [r, g, b] = [data[p * 3]!, data[p * 3 + 1]!, data[p * 3 + 2]!];
      (reg.aire++, (reg.r += r), (reg.g += g), (reg.b += b));
      if (dehors(r, g, b)) reg.dehors++;
      ((reg.x0 = Math.min(reg.x0, x)), (reg.x1 = Math.max(reg.x1, x + 1)), (reg.y0 = Math.min(reg.y0, y)), (reg.y1 = Math.max(reg.y1, y + 1)));
      for (const q of [x > 0 ? p - 1 : -1, x < l - 1 ? p + 1 : -1, y > 0 ? p - l : -1, y < h - 1 ? p + l : -1]) {
        if (q < 0 || surface[q] || etiquette[q]! >= 0 || ecart(p, q) > PAS_REGION || ecart(depart, q) > ECART_REGION) continue;
        etiquette[q] = id;
        pile.push(q);
      }
    }
    liste.push(reg);
  }
  // Borders between regions, counted once per pair of pixels (right and down neighbours).
  for (let p = 0; p < l * h; p++) {
    const a = etiquette[p]!;
    if (a < 0) continue;
    for (const q of [p % l < l - 1 ? p + 1 : -1, p + l < l * h ? p + l : -1]) {
      const b = q < 0 ? -1 : etiquette[q]!;
      if (b < 0 || b === a) continue;
      liste[a]!.voisins.set(b, (liste[a]!.voisins.get(b) ?? 0) + 1);
      liste[b]!.voisins.set(a, (liste[b]!.voisins.get(a) ?? 0) + 1);
    }
  }
  return { etiquette, liste };
};

/** Union-find over regions, each root holding the sums of its group. */
export const grouper = (liste: Region[], n: number): Region[] => {
  const parent = liste.map((_, i) => i);
  const racine = (i: number): number => (parent[i] === i ? i : (parent[i] = racine(parent[i]!)));
  const unir = (a: number, b: number) => {
    const [ra, rb] = [racine(a), racine(b)];
    if (ra === rb) return;
    parent[rb] = ra;
    const [A, B] = [liste[ra]!, liste[rb]!];
    ((A.aire += B.aire), (A.r += B.r), (A.g += B.g), (A.b += B.b), (A.dehors += B.dehors));
    ((A.x0 = Math.min(A.x0, B.x0)), (A.y0 = Math.min(A.y0, B.y0)), (A.x1 = Math.max(A.x1, B.x1)), (A.y1 = Math.max(A.y1, B.y1)));
    for (const [v, k] of B.voisins) A.voisins.set(v, (A.voisins.get(v) ?? 0) + k);
  };
  const teinte = (R: Region) => {
    const s = R.r + R.g + R.b + 3;
    return [(R.r + R.aire) / s, (R.b + R.aire) / s, (0.299 * R.r + 0.587 * R.g + 0.114 * R.b) / R.aire];
  };
  const voisinsRacines = (i: number) => {
    const parRacine = new Map<number, number>();
    for (const [v, k] of liste[i]!.voisins) {
      const rv = racine(v);
      if (rv !== i) parRacine.set(rv, (parRacine.get(rv) ?? 0) + k);
    }
    return parRacine;
  };
  // 1. The same material: neighbours of close mean chromaticity and light (near-black has no reliable hue).
  for (let i = 0; i < liste.length; i++) {
    for (const j of liste[i]!.voisins.keys()) {
      const [a, b] = [teinte(liste[racine(i)]!), teinte(liste[racine(j)]!)];
      const ombre = Math.min(a[2]!, b[2]!) / Math.max(a[2]!, b[2]!, 1);
      if (a[2]! >= 45 && b[2]! >= 45 && ombre >= MEME_LUMIERE && Math.abs(a[0]! - b[0]!) <= MEME_TEINTE && Math.abs(a[1]! - b[1]!) <= MEME_TEINTE) unir(i, j);
    }
  }
  // 2. Pieces (a leg, a dark seam, a knot in the foliage) join the neighbour they share most border with.
  for (let passe = 0; passe < 3; passe++) {
    for (let i = 0; i < liste.length; i++) {
      const R = liste[i]!;
      const debout = R.y1 - R.y0 >= 2 * (R.x1 - R.x0);
      if (racine(i) !== i || R.aire >= (debout ? AIRE_MIN : AIRE_PIECE) * n) continue;
      const voisins = [...voisinsRacines(i)];
      // A thin upright piece (a leg) holds up what rests on its top, not the rug around its foot.
      const dessus = voisins.filter(
        ([j]) => liste[j]!.y0 < R.y0 - 2 && liste[j]!.y1 <= R.y0 + 0.5 * (R.y1 - R.y0) && liste[j]!.x0 < R.x1 && liste[j]!.x1 > R.x0,
      );
      const porte = debout ? dessus.sort(([a], [b]) => Math.abs(liste[a]!.y1 - R.y0) - Math.abs(liste[b]!.y1 - R.y0))[0] : undefined;
      const meilleur = porte ?? voisins.reduce<[number, number] | null>((m, v) => (!m || v[1] > m[1] ? v : m), null);
      if (meilleur) unir(meilleur[0], i);
    }
  }
  // 3. What lies inside a neighbour's box (cushions on a sofa, a book on a table) belongs to it.
  for (let passe = 0; passe < 2; passe++) {
    for (let i = 0; i < liste.length; i++) {
      if (racine(i) !== i) continue;
      const R = liste[i]!;
      for (const j of voisinsRacines(i).keys()) {
        const S = liste[j]!;
        if (R.aire > 0.25 * S.aire || R.aire > PIECE_DANS * n) continue;
        const dedans = Math.max(0, Math.min(R.x1, S.x1) - Math.max(R.x0, S.x0)) * Math.max(0, Math.min(R.y1, S.y1) - Math.max(R.y0, S.y0));
        if (dedans >= 0.85 * (R.x1 - R.x0) * (R.y1 - R.y0)) {
          unir(j, i);
          break;
        }
      }
    }
  }
  return liste.filter((_, i) => racine(i) === i);
};
