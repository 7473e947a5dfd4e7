/**
 * Windows and doors found from the photo's own light and edges: what protects them when the detector
 * does not box them. Rekognition documents instance boxes only "for common object labels such as
 * people, cars, furniture, apparel or pets" (issue 28, point 4): a Window or a Door may come back as a
 * label without a box, and then vider's mask would not spare it and the structure check would have no
 * fixed lines. No open window detector ships in npm under a licence for commercial use, so this is our
 * own rule, the same in both engines (bedrock/rekognition.ts, local/detecteur-local.ts).
 *
 * What it looks for: an upright rectangle set apart from the wall around it by its light (a window is
 * darker than a facade by day, lighter than it at dusk and at night, bright and often blown out seen
 * from inside), whose four sides lie on edges. Regions are cut from the contrast with the local mean
 * light, at two scales and three levels (a window's contrast is not known in advance), and, inside,
 * from the brightest of the photo. One counts when:
 * - it spans its box row by row and column by column (the panes, glazing bars and what stands on the
 *   sill are holes inside those spans; a shadow, a diagonal or an L leaves the box's corners empty);
 * - each side of its box lies on an edge along most of its middle;
 * - it stands out from the wall on at least three of its four sides by two and a half times that
 *   wall's own spread: a plain wall around it, not foliage, clutter or a pattern, where any patch
 *   stands out a little; the fourth side may be a plant or a wardrobe beside it, or the floor at a
 *   door's foot;
 * - it does not touch the frame: a cropped shape could be anything, and the sky, which a window's
 *   light and straight roofline could imitate, reaches the top of the frame (the sky detector,
 *   ciel-masque.ts, costs more than this whole rule on a 12 MP photo and changed nothing on test/photos).
 * Unless the photo is known to be an interior (an indoor object found), a window must also be one of
 * a row or a column of its like, a facade's rhythm: a lone dark rectangle on a street is as likely a
 * sign, a shop's shade or a parked van's window. A tall one whose foot is in the lower half of the
 * frame is called a door, and needs no rhythm but a clearer contrast.
 *
 * Measured on the 32 real photos of test/photos (`npm run bench:detecteurs`): precision before recall,
 * since a false window is a hole in vider's mask: 32 of 168 windows and doors at IoU ≥ 0.5, 22 other
 * boxes (most of them windows the facades' partial truth leaves out), 17–19 % of the true windows'
 * area covered, 0.1 % of the frame boxed where no fixed element is. Lit or dark windows in rows on a
 * facade at dusk or at night are found best (about half); windows split by white mullions into small panes, shutters, glass that
 * reflects the wall's own light, and inside, blown-out windows that run into a white wall, windows
 * whose view (trees, a street) breaks the glass into pieces, and those cut by the frame are missed.
 * Its boxes are the glass and frame seen, not the sill or the reveal (zones.ts grows fixed boxes).
 */
import { copieAnalyse } from './ciel-masque';
import type { ObjetDetecte } from './detection';
import { aireCommune, composantes, sommesRectangles, type Composante } from './masques';
import { luminance, type Pixels } from './pixels';

export interface ContexteFenetres {
  /** The photo is known to be taken inside (detection.ts preuveDInterieur): no facade rhythm asked, the brightest looked at. */
  interieur?: boolean;
}

/** A window or a door found, in pixels of the analysis copy. */
export interface Ouverture {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  /** 0–1: how clearly it stands out from the wall, times the share of its sides on edges. */
  score: number;
  porte: boolean;
}

/** Local mean light over a square of these shares of the long side: wider than a facade's window, then than a room's. */
const RAYONS = [0.04, 0.12];
/** Contrast levels with the local mean (luma steps). */
const NIVEAUX = [14, 26, 44];
/** Inside, what the sensor clips: a window on a bright day, whatever the wall's light. */
const EBLOUI = 245;
/** Inside, the brightest shares of the photo (quantiles of its luma), never under the second bound. */
const [CLAIRS, CLAIR_MIN] = [[0.97, 0.92], 160];
/** Luma step across a side, per pixel (half the central difference): a frame, not texture. */
const BORD = 5;
/** Each side on an edge along at least this share of its middle. */
const APPUI_MIN = 0.4;
/** The region covers at least this share of its box… */
const REMPLISSAGE_MIN = 0.6;
/** …and spans it, row by row and column by column, over at least this share (`etendue`); a bright one inside, less. */
const [ETENDUE_MIN, ETENDUE_CLAIR] = [0.78, 0.5];
/** Contrast with the wall on a side, in that wall's standard deviations (plus the grain, 3 luma steps), on three sides of four. */
const DETACHEMENT_MIN = 2.5;
/** A bright region inside, whose span is looser, and a door, which needs no rhythm, must stand out more. */
const [DETACHEMENT_CLAIR, DETACHEMENT_PORTE] = [3, 3.5];
/** Above this detachment, full score. */
const DETACHEMENT_PLEIN = 5;
/**
 * Smallest box, as a share of the frame: under it, a vent, a sign's letter, a tile; inside, where no
 * rhythm confirms a window, a switch, a label or a glazed panel of a door are that small too.
 */
const [AIRE_MIN_DEHORS, AIRE_MIN_DEDANS] = [0.0006, 0.002];
/** Largest box: a facade's window, or a room's bay (a larger bright area is a wall in the sun or the sky). */
const [AIRE_MAX_DEHORS, AIRE_MAX_DEDANS] = [0.06, 0.2];
/** Height over width: from a square sash to a narrow casement; seen from inside, a glazed strip beside a door. */
const [ELANCEMENT_MIN, ELANCEMENT_MAX, ELANCEMENT_MAX_CLAIR] = [0.6, 4.5, 7];
/** Two windows of one facade: sizes within this share of each other, centres within this share of a size. */
const [RYTHME_TAILLE, RYTHME_ALIGNEMENT] = [0.5, 0.3];

/** A component of a cut mask, with the label it carries in `etiquettes`. */
type Region = Composante & { id: number };

/** How fully a region spans its box, row by row and column by column, from its first pixel to its last: the lower of the two. */
const etendue = (r: Region, etiquettes: Int32Array, l: number): number => {
  let [lignes, colonnes] = [0, 0];
  for (let y = r.y0; y < r.y1; y++) {
    let [a, b] = [-1, -1];
    for (let x = r.x0; x < r.x1; x++) if (etiquettes[y * l + x] === r.id) ((b = x), a < 0 && (a = x));
    if (a >= 0) lignes += b - a + 1;
  }
  for (let x = r.x0; x < r.x1; x++) {
    let [a, b] = [-1, -1];
    for (let y = r.y0; y < r.y1; y++) if (etiquettes[y * l + x] === r.id) ((b = y), a < 0 && (a = y));
    if (a >= 0) colonnes += b - a + 1;
  }
  return Math.min(lignes, colonnes) / ((r.x1 - r.x0) * (r.y1 - r.y0));
};

/** The largest of intersection over union and the share of either box inside the other. */
const chevauchement = (a: Ouverture, b: Ouverture): number => {
  const i = aireCommune(a, b);
  const [aa, bb] = [(a.x1 - a.x0) * (a.y1 - a.y0), (b.x1 - b.x0) * (b.y1 - b.y0)];
  return Math.max(i / (aa + bb - i), i / aa, i / bb);
};

/** A facade's rhythm: another window of about the same size in the same row or column. */
const enRythme = (c: Ouverture, autres: readonly Ouverture[]): boolean =>
  autres.some((o) => {
    if (o === c) return false;
    const [w, hh, wo, ho] = [c.x1 - c.x0, c.y1 - c.y0, o.x1 - o.x0, o.y1 - o.y0];
    if (Math.abs(w - wo) > RYTHME_TAILLE * Math.max(w, wo) || Math.abs(hh - ho) > RYTHME_TAILLE * Math.max(hh, ho)) return false;
    return Math.abs(c.y0 + c.y1 - o.y0 - o.y1) < 2 * RYTHME_ALIGNEMENT * hh || Math.abs(c.x0 + c.x1 - o.x0 - o.x1) < 2 * RYTHME_ALIGNEMENT * w;
  });

/** The analysis copy's light, measured once for all the cuts: its luma, the luma's box sums, its steps. */
interface Lumiere {
  l: number;
  h: number;
  L: Float32Array;
  /** Pixels per rounded luma, for the brightest shares of the photo. */
  histogramme: Float64Array;
  somme: (x0: number, y0: number, x1: number, y1: number) => number;
  somme2: (x0: number, y0: number, x1: number, y1: number) => number;
  /** Luma steps along the row and along the column (half the central difference): a vertical edge, a horizontal one. */
  gx: Float32Array;
  gy: Float32Array;
}

const mesurerLumiere = ({ largeur: l, hauteur: h, data }: Pixels): Lumiere => {
  const n = l * h;
  const L = new Float32Array(n);
  const histogramme = new Float64Array(256);
  for (let p = 0; p < n; p++) {
    L[p] = luminance(data[p * 3]!, data[p * 3 + 1]!, data[p * 3 + 2]!);
    histogramme[Math.min(255, Math.round(L[p]!))]!++;
  }
  const somme = sommesRectangles(l, h, (p) => L[p]!);
  const somme2 = sommesRectangles(l, h, (p) => L[p]! * L[p]!);
  const gx = new Float32Array(n);
  const gy = new Float32Array(n);
  for (let y = 1; y < h - 1; y++)
    for (let x = 1; x < l - 1; x++) {
      const p = y * l + x;
      gx[p] = Math.abs(L[p + 1]! - L[p - 1]!) / 2;
      gy[p] = Math.abs(L[p + l]! - L[p - l]!) / 2;
    }
  return { l, h, L, histogramme, somme, somme2, gx, gy };
};

/** Share of a side's middle (its ends are corners, often rounded or hidden) on an edge, within a pixel of it. */
const appui = ({ l, h, gx, gy }: Lumiere, vertical: boolean, fixe: number, a: number, b: number) => {
  const [d, f] = [a + Math.floor(0.1 * (b - a)), b - Math.floor(0.1 * (b - a))];
  let oui = 0;
  for (let t = d; t < f; t++) {
    let m = 0;
    for (let u = Math.max(1, fixe - 1); u <= Math.min((vertical ? l : h) - 2, fixe + 1); u++) m = Math.max(m, vertical ? gx[t * l + u]! : gy[u * l + t]!);
    if (m >= BORD) oui++;
  }
  return oui / Math.max(1, f - d);
};

const moyenneEtEcart = ({ somme, somme2 }: Lumiere, x0: number, y0: number, x1: number, y1: number) => {
  const a = (x1 - x0) * (y1 - y0);
  const moyenne = somme(x0, y0, x1, y1) / a;
  return { moyenne, ecart: Math.sqrt(Math.max(0, somme2(x0, y0, x1, y1) / a - moyenne * moyenne)) };
};

/** How one cut is read: lighter (`sens` +1) or darker (-1) than the wall, a bright cut inside (`clair`), and the box sizes allowed. */
interface Coupe {
  sens: number;
  clair: boolean;
  aireMin: number;
  aireMax: number;
}

/** A region of a cut as a window or a door, or null when its shape, sides or contrast with the wall say otherwise. */
const examiner = (m: Lumiere, c: Region, etiquettes: Int32Array, { sens, clair, aireMin, aireMax }: Coupe): Ouverture | null => {
  const { l, h } = m;
  const [w, hh] = [c.x1 - c.x0, c.y1 - c.y0];
  if (w * hh < aireMin || w * hh > aireMax || hh < ELANCEMENT_MIN * w || hh > (clair ? ELANCEMENT_MAX_CLAIR : ELANCEMENT_MAX) * w) return null;
  if (c.x0 === 0 || c.y0 === 0 || c.x1 === l || c.y1 === h) return null;
  if (!clair && c.aire < REMPLISSAGE_MIN * w * hh) return null;
  // The sides first: they cost a perimeter, the span an area.
  const cotes = [
    appui(m, true, c.x0, c.y0, c.y1),
    appui(m, true, c.x1 - 1, c.y0, c.y1),
    appui(m, false, c.y0, c.x0, c.x1),
    appui(m, false, c.y1 - 1, c.x0, c.x1),
  ];
  if (Math.min(...cotes) < APPUI_MIN || etendue(c, etiquettes, l) < (clair ? ETENDUE_CLAIR : ETENDUE_MIN)) return null;
  const porte = hh >= 1.8 * w && hh >= 0.2 * h && c.y1 >= 0.5 * h;
  // The wall on each side, past the frame's own edge, in a band a third of the window wide: a
  // window stands out from at least three of them (a plant or a wardrobe may stand on the fourth,
  // and the floor meets a door's foot).
  const e = Math.max(2, Math.round(0.3 * Math.min(w, hh)));
  const dedans = moyenneEtEcart(m, c.x0, c.y0, c.x1, c.y1).moyenne;
  const bandes = [
    [c.x0 - 2 - e, c.y0, c.x0 - 2, c.y1],
    [c.x1 + 2, c.y0, c.x1 + 2 + e, c.y1],
    [c.x0, c.y0 - 2 - e, c.x1, c.y0 - 2],
    [c.x0, c.y1 + 2, c.x1, c.y1 + 2 + e],
  ].map(([x0, y0, x1, y1]) => {
    const [a0, b0, a1, b1] = [Math.max(0, x0!), Math.max(0, y0!), Math.min(l, x1!), Math.min(h, y1!)];
    if (a1 - a0 < 1 || b1 - b0 < 1) return 0;
    const mur = moyenneEtEcart(m, a0, b0, a1, b1);
    return (sens * (dedans - mur.moyenne)) / (mur.ecart + 3);
  });
  const detachement = bandes.sort((a, b) => b - a)[2]!;
  if (detachement < Math.max(clair ? DETACHEMENT_CLAIR : DETACHEMENT_MIN, porte ? DETACHEMENT_PORTE : 0)) return null;
  const droiture = cotes.reduce((s, v) => s + v, 0) / 4;
  return { x0: c.x0, y0: c.y0, x1: c.x1, y1: c.y1, score: Math.min(1, detachement / DETACHEMENT_PLEIN) * droiture, porte };
};

/** The mean light around each pixel, over a square of `rayon` of the long side, into `fond`. */
const moyenneLocale = ({ l, h, somme }: Lumiere, rayon: number, fond: Float32Array): void => {
  const r = Math.max(3, Math.round(rayon * Math.max(l, h)));
  for (let y = 0; y < h; y++) {
    const [y0, y1] = [Math.max(0, y - r), Math.min(h, y + r + 1)];
    for (let x = 0; x < l; x++) {
      const [x0, x1] = [Math.max(0, x - r), Math.min(l, x + r + 1)];
      fond[y * l + x] = somme(x0, y0, x1, y1) / ((x1 - x0) * (y1 - y0));
    }
  }
};

/** Inside, the luma thresholds of the brightest: what the sensor clips, and the brightest shares of the photo. */
const seuilsClairs = ({ histogramme, l, h }: Lumiere): number[] => {
  const quantile = (q: number) => {
    let cumul = 0;
    for (let v = 0; v < 256; v++) if ((cumul += histogramme[v]!) >= q * (l * h)) return v;
    return 255;
  };
  return [EBLOUI, ...CLAIRS.map((q) => Math.max(CLAIR_MIN, quantile(q)))];
};

/** The windows and doors of a photo, in pixels of its analysis copy (`largeur` × `hauteur`, ciel-masque.ts copieAnalyse). */
export const ouvertures = async (photo: Pixels, { interieur = false }: ContexteFenetres = {}) => {
  const m = mesurerLumiere(await copieAnalyse(photo));
  const { l, h, L } = m;
  const n = l * h;
  const [aireMin, aireMax] = interieur ? [AIRE_MIN_DEDANS * n, AIRE_MAX_DEDANS * n] : [AIRE_MIN_DEHORS * n, AIRE_MAX_DEHORS * n];
  const candidats: Ouverture[] = [];
  const masque = new Uint8Array(n);
  /** Each component of the cut mask, examined as lighter (`sens` +1) or darker (-1) than the wall. */
  const examinerCoupe = (sens: number, clair: boolean) => {
    const { etiquettes, liste } = composantes(masque, l, h);
    liste.forEach((c, i) => {
      const trouvee = examiner(m, { ...c, id: i + 1 }, etiquettes, { sens, clair, aireMin, aireMax });
      if (trouvee) candidats.push(trouvee);
    });
  };
  const fond = new Float32Array(n);
  for (const rayon of RAYONS) {
    moyenneLocale(m, rayon, fond);
    for (const sens of [1, -1])
      for (const niveau of NIVEAUX) {
        for (let p = 0; p < n; p++) masque[p] = sens * (L[p]! - fond[p]!) >= niveau ? 1 : 0;
        examinerCoupe(sens, false);
      }
  }
  if (interieur) {
    // Seen from inside, a window is among the brightest of the photo, whatever the wall's light around it.
    for (const seuil of seuilsClairs(m)) {
      for (let p = 0; p < n; p++) masque[p] = L[p]! >= seuil ? 1 : 0;
      examinerCoupe(1, true);
    }
  }
  // The same window is cut at several levels and scales: its best cut.
  const gardes: Ouverture[] = [];
  for (const c of candidats.sort((a, b) => b.score - a.score)) if (!gardes.some((g) => chevauchement(c, g) > 0.5)) gardes.push(c);
  return { ouvertures: interieur ? gardes : gardes.filter((c) => c.porte || enRythme(c, gardes)), largeur: l, hauteur: h };
};

/** The windows and doors found, as the detector interface's fixed objects. */
export const trouverFenetres = async (photo: Pixels, contexte: ContexteFenetres = {}): Promise<ObjetDetecte[]> => {
  const { ouvertures: trouvees, largeur: l, hauteur: h } = await ouvertures(photo, contexte);
  return trouvees.map((c) => ({
    nom: c.porte ? 'Door' : 'Window',
    nature: 'fixe',
    boite: { x0: c.x0 / l, y0: c.y0 / h, x1: c.x1 / l, y1: c.y1 / h },
    confiance: c.score,
  }));
};

/** Share of a found box inside a detector's box that makes it the same element, or part of that piece of furniture. */
const DEDANS = 0.5;

const partDans = (a: ObjetDetecte['boite'], b: ObjetDetecte['boite']): number => aireCommune(a, b) / Math.max(1e-9, (a.x1 - a.x0) * (a.y1 - a.y0));

/**
 * The detector's objects, with the windows and doors found here that it did not box: not one half
 * inside a fixed element it boxed (the same window: a trained detector's box is the better one), nor
 * one half inside a piece of furniture it boxed (a detector that names a bed or a television is more
 * sure of it than this rule is of a bright or dark rectangle there: a white pillow, a screen, a
 * picture on a dresser; a false window inside a bed's box would leave part of the bed in vider's
 * result). A window behind a sofa stays: what this rule sees of it is the glass above the sofa.
 */
export const avecOuvertures = (objets: readonly ObjetDetecte[], trouvees: readonly ObjetDetecte[]): ObjetDetecte[] => [
  ...objets,
  ...trouvees.filter((t) => !objets.some((o) => partDans(t.boite, o.boite) >= DEDANS)),
];
