/**
 * The face and plate detector of the local preview engine (`npm start`, the tests), in place of
 * Rekognition: trained models (BlazeFace, and PP-OCRv4's text detector on NanoDet's vehicles; at the
 * end of this file), and colour rules for the drawn streets of the tests, described here: a
 * deterministic reading of a copy of at most 1280 px, a few tens of ms.
 *
 * - A face is a blob of skin colour (the classic YCbCr skin box: Cb 77–122, Cr 140–173, not dark), about
 *   as tall as wide to twice as tall, filling an ellipse-like share of its box, that holds two dark
 *   features side by side in its upper part — eyes, or eyebrows — level with each other and either side
 *   of its middle. Its box runs from the hairline to the chin, cheek to cheek, as a face detector's does.
 * - A plate is a bright, unsaturated (white) or yellow rectangle, 2 to 6.5 times as wide as tall, filled
 *   but for at least three dark marks inside it that are characters: each between a third and nine tenths
 *   of its height, not reaching its edges, side by side.
 *
 * It finds the drawn people and cars of test/support/scenes-personnes.ts from the pixels alone (the tests
 * check its boxes against the drawing's), and nothing in the project's other scenes (rooms, facades,
 * gardens). What it cannot: a face in profile, in shadow or not skin-coloured by that box (it is a
 * colour rule, with the biases colour rules have), a face too small for its eyes to show on the copy
 * (below about 16 px across at 1280 px), a plate seen at an angle or dirty, a plate's text alone.
 * Production uses Rekognition (bedrock/rekognition-personnes.ts).
 */
import { composantes, type Composante } from '../commun/masques';
import { aLEchelle, luminance, type Pixels } from '../commun/pixels';
import { fusionner, type DetecteurPersonnes, type Genre, type RegionPersonnelle } from '../commun/personnes';

const COTE_ANALYSE = 1280;
const CONFIANCE = 0.6;

/**
 * The holes of component `n` (label) within its box: what is not the component and cannot reach the
 * box's border without crossing it. Returned as components in box coordinates, with the box's mask.
 */
const trous = (etiquettes: Int32Array, n: number, c: Composante, l: number) => {
  const [bl, bh] = [c.x1 - c.x0, c.y1 - c.y0];
  const dehors = new Uint8Array(bl * bh);
  const pile: number[] = [];
  const est = (x: number, y: number) => etiquettes[(c.y0 + y) * l + c.x0 + x] === n;
  for (let x = 0; x < bl; x++) for (const y of [0, bh - 1]) if (!est(x, y) && !dehors[y * bl + x]) ((dehors[y * bl + x] = 1), pile.push(y * bl + x));
  for (let y = 0; y < bh; y++) for (const x of [0, bl - 1]) if (!est(x, y) && !dehors[y * bl + x]) ((dehors[y * bl + x] = 1), pile.push(y * bl + x));
  while (pile.length) {
    const p = pile.pop()!;
    const [x, y] = [p % bl, (p / bl) | 0];
    for (const [qx, qy] of [
      [x - 1, y],
      [x + 1, y],
      [x, y - 1],
      [x, y + 1],
    ] as const) {
      if (qx < 0 || qy < 0 || qx >= bl || qy >= bh) continue;
      const q = qy * bl + qx;
      if (dehors[q] || est(qx, qy)) continue;
      dehors[q] = 1;
      pile.push(q);
    }
  }
  const trou = new Uint8Array(bl * bh);
  for (let y = 0; y < bh; y++) for (let x = 0; x < bl; x++) if (!est(x, y) && !dehors[y * bl + x]) trou[y * bl + x] = 1;
  return { ...composantes(trou, bl, bh), trou, bl, bh };
};

/** Skin by the YCbCr box of Chai and Ngan (Cb 77–127, Cr 133–173), narrowed so that beige plaster and sand (Cr 134–139, Cb up to 120) are not skin; not dark. */
const peau = (r: number, g: number, b: number): boolean => {
  const y = luminance(r, g, b);
  const cb = 128 - 0.168736 * r - 0.331264 * g + 0.5 * b;
  const cr = 128 + 0.5 * r - 0.418688 * g - 0.081312 * b;
  return y >= 80 && cb >= 77 && cb <= 122 && cr >= 140 && cr <= 173;
};

/** White (bright, unsaturated) or plate yellow. */
const fondPlaque = (r: number, g: number, b: number): boolean => {
  const s = Math.max(r, g, b) - Math.min(r, g, b);
  return (luminance(r, g, b) >= 150 && s <= 40) || (r >= 170 && g >= 140 && b <= 110 && r - g <= 60);
};

/** Median luminance of the component's own pixels. */
const lumiereMediane = (a: Pixels, etiquettes: Int32Array, n: number, c: Composante): number => {
  const valeurs: number[] = [];
  for (let y = c.y0; y < c.y1; y++)
    for (let x = c.x0; x < c.x1; x++) {
      const p = y * a.largeur + x;
      if (etiquettes[p] === n) valeurs.push(luminance(a.data[p * 3]!, a.data[p * 3 + 1]!, a.data[p * 3 + 2]!));
    }
  valeurs.sort((u, v) => u - v);
  return valeurs[valeurs.length >> 1] ?? 0;
};

/** The dark holes of a component: each hole's box (box coordinates) and darkest luminance. */
const marquesSombres = (a: Pixels, etiquettes: Int32Array, n: number, c: Composante, seuil: number) => {
  const t = trous(etiquettes, n, c, a.largeur);
  const plusSombre = new Float64Array(t.liste.length).fill(255);
  for (let y = 0; y < t.bh; y++)
    for (let x = 0; x < t.bl; x++) {
      const e = t.etiquettes[y * t.bl + x];
      if (!e) continue;
      const p = (c.y0 + y) * a.largeur + c.x0 + x;
      plusSombre[e - 1] = Math.min(plusSombre[e - 1]!, luminance(a.data[p * 3]!, a.data[p * 3 + 1]!, a.data[p * 3 + 2]!));
    }
  const aireTrous = t.liste.reduce((s, h) => s + h.aire, 0);
  return { marques: t.liste.filter((_, i) => plusSombre[i]! < seuil), aireTrous };
};

const visages = (a: Pixels): RegionPersonnelle[] => {
  const { largeur: l, hauteur: h, data } = a;
  const masque = new Uint8Array(l * h);
  for (let p = 0; p < l * h; p++) masque[p] = peau(data[p * 3]!, data[p * 3 + 1]!, data[p * 3 + 2]!) ? 1 : 0;
  const { etiquettes, liste } = composantes(masque, l, h);
  const trouves: RegionPersonnelle[] = [];
  liste.forEach((c, i) => {
    const [bl, bh] = [c.x1 - c.x0, c.y1 - c.y0];
    if (bl < 16 || bh < 16 || bl > 0.4 * l || bh / bl < 0.8 || bh / bl > 1.9) return;
    const { marques, aireTrous } = marquesSombres(a, etiquettes, i + 1, c, 0.6 * lumiereMediane(a, etiquettes, i + 1, c));
    const remplissage = (c.aire + aireTrous) / (bl * bh);
    if (remplissage < 0.6 || remplissage > 0.92) return;
    // Eyes or eyebrows: a pair of dark marks in the upper part, level, either side of the middle.
    const hautes = marques.filter((m) => {
      const cy = (m.y0 + m.y1) / 2 / bh;
      return cy > 0.08 && cy < 0.6 && m.aire >= 0.0015 * bl * bh && m.aire <= 0.08 * bl * bh && m.x1 - m.x0 < 0.45 * bl;
    });
    const centre = (m: Composante) => [(m.x0 + m.x1) / 2, (m.y0 + m.y1) / 2] as const;
    const paire = hautes.some((g) =>
      hautes.some((d) => {
        const [[gx, gy], [dx, dy]] = [centre(g), centre(d)];
        const ecart = (dx - gx) / bl;
        return (
          gx < bl / 2 &&
          dx > bl / 2 &&
          ecart > 0.25 &&
          ecart < 0.75 &&
          Math.abs(dy - gy) < 0.1 * bh &&
          Math.abs((gx + dx) / 2 - bl / 2) < 0.12 * bl &&
          Math.max(g.aire, d.aire) < 3 * Math.min(g.aire, d.aire)
        );
      }),
    );
    if (paire) trouves.push({ genre: 'visage', boite: { x0: c.x0 / l, y0: c.y0 / h, x1: c.x1 / l, y1: c.y1 / h }, confiance: CONFIANCE });
  });
  return trouves;
};

const plaques = (a: Pixels): RegionPersonnelle[] => {
  const { largeur: l, hauteur: h, data } = a;
  const masque = new Uint8Array(l * h);
  for (let p = 0; p < l * h; p++) masque[p] = fondPlaque(data[p * 3]!, data[p * 3 + 1]!, data[p * 3 + 2]!) ? 1 : 0;
  const { etiquettes, liste } = composantes(masque, l, h);
  const trouves: RegionPersonnelle[] = [];
  liste.forEach((c, i) => {
    const [bl, bh] = [c.x1 - c.x0, c.y1 - c.y0];
    if (bh < 6 || bl / bh < 2 || bl / bh > 6.5 || bl > 0.5 * l) return;
    const { marques, aireTrous } = marquesSombres(a, etiquettes, i + 1, c, 0.5 * lumiereMediane(a, etiquettes, i + 1, c));
    if ((c.aire + aireTrous) / (bl * bh) < 0.85) return;
    // Characters: as tall as a character is on a plate, clear of its edges, narrow.
    const caracteres = marques.filter((m) => {
      const mh = m.y1 - m.y0;
      return mh >= 0.35 * bh && mh <= 0.9 * bh && m.y0 > 0 && m.y1 < bh && m.x1 - m.x0 <= 0.3 * bl;
    });
    if (caracteres.length < 3) return;
    // Side by side: their middles within a quarter of the height of one another.
    const milieux = caracteres.map((m) => (m.y0 + m.y1) / 2).sort((u, v) => u - v);
    if (milieux[milieux.length - 1]! - milieux[0]! > 0.25 * bh) return;
    trouves.push({ genre: 'plaque', boite: { x0: c.x0 / l, y0: c.y0 / h, x1: c.x1 / l, y1: c.y1 / h }, confiance: CONFIANCE });
  });
  return trouves;
};

/** The colour rules alone: the drawn people and cars of the tests, nothing a model is needed for. */
export const detecteurCouleurs: DetecteurPersonnes = {
  nom: 'local-couleurs',
  async detecter(photo: Pixels, genres: ReadonlySet<Genre>): Promise<RegionPersonnelle[]> {
    if (genres.size === 0) return [];
    const analyse = await aLEchelle(photo, COTE_ANALYSE);
    return [...(genres.has('visage') ? visages(analyse) : []), ...(genres.has('plaque') ? plaques(analyse) : [])];
  },
};

/**
 * The local engine's detector: faces by BlazeFace (visages-blazeface.ts), plates by the text detector
 * on the vehicles NanoDet finds (plaques-ocr.ts) and by the colour rule; each model loaded at the first
 * job that asks for its kind, so a cold start without a blur pays nothing. What two of them found is
 * one region (personnes.ts, `fusionner`). The colour rule for faces is left out: BlazeFace finds the
 * drawn faces of the tests too (scores above 0.9), and on photographs the rule took a door and a lit
 * window for faces, which a job would then have reported as blurred.
 */
export const detecteurPersonnesLocal: DetecteurPersonnes = {
  nom: 'local',
  // The preview's edits move and add no one (a fill copies floor and wall, staging draws furniture): the photo before the edit is enough.
  photoSuffit: true,
  async detecter(photo: Pixels, genres: ReadonlySet<Genre>): Promise<RegionPersonnelle[]> {
    const trouves: RegionPersonnelle[] = [];
    if (genres.has('visage')) {
      const { trouverVisages } = await import('./visages-blazeface');
      trouves.push(...(await trouverVisages(photo)));
    }
    if (genres.has('plaque')) {
      const { trouverPlaques } = await import('./plaques-ocr');
      trouves.push(...(await detecteurCouleurs.detecter(photo, new Set(['plaque']))), ...(await trouverPlaques(photo)));
    }
    return fusionner(trouves);
  },
};
