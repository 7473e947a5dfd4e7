/**
 * The colour rules' room (detecteur-couleurs.ts): the floor line, the walls and ceiling, and on them the
 * windows and the radiators under them — what the rules take out before cutting the rest into objects.
 */
import type { Pixels } from '../commun/pixels';
import { modeleDe, ressemble, type Mesures, type Modele } from '../commun/sol';
import { AIRE_MIN, dehors, type Region } from './regions-couleur';

/** A wall in shade or lit: within these factors of the wall's median luminance. */
const [MUR_SOMBRE, MUR_CLAIR] = [0.6, 1.3];
/** Luminance steps above this (sum of the two central differences) are texture or an edge, not a wall. */
const TEXTURE_MUR = 14;
/** A window seen from inside is bright as a whole, next to the wall; a plant's foliage is dark. */
const VITRE_CLAIRE = 0.7;
/** The frame, reveal and sill around the glass, as a share of the short side (the sill below, half as much again). */
const CADRE = 0.025;
/** Luminance step or ridge across a radiator's side or fin (analysis copy). */
const AILETTE = 4;
/** Window panes closer than this share of the short side are one window (a mullion, a transom). */
const MENEAU = 0.03;

/** Per column, the top of the floor's convex hull (rows of the analysis copy); the height where there is no floor. */
export const ligneDuSol = (sol: Uint8Array, l: number, h: number): Float64Array => {
  const points: [number, number][] = [];
  for (let x = 0; x < l; x++) {
    for (let y = 0; y < h; y++)
      if (sol[y * l + x]) {
        points.push([x, y]);
        break;
      }
  }
  const ligne = new Float64Array(l).fill(h);
  // The upper chain of the hull (y grows downwards): keep the turns that leave every point below.
  const chaine: [number, number][] = [];
  for (const p of points) {
    while (chaine.length >= 2) {
      const [a, b] = [chaine[chaine.length - 2]!, chaine[chaine.length - 1]!];
      if ((b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]) > 0) break;
      chaine.pop();
    }
    chaine.push(p);
  }
  for (let i = 0; i + 1 < chaine.length; i++) {
    const [[x0, y0], [x1, y1]] = [chaine[i]!, chaine[i + 1]!];
    for (let x = x0; x <= x1; x++) ligne[x] = y0 + ((y1 - y0) * (x - x0)) / Math.max(1, x1 - x0);
  }
  if (chaine.length === 1) ligne[chaine[0]![0]] = chaine[0]![1];
  return ligne;
};

/** Walls and ceiling: smooth pixels above the floor line in the colour most common there. */
export const surfaces = (m: Mesures, sol: Uint8Array, ligne: Float64Array, l: number, h: number): { surface: Uint8Array; mur: Modele } => {
  // The colour is learnt on one pixel in nine: plenty for a median, a tenth of the time.
  const echantillon: number[] = [];
  for (let y = 1; y < h; y += 3) for (let x = 1; x < l; x += 3) if (y < ligne[x]!) echantillon.push(y * l + x);
  const mur = modeleDe(m, echantillon);
  const surface = Uint8Array.from(sol);
  for (let p = 0; p < l * h; p++) {
    const [x, y] = [p % l, (p / l) | 0];
    if (y >= ligne[x]!) continue;
    const texture =
      Math.abs(m.L[y * l + Math.min(l - 1, x + 1)]! - m.L[y * l + Math.max(0, x - 1)]!) +
      Math.abs(m.L[Math.min(h - 1, y + 1) * l + x]! - m.L[Math.max(0, y - 1) * l + x]!);
    if (texture <= TEXTURE_MUR && m.L[p]! >= MUR_SOMBRE * mur.L && m.L[p]! <= MUR_CLAIR * mur.L && ressemble(m, p, mur)) surface[p] = 1;
  }
  return { surface, mur };
};

/**
 * Windows: what shows the outdoors (foliage, sky) on the walls, above the floor line. Bright glass or
 * a white sky reads as wall and leaves holes; the frame and mullions split the panes: the pieces are
 * joined by proximity and the window is their box.
 */
export const fenetres = ({ data }: Pixels, m: Mesures, mur: Modele, surface: Uint8Array, ligne: Float64Array, l: number, h: number): Region[] => {
  const vitre = new Uint8Array(l * h);
  for (let p = 0; p < l * h; p++) {
    const [x, y] = [p % l, (p / l) | 0];
    if (!surface[p] && y < ligne[x]! - 0.02 * h && dehors(data[p * 3]!, data[p * 3 + 1]!, data[p * 3 + 2]!)) vitre[p] = 1;
  }
  const morceaux: Region[] = [];
  const vu = new Uint8Array(l * h);
  for (let depart = 0; depart < l * h; depart++) {
    if (!vitre[depart] || vu[depart]) continue;
    const R: Region = { aire: 0, r: 0, g: 0, b: 0, x0: l, y0: h, x1: 0, y1: 0, voisins: new Map(), dehors: 0 };
    const pile = [depart];
    vu[depart] = 1;
    while (pile.length) {
      const p = pile.pop()!;
      const [x, y] = [p % l, (p / l) | 0];
      R.aire++;
      ((R.x0 = Math.min(R.x0, x)), (R.x1 = Math.max(R.x1, x + 1)), (R.y0 = Math.min(R.y0, y)), (R.y1 = Math.max(R.y1, y + 1)));
      for (const q of [x > 0 ? p - 1 : -1, x < l - 1 ? p + 1 : -1, y > 0 ? p - l : -1, y < h - 1 ? p + l : -1]) {
        if (q < 0 || vu[q] || !vitre[q]) continue;
        vu[q] = 1;
        pile.push(q);
      }
    }
    morceaux.push(R);
  }
  const marge = Math.round(CADRE * Math.min(l, h));
  return (
    joindre(morceaux, MENEAU * Math.min(l, h))
      // A window is framed by the wall: one that reaches the top of the frame or fills a third of it is the sky outdoors.
      .filter((f) => f.y0 > 0 && (f.x1 - f.x0) * (f.y1 - f.y0) <= (l * h) / 3)
      .filter((f) => f.aire >= 2 * AIRE_MIN * l * h && (f.x1 - f.x0) * (f.y1 - f.y0) >= 4 * AIRE_MIN * l * h && clarte(m, f, l) >= VITRE_CLAIRE * mur.L)
      .map((f) => ({
        ...f,
        x0: Math.max(0, f.x0 - marge),
        y0: Math.max(0, f.y0 - marge),
        x1: Math.min(l, f.x1 + marge),
        y1: Math.min(h, f.y1 + Math.round(1.5 * marge)),
      }))
  );
};

/**
 * A radiator under a window: rows, between the window and the floor line, crossed by vertical lines
 * (its sides, its fins where the analysis copy still resolves them). Its panel is as light as the
 * wall and reads as wall everywhere else; plain wall has no such lines.
 */
export const radiateur = (m: Mesures, f: Region, ligne: Float64Array, l: number, h: number): Region | null => {
  const [xa, xb] = [Math.max(1, f.x0), Math.min(l - 1, f.x1)];
  let bas = f.y1;
  for (let x = xa; x < xb; x++) bas = Math.max(bas, Math.round(ligne[x]!));
  const [lignes, xs]: [number[], number[]] = [[], []];
  for (let y = Math.max(1, f.y1 - Math.round(0.02 * h)); y < Math.min(h - 1, bas); y++) {
    const ailettes: number[] = [];
    for (let x = xa; x < xb; x++) {
      const p = y * l + x;
      // A fin is a thin line: a ridge across the row, none along the column.
      const travers = Math.max(m.L[p - 1]! + m.L[p + 1]! - 2 * m.L[p]!, Math.abs(m.L[p + 1]! - m.L[p - 1]!) / 2);
      if (travers >= AILETTE && Math.abs(m.L[p + l]! + m.L[p - l]! - 2 * m.L[p]!) < AILETTE) ailettes.push(x);
    }
    // Both sides of the panel at least, spread over more than a tenth of the window's width.
    if (ailettes.length >= 2 && ailettes[ailettes.length - 1]! - ailettes[0]! >= 0.1 * (f.x1 - f.x0)) (lignes.push(y), xs.push(...ailettes));
  }
  if (lignes.length < 0.02 * h) return null;
  xs.sort((a, b) => a - b);
  // The fins' extent, without the odd edge of a frame or a chair leg beside it.
  const [x0, x1] = [xs[Math.floor(xs.length * 0.02)]!, xs[Math.floor(xs.length * 0.98)]! + 1];
  return { ...f, x0, x1, y0: lignes[0]!, y1: lignes[lignes.length - 1]! + 1, aire: (x1 - x0) * lignes.length };
};

/** Mean luminance over a box. */
const clarte = (m: Mesures, R: Region, l: number): number => {
  let somme = 0;
  for (let y = R.y0; y < R.y1; y++) for (let x = R.x0; x < R.x1; x++) somme += m.L[y * l + x]!;
  return somme / Math.max(1, (R.x1 - R.x0) * (R.y1 - R.y0));
};

/** Joins boxes closer than `ecart` pixels, until none are: the pieces of one window. */
const joindre = (morceaux: Region[], ecart: number): Region[] => {
  let boites = morceaux.map((m) => ({ ...m }));
  for (let change = true; change;) {
    change = false;
    const sortie: Region[] = [];
    for (const f of boites) {
      const g = sortie.find((g) => Math.max(f.x0, g.x0) - Math.min(f.x1, g.x1) <= ecart && Math.max(f.y0, g.y0) - Math.min(f.y1, g.y1) <= ecart);
      if (!g) sortie.push(f);
      else
        ((change = true),
          Object.assign(g, { x0: Math.min(g.x0, f.x0), y0: Math.min(g.y0, f.y0), x1: Math.max(g.x1, f.x1), y1: Math.max(g.y1, f.y1), aire: g.aire + f.aire }));
    }
    boites = sortie;
  }
  return boites;
};
