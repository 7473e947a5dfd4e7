/**
 * The colour rules of the local preview engine, in place of Rekognition: a deterministic reading of
 * the analysis copy, a few tens of milliseconds, no model. Tuned on drawn scenes, and used for them
 * (the tests' images, the examples of docs/engines.md); the engine's detector is a trained model
 * (`detecteurLocal`, at the end), which these rules only confirm where the model is unsure.
 *
 * What it finds, in a room photographed from standing height with its floor at the bottom of the frame:
 * - the floor (commun/sol.ts), and from it the floor line: the top of the floor's convex hull (a room's floor
 *   is a convex polygon in the image, so furniture hiding part of it does not bend the line);
 * - the walls and ceiling: the most common colour above that line, smooth;
 * - windows (`fixe`): what shows outdoor colours (foliage, sky) on the walls, bright as a whole, the
 *   panes either side of a mullion joined, grown by the frame and sill; not one that reaches the top
 *   of the frame (that is the sky of an outdoor photo);
 * - radiators (`fixe`): under a window, the rows down to the floor line crossed by vertical lines (its
 *   sides and fins), or a low, wide, light region there;
 * - everything else, cut into regions of one colour, regions of close colour (the faces of one sofa),
 *   small ones, legs (to what rests on them) and those inside another's box (cushions, a book)
 *   merged into one object. Then:
 *   · standing on the floor or lying in it (its foot at or below the floor line): `meuble`, a flat one
 *     within the floor being a rug;
 *   · on a wall, tall and rectangular, down to the floor line: a door (`fixe`);
 *   · on a wall, rectangular: a framed picture (`meuble`); anything else on a wall is ignored.
 * Measured on the living room of the examples (docs/exemples) (test/unit/zones.test.ts): sofa, armchair, plant, window and
 * radiator found (IoU 0.52–0.94); the coffee table's legs go to the rug under them (IoU 0.46); the
 * floor lamp (a white shade, a thin pole) is missed. Its time is part of the engine's (docs/benchmarks.md,
 * Benchmarks: `bench/moteur-local.ts`).
 * What it cannot: tell a wardrobe from a door or a built-in unit from a piece standing against the
 * wall (both are rectangles on the floor line); see furniture the colour of the walls (a white
 * lampshade, a white chest against a white wall) or of the floor; separate two touching pieces of the
 * same colour; find a radiator that is not under a window; find anything without a floor in view (it returns nothing then, and says nothing of
 * stairs, fireplaces or doors ajar); name objects beyond these few words. Its boxes are bounding
 * boxes of what is seen, as Rekognition's are.
 * Outdoors (a sky in view), the lawn or snow reads as a floor and the house standing on it as furniture:
 * there, a piece of furniture counts only if the ground is seen just above and just below it (a garden
 * chair on the lawn), never what rises from the ground line (a front door, a hedge, the house). And a
 * "piece" whose box covers more than a quarter of the frame is a building or a wall seen whole.
 */
import { priseDehors } from '../commun/ciel-masque';
import { preuveDInterieur, type Detecteur, type ObjetDetecte } from '../commun/detection';
import { avecOuvertures, trouverFenetres } from '../commun/fenetres';
import { aireCommune, type Rectangle } from '../commun/masques';
import type { Pixels } from '../commun/pixels';
import { mesurer, modeleDe, ressemble, trouverSol, type Mesures, type Modele } from '../commun/sol';

/** Below this share of the frame an object is noise, a switch or a shadow's edge. */
const AIRE_MIN = 0.002;
/** Regions smaller than this share are pieces (a leg, a knot): they join their largest neighbour. */
const AIRE_PIECE = 0.0006;
/**
 * One region: steps between neighbours under the first bound (any channel, on the blurred analysis
 * copy), and no further than the second from the colour it started from (a soft shadow from a sofa onto
 * a rug is a chain of small steps between two colours far apart).
 */
const [PAS_REGION, ECART_REGION] = [14, 36];
/** An object fills at least this share of its box: a skirting board or a wall's corner is a line. */
const REMPLISSAGE_MIN = 0.2;
/** Mean chromaticities closer than this: the same material under other light (a sofa's faces). */
const MEME_TEINTE = 0.025;
/** …and luminances within this ratio: shade, not a black leg standing on a grey rug. */
const MEME_LUMIERE = 0.55;
/** A wall in shade or lit: within these factors of the wall's median luminance. */
const [MUR_SOMBRE, MUR_CLAIR] = [0.6, 1.3];
/** Luminance steps above this (sum of the two central differences) are texture or an edge, not a wall. */
const TEXTURE_MUR = 14;
const CONFIANCE = 0.6;
/** Up to this share of the frame, a region inside a neighbour's box is part of it (a cushion); a coffee table before a sofa is not. */
const PIECE_DANS = 0.008;
/** A window seen from inside is bright as a whole, next to the wall; a plant's foliage is dark. */
const VITRE_CLAIRE = 0.7;
/** The frame, reveal and sill around the glass, as a share of the short side (the sill below, half as much again). */
const CADRE = 0.025;
/** Luminance step or ridge across a radiator's side or fin (analysis copy). */
const AILETTE = 4;
/** Window panes closer than this share of the short side are one window (a mullion, a transom). */
const MENEAU = 0.03;

/** Per column, the top of the floor's convex hull (rows of the analysis copy); the height where there is no floor. */
const ligneDuSol = (sol: Uint8Array, l: number, h: number): Float64Array => {
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
const surfaces = (m: Mesures, sol: Uint8Array, ligne: Float64Array, l: number, h: number): { surface: Uint8Array; mur: Modele } => {
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

interface Region {
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

const dehors = (r: number, g: number, b: number) => (g >= r + 12 && g >= b + 16) || b >= r + 16;

/**
 * Windows: what shows the outdoors (foliage, sky) on the walls, above the floor line. Bright glass or
 * a white sky reads as wall and leaves holes; the frame and mullions split the panes: the pieces are
 * joined by proximity and the window is their box.
 */
const fenetres = ({ data }: Pixels, m: Mesures, mur: Modele, surface: Uint8Array, ligne: Float64Array, l: number, h: number): Region[] => {
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
const radiateur = (m: Mesures, f: Region, ligne: Float64Array, l: number, h: number): Region | null => {
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

/** Regions of one colour among the pixels that are neither floor nor wall. */
const regions = ({ data }: Pixels, surface: Uint8Array, l: number, h: number): { etiquette: Int32Array; liste: Region[] } => {
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
const grouper = (liste: Region[], n: number): Region[] => {
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

/** The box in fractions of the frame. */
const boite = (R: Region, l: number, h: number) => ({ x0: R.x0 / l, y0: R.y0 / h, x1: R.x1 / l, y1: R.y1 / h });

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

/** The objects of one analysis copy; exported for the tests and the bench. */
const detecterAnalyse = (analyse: Pixels, sol: Uint8Array): ObjetDetecte[] => {
  const { largeur: l, hauteur: h } = analyse;
  const n = l * h;
  if (!sol.some((v) => v)) return [];
  const m = mesurer(analyse);
  const ligne = ligneDuSol(sol, l, h);
  const { surface, mur } = surfaces(m, sol, ligne, l, h);
  const vitres = fenetres(analyse, m, mur, surface, ligne, l, h);
  // A window with its frame and sill is not an object of the room: out of the regions, so that what
  // hangs under it (a radiator) is found by itself.
  for (const f of vitres) for (let y = f.y0; y < f.y1; y++) surface.fill(1, y * l + f.x0, y * l + f.x1);
  const { liste } = regions(analyse, surface, l, h);
  const groupes = grouper(liste, n);
  const objets: ObjetDetecte[] = [];
  for (const R of groupes) {
    const [w, hh] = [R.x1 - R.x0, R.y1 - R.y0];
    if (R.aire < AIRE_MIN * n || R.aire < REMPLISSAGE_MIN * w * hh) continue;
    // The floor line under the object: the lowest of it across its columns (a piece in a corner).
    let pied = 0;
    for (let x = R.x0; x < R.x1; x++) pied = Math.max(pied, ligne[x]!);
    const marge = 0.02 * h;
    const auSol = R.y1 >= pied - marge;
    const clair = (0.299 * R.r + 0.587 * R.g + 0.114 * R.b) / R.aire;
    const rectangle = R.aire >= 0.6 * w * hh;
    const ajouter = (nom: string, nature: 'meuble' | 'fixe') => objets.push({ nom, nature, boite: boite(R, l, h), confiance: CONFIANCE });
    const sousFenetre = vitres.some((f) => R.x1 >= f.x0 - 0.1 * l && R.x0 <= f.x1 + 0.1 * l && R.y0 >= f.y0);
    if (sousFenetre && R.y1 >= pied - 0.12 * h && hh <= 0.15 * h && w >= 1.5 * hh && clair >= 0.75 * mur.L) ajouter('Radiator', 'fixe');
    else if (auSol && R.y0 >= pied - marge && hh < 0.6 * w) ajouter('Rug', 'meuble');
    else if (auSol && hh >= 0.35 * h && w >= 0.3 * hh && w <= 0.7 * hh && rectangle) ajouter('Door', 'fixe');
    else if (auSol) ajouter('Furniture', 'meuble');
    else if (rectangle) ajouter('Picture Frame', 'meuble');
  }
  for (const f of vitres) {
    objets.push({ nom: 'Window', nature: 'fixe', boite: boite(f, l, h), confiance: CONFIANCE });
    const r = radiateur(m, f, ligne, l, h);
    if (r) objets.push({ nom: 'Radiator', nature: 'fixe', boite: boite(r, l, h), confiance: CONFIANCE });
  }
  return objets;
};

/** Above this share of the frame, a box is a building or a wall seen whole, not a piece of furniture. */
const AIRE_MEUBLE_MAX = 0.25;

const aire = ({ boite: b }: ObjetDetecte) => (b.x1 - b.x0) * (b.y1 - b.y0);

/** Outdoors, the share of the ground a piece's top and bottom edges must lie on. */
const SOL_AUTOUR = 0.6;

/** Whether the ground (floor mask of the analysis copy) is seen along the rows just above and just below a box. */
const entoureDeSol = ({ boite: b }: ObjetDetecte, sol: Uint8Array, l: number, h: number): boolean => {
  const [x0, x1] = [Math.floor(b.x0 * l), Math.min(l, Math.ceil(b.x1 * l))];
  const part = (y: number) => {
    if (y >= h) return 1;
    if (y < 0) return 0;
    let n = 0;
    for (let x = x0; x < x1; x++) n += sol[y * l + x] ? 1 : 0;
    return n / Math.max(1, x1 - x0);
  };
  return part(Math.floor(b.y0 * h) - 2) >= SOL_AUTOUR && part(Math.ceil(b.y1 * h) + 1) >= SOL_AUTOUR;
};

/** The colour rules alone: the floor, windows, radiators and doors, and furniture of drawn scenes. */
export const detecteurCouleurs: Detecteur = {
  nom: 'couleurs',
  async detecter(photo: Pixels): Promise<ObjetDetecte[]> {
    const { analyse, sol } = await trouverSol(photo);
    const dehors = priseDehors(analyse);
    return detecterAnalyse(analyse, sol).filter(
      (o) => o.nature !== 'meuble' || (aire(o) <= AIRE_MEUBLE_MAX && (!dehors || entoureDeSol(o, sol, analyse.largeur, analyse.hauteur))),
    );
  },
};

/**
 * Down to this score, a piece of furniture the model is unsure of is kept when the colour rules find
 * one in the same place (IoU ≥ ACCORD): two readings that share nothing but the photo. Drawn scenes
 * need it — their flat colours are what the rules were tuned on, and the model sees the drawn sofa of
 * docs/exemples at 0.34, under CONFIANCE_MIN — and real photos do not mind: on test/photos, no
 * reading of the model between this score and CONFIANCE_MIN meets a box of the rules at IoU 0.5
 * (the nearest: a cup at 0.28, IoU 0.34).
 */
const CONFIANCE_ACCORD = 0.25;
const ACCORD = 0.5;

/**
 * A "bed" or "sofa" box this much of which is free floor (sol.ts) is the floor itself: the model reads
 * a bare floor seen wide as a bed (the drawn empty room of docs/exemples: 0.76 of its box, at 0.39),
 * while the beds and sofas it finds on test/photos are at most 0.47 floor (the rest of the box is the
 * piece itself).
 */
const SOL_MAX = 0.6;
/** What the model reads as a whole floor seen wide: a bed or a sofa, never a chair or a plant. */
const PIECES_AU_SOL: ReadonlySet<string> = new Set(['Bed', 'Couch']);

const iou = (a: Rectangle, b: Rectangle): number => {
  const commune = aireCommune(a, b);
  return commune / ((a.x1 - a.x0) * (a.y1 - a.y0) + (b.x1 - b.x0) * (b.y1 - b.y0) - commune);
};

/** The share of a box (fractions of the frame) that is floor on the analysis copy. */
const partDeSol = (b: Rectangle, sol: Uint8Array, l: number, h: number): number => {
  const [x0, x1, y0, y1] = [Math.floor(b.x0 * l), Math.min(l, Math.ceil(b.x1 * l)), Math.floor(b.y0 * h), Math.min(h, Math.ceil(b.y1 * h))];
  let n = 0;
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) n += sol[y * l + x]!;
  return n / Math.max(1, (x1 - x0) * (y1 - y0));
};

/**
 * The local engine's detector: furniture and the plumbed-in (sink, toilet, oven, refrigerator) found
 * by NanoDet, a trained model (objets-nanodet.ts, loaded at the first job that needs it), and the
 * windows and doors found from the photo's edges (commun/fenetres.ts, the rule production adds to
 * Rekognition's answer), as fixed elements: vider and staging leave them out of their masks, and the
 * structure check has their lines. The colour rules alone are not used: on real photos their furniture
 * is walls, shadows and facades, and their windows and doors are mostly not windows or doors
 * (docs/benchmarks.md: `npm run bench:detecteurs`), and a false window cuts a hole in the furniture vider
 * removes. They only confirm what the model half sees (CONFIANCE_ACCORD), which is how a drawn scene's
 * sofa is found, and the floor tells the model's "bed" that is a bare floor (SOL_MAX).
 */
export const detecteurLocal: Detecteur = {
  nom: 'local',
  async detecter(photo: Pixels): Promise<ObjetDetecte[]> {
    const { trouverObjets, CONFIANCE_INDICE, CONFIANCE_MIN } = await import('./objets-nanodet');
    // One reading of the model: its boxes at its threshold, those the colour rules vouch for under it, and
    // at CONFIANCE_INDICE what tells an interior (as indicesLocaux below), which tells the window finder
    // not to look for a facade's rhythm.
    const lecture = await trouverObjets(photo, CONFIANCE_ACCORD);
    const { analyse, sol } = await trouverSol(photo);
    const [l, h] = [analyse.largeur, analyse.hauteur];
    const objets = lecture.filter((o) => o.confiance >= CONFIANCE_MIN && !(PIECES_AU_SOL.has(o.nom) && partDeSol(o.boite, sol, l, h) >= SOL_MAX));
    const incertains = lecture.filter((o) => o.nature === 'meuble' && o.confiance < CONFIANCE_MIN);
    if (incertains.length) {
      for (const regle of (await detecteurCouleurs.detecter(photo)).filter((o) => o.nature === 'meuble')) {
        const modele = incertains.find((o) => iou(o.boite, regle.boite) >= ACCORD && !objets.includes(o));
        // The model's box, as for everything else it finds: the rules only vouch for it.
        if (modele) objets.push(modele);
      }
    }
    const interieur = preuveDInterieur(lecture.filter((o) => o.confiance >= CONFIANCE_INDICE)) !== undefined;
    return avecOuvertures(objets, await trouverFenetres(photo, { interieur }));
  },
};

/**
 * What tells the local engine a photo was taken inside: the same model's reading, at the lower score
 * of CONFIANCE_INDICE (objets-nanodet.ts). For detection.ts preuveDInterieur.
 */
export const indicesLocaux = async (photo: Pixels): Promise<ObjetDetecte[]> => {
  const { trouverObjets, CONFIANCE_INDICE } = await import('./objets-nanodet');
  return trouverObjets(photo, CONFIANCE_INDICE);
};
