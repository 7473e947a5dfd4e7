/**
 * Photos for judging whether a result kept the fixed structure of a room or a building: a room seen
 * from its doorway (walls in perspective, the floor/wall and ceiling/wall junctions, a window with its
 * frame and glazing bars, a door with its architrave, a radiator) and a house front (the outline of
 * the walls, roof and chimney against the sky, two rows of windows, a door). Each is drawn from a
 * description, so an unfaithful result (a window moved, painted over or added, a door moved, the roof
 * raised) is the same scene drawn from another description, and a faithful one (walls recoloured, the
 * floor changed, furniture) too: a model redraws the whole photo, with its own grain.
 *
 * Texture that is not structure, as a photo has it: plaster, floor planks or tile joints, roof tiles,
 * brick joints, foliage, radiator fins, and sensor grain stronger in the shadows.
 *
 * Deterministic: seeded hashes only. About 0.2 s per scene at 1200 × 800, a few seconds at 12 MP.
 */
import sharp from 'sharp';
import { depuisPixels, versPixels, type Pixels } from '../../lambdas/moteurs/commun/pixels';
import { fbm, fois, hachage, melange, type Rgb } from './scenes-lumiere';

// The same seeded hash, value noise and colour arithmetic as the light scenes.
/** A rectangle in fractions of the frame (x of the width, y of the height). */
export interface Boite {
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}
const dans = (b: Boite, fx: number, fy: number) => fx >= b.x0 && fx < b.x1 && fy >= b.y0 && fy < b.y1;
const decalee = (b: Boite, dx: number, dy = 0): Boite => ({ x0: b.x0 + dx, x1: b.x1 + dx, y0: b.y0 + dy, y1: b.y1 + dy });

/** One pixel of a scene before the camera, from its position in fractions of the frame and in pixels. */
type Rendu = (fx: number, fy: number, x: number, y: number) => Rgb;

/** Vignette, triangular grain stronger in the shadows and a little chroma noise, seeded by `graine`. */
const photographier = (rendu: Rendu, graine: number, largeur: number, hauteur: number): Pixels => {
  const data = Buffer.alloc(largeur * hauteur * 3);
  for (let y = 0; y < hauteur; y++) {
    for (let x = 0; x < largeur; x++) {
      const [fx, fy] = [(x + 0.5) / largeur, (y + 0.5) / hauteur];
      const c = rendu(fx, fy, x, y);
      const p = y * largeur + x;
      const vignette = 1 - 0.2 * ((fx - 0.5) ** 2 + (fy - 0.5) ** 2);
      const l = (c[0] + c[1] + c[2]) / 765;
      const g = (hachage(x, y, graine) + hachage(x, y, graine + 7) - 1) * (5 + 7 * (1 - l));
      for (let k = 0; k < 3; k++) {
        const v = c[k]! * vignette + g + (hachage(x, y, graine + 11 + k) - 0.5) * 3;
        data[p * 3 + k] = Math.max(0, Math.min(255, Math.round(v)));
      }
    }
  }
  return { data, largeur, hauteur };
};

// ——— The room ———

export interface Piece {
  mur: Rgb;
  plafond: Rgb;
  sol: 'chene' | 'carrelage';
  fenetres: Boite[];
  porte: Boite | null;
  radiateur: Boite | null;
  /** A sofa and a coffee table at the left, in front of the side wall and the floor. */
  meubles: boolean;
  /** The camera's grain: a model's answer has its own. */
  grain: number;
}

/** The back wall, in fractions of the frame: everything fixed below stands on it. */
const FOND: Boite = { x0: 0.2, x1: 0.8, y0: 0.18, y1: 0.72 };

export const PIECE: Piece = {
  mur: [206, 198, 184],
  plafond: [226, 224, 218],
  sol: 'chene',
  fenetres: [{ x0: 0.3, x1: 0.5, y0: 0.27, y1: 0.56 }],
  porte: { x0: 0.62, x1: 0.73, y0: 0.33, y1: FOND.y1 },
  radiateur: { x0: 0.32, x1: 0.48, y0: 0.6, y1: 0.68 },
  meubles: false,
  grain: 1,
};

/** Where the sofa and the table stand, for a region that leaves them out. */
export const MEUBLES: Boite = { x0: 0.02, x1: 0.3, y0: 0.56, y1: 0.96 };

const vue = (u: number, v: number): Rgb =>
  v < 0.55
    ? melange([168, 196, 232], [214, 226, 240], v / 0.55)
    : fois(melange([98, 132, 74], [70, 104, 56], fbm(u, v, 9, 31)), 0.8 + 0.4 * hachage(Math.floor(u * 90), Math.floor(v * 60), 32));

const fenetrePiece = (f: Boite, fx: number, fy: number): Rgb | null => {
  if (!dans(f, fx, fy)) return null;
  const [cx, cy] = [0.012, 0.018];
  const meneau = Math.abs(fx - (f.x0 + f.x1) / 2) < 0.005;
  const traverse = Math.abs(fy - (f.y0 + 0.38 * (f.y1 - f.y0))) < 0.007;
  if (fx < f.x0 + cx || fx >= f.x1 - cx || fy < f.y0 + cy || fy >= f.y1 - cy || meneau || traverse) return [246, 245, 241];
  return vue((fx - f.x0) / (f.x1 - f.x0), (fy - f.y0) / (f.y1 - f.y0));
};

const portePiece = (d: Boite, fx: number, fy: number): Rgb | null => {
  if (!dans(d, fx, fy)) return null;
  const c = 0.01;
  if (fx < d.x0 + c || fx >= d.x1 - c || fy < d.y0 + c * 1.5) return [250, 249, 246]; // architrave
  const [u, v] = [(fx - d.x0 - c) / (d.x1 - d.x0 - 2 * c), (fy - d.y0 - c * 1.5) / (d.y1 - d.y0 - c * 1.5)];
  if (u > 0.78 && u < 0.86 && v > 0.5 && v < 0.54) return [60, 58, 56]; // handle
  // Two panels, a low-contrast moulding: what a door leaf has.
  const panneau = u > 0.14 && u < 0.86 && ((v > 0.06 && v < 0.44) || (v > 0.52 && v < 0.94));
  const bord =
    panneau && (u < 0.17 || u > 0.83 || Math.abs(v - 0.06) < 0.012 || Math.abs(v - 0.44) < 0.012 || Math.abs(v - 0.52) < 0.012 || Math.abs(v - 0.94) < 0.012);
  return fois([150, 112, 78], (bord ? 0.86 : 1) * (0.9 + 0.16 * fbm(u * 0.3, v * 4, 10, 33)));
};

const radiateurPiece = (r: Boite, fx: number, fy: number): Rgb | null => {
  if (!dans(r, fx, fy)) return null;
  const ailette = ((fx - r.x0) / 0.007) % 1 < 0.35 ? 0.82 : 1;
  return fois([214, 214, 210], ailette * (fy > r.y1 - 0.006 ? 0.7 : 1));
};

const meublePiece = (fx: number, fy: number): Rgb | null => {
  // Sofa: back, seat, arm, cushions, two feet.
  if (fx > 0.03 && fx < 0.27 && fy > 0.6 && fy < 0.84) {
    const coussin = fy > 0.69 && Math.abs(((fx - 0.03) / 0.08) % 1) < 0.02;
    const assise = fy > 0.69 && fy < 0.71;
    return fois([70, 80, 98], (coussin || assise ? 0.7 : 1) * (0.9 + 0.15 * fbm(fx, fy, 60, 41)));
  }
  if (fy >= 0.84 && fy < 0.87 && ((fx > 0.05 && fx < 0.065) || (fx > 0.235 && fx < 0.25))) return [40, 32, 26];
  // Coffee table: top and legs.
  if (fx > 0.1 && fx < 0.29 && fy > 0.86 && fy < 0.885) return fois([128, 86, 54], 0.9 + 0.2 * fbm(fx * 4, fy, 20, 42));
  if (fy >= 0.885 && fy < 0.95 && ((fx > 0.11 && fx < 0.12) || (fx > 0.27 && fx < 0.28))) return [90, 60, 40];
  return null;
};

const piece =
  (o: Piece): Rendu =>
  (fx, fy, x, y) => {
    if (o.meubles) {
      const m = meublePiece(fx, fy);
      if (m) return m;
    }
    const f = FOND;
    const t = fy < f.y0 ? fy / f.y0 : fy > f.y1 ? (1 - fy) / (1 - f.y1) : 1;
    const [gauche, droite] = [f.x0 * t, 1 - (1 - f.x1) * t];
    const platre = 0.94 + 0.08 * fbm(fx, fy, 50, 2) + 0.02 * (hachage(x >> 1, y >> 1, 3) - 0.5);
    if (fy < f.y0 && fx > gauche && fx < droite) return fois(o.plafond, platre * (0.88 + 0.12 * (fy / f.y0)));
    if (fy > f.y1 && fx > gauche && fx < droite) {
      // Lines converging on the vanishing point (0.5, 0.45): plank joints, or tile joints and rows.
      const u = (fx - 0.5) / (fy - 0.45);
      const profondeur = 1 / (fy - 0.45);
      if (o.sol === 'chene') {
        const planche = Math.floor(u * 7);
        const joint = Math.abs(u * 7 - Math.round(u * 7)) < 0.02 * profondeur * 0.3;
        const k = 0.86 + 0.22 * hachage(planche, Math.floor(profondeur * 3 + hachage(planche, 0, 5) * 3), 4);
        return fois([176, 132, 92], (joint ? 0.8 : 1) * k * (0.92 + 0.12 * fbm(u * 3, profondeur * 0.2, 14, 6)));
      }
      const joint = Math.abs(u * 5 - Math.round(u * 5)) < 0.012 * profondeur * 0.3 || Math.abs(profondeur * 2.2 - Math.round(profondeur * 2.2)) < 0.03;
      return fois([196, 194, 188], (joint ? 0.84 : 1) * (0.95 + 0.08 * fbm(fx, fy, 40, 7)));
    }
    if (fx <= gauche || fx >= droite) return fois(o.mur, platre * (fx <= gauche ? 0.8 : 0.88));
    for (const fen of o.fenetres) {
      const c = fenetrePiece(fen, fx, fy);
      if (c) return c;
    }
    if (o.porte) {
      const c = portePiece(o.porte, fx, fy);
      if (c) return c;
    }
    if (o.radiateur) {
      const c = radiateurPiece(o.radiateur, fx, fy);
      if (c) return c;
    }
    // Skirting board along the floor junction.
    if (fy > f.y1 - 0.012) return fois(o.mur, 1.03);
    return fois(o.mur, platre);
  };

// ——— The house front ———

export interface Facade {
  enduit: Rgb;
  /** Eaves and ridge heights, in fractions of the height. */
  egout: number;
  faite: number;
  fenetres: Boite[];
  porte: Boite;
  grain: number;
}

const COLONNES = [0.27, 0.37, 0.47, 0.57, 0.67];
const fenetresFacade = (): Boite[] => {
  const f: Boite[] = [];
  for (const x of COLONNES) f.push({ x0: x, x1: x + 0.06, y0: 0.4, y1: 0.52 });
  for (const x of COLONNES) if (x !== 0.47) f.push({ x0: x, x1: x + 0.06, y0: 0.6, y1: 0.72 });
  return f;
};

export const FACADE: Facade = {
  enduit: [214, 198, 172],
  egout: 0.34,
  faite: 0.16,
  fenetres: fenetresFacade(),
  porte: { x0: 0.47, x1: 0.53, y0: 0.6, y1: 0.8 },
  grain: 1,
};

const MURS = { x0: 0.22, x1: 0.78, pied: 0.8 };

const facade =
  (o: Facade): Rendu =>
  (fx, fy, x, y) => {
    const m = MURS;
    // Chimney on the right slope, then the roof (its slopes from the ridge to the eaves).
    const pente = (o.egout - o.faite) / 0.3;
    if (fx > 0.62 && fx < 0.66 && fy > o.faite - 0.02 && fy < o.faite + (0.64 - 0.5) * pente + 0.02) {
      const rang = Math.floor(fy * 110);
      const joint = (fy * 110) % 1 < 0.2 || (fx * 90 + (rang % 2) * 0.5) % 1 < 0.08;
      return joint ? [170, 160, 150] : [150, 84, 62];
    }
    if (fx > m.x0 - 0.02 && fx < m.x1 + 0.02 && fy >= o.faite + Math.abs(fx - 0.5) * pente && fy < o.egout) {
      const rang = Math.floor((fy - o.faite) * 90);
      const tuile = 0.8 + 0.3 * hachage(Math.floor(fx * 70 + (rang % 2) * 0.5), rang, 13);
      return fois([122, 70, 54], tuile * (0.85 + 0.2 * (((fy - o.faite) * 90) % 1)));
    }
    if (fx > m.x0 && fx < m.x1 && fy >= o.egout && fy < m.pied) {
      for (const f of o.fenetres) {
        if (!dans(f, fx, fy)) continue;
        const [u, v] = [(fx - f.x0) / (f.x1 - f.x0), (fy - f.y0) / (f.y1 - f.y0)];
        const cadre = u < 0.1 || u > 0.9 || v < 0.08 || v > 0.92 || Math.abs(u - 0.5) < 0.04 || Math.abs(v - 0.4) < 0.035;
        return cadre ? [238, 238, 234] : melange([112, 134, 162], [46, 56, 72], v);
      }
      const d = o.porte;
      if (dans(d, fx, fy)) {
        const [u, v] = [(fx - d.x0) / (d.x1 - d.x0), (fy - d.y0) / (d.y1 - d.y0)];
        if (u < 0.08 || u > 0.92 || v < 0.05) return [238, 238, 234];
        return fois([58, 74, 96], 0.92 + 0.12 * fbm(u, v, 8, 14));
      }
      // Render with a fine stucco and a little dirt towards the ground.
      const stuc = 0.92 + 0.1 * fbm(fx, fy, 60, 15) + 0.04 * (hachage(x >> 1, y >> 1, 16) - 0.5);
      return fois(o.enduit, stuc * (1 - 0.06 * Math.max(0, (fy - 0.7) / 0.1)));
    }
    // Trees on both sides against the sky, a hedge at the foot of the walls.
    const horizon = 0.62;
    const cime = horizon - 0.06 - 0.12 * fbm(fx, 0, 16, 17);
    if ((fx < 0.18 || fx > 0.82) && fy >= cime && fy < MURS.pied) return fois([50, 82, 42], 0.5 + 0.9 * hachage(x >> 1, y >> 1, 18));
    if (fy < MURS.pied) {
      const bleu = melange([96, 150, 222], [192, 212, 236], Math.min(1, fy / 0.6));
      const n = fbm(fx, fy * 1.6, 5, 19);
      return melange(bleu, [244, 245, 248], Math.max(0, Math.min(1, (n - 0.5) / 0.3)) * 0.8);
    }
    return fois([96, 140, 62], 0.75 + 0.4 * hachage(Math.floor(fx * 500), Math.floor(fy * 150), 20));
  };

export const LARGEUR = 1200;
export const HAUTEUR = 800;

export const dessinerPiece = (o: Partial<Piece> = {}, largeur = LARGEUR, hauteur = HAUTEUR): Pixels => {
  const d = { ...PIECE, ...o };
  return photographier(piece(d), d.grain, largeur, hauteur);
};
export const dessinerFacade = (o: Partial<Facade> = {}, largeur = LARGEUR, hauteur = HAUTEUR): Pixels => {
  const d = { ...FACADE, ...o };
  return photographier(facade(d), d.grain, largeur, hauteur);
};

// ——— Edits a whole photo goes through ———

export const jpeg = async (p: Pixels, qualite: number): Promise<Pixels> => versPixels(sharp(await depuisPixels(p).jpeg({ quality: qualite }).toBuffer()));
export const flouter = async (p: Pixels, sigma: number): Promise<Pixels> => versPixels(depuisPixels(p).blur(sigma));
export const eclaircir = (p: Pixels, k: number): Pixels => ({ ...p, data: Buffer.from(p.data.map((v) => Math.min(255, Math.round(v * k)))) });
/** Contrast multiplied by `k` around mid-grey. */
export const contraste = (p: Pixels, k: number): Pixels => ({ ...p, data: Buffer.from(p.data.map((v) => Math.round(128 + (v - 128) * k))) });
/** The photo moved by (dx, dy) pixels; what enters the frame repeats the border. */
export const decaler = (p: Pixels, dx: number, dy: number): Pixels => {
  const { largeur: l, hauteur: h } = p;
  const data = Buffer.alloc(p.data.length);
  for (let y = 0; y < h; y++) {
    const ys = Math.min(h - 1, Math.max(0, y - dy));
    for (let x = 0; x < l; x++) {
      const xs = Math.min(l - 1, Math.max(0, x - dx));
      p.data.copy(data, (y * l + x) * 3, (ys * l + xs) * 3, (ys * l + xs) * 3 + 3);
    }
  }
  return { data, largeur: l, hauteur: h };
};
/** The photo enlarged by `k` about its centre and cropped back to its frame. */
export const agrandir = async (p: Pixels, k: number): Promise<Pixels> => {
  const [l, h] = [Math.round(p.largeur * k), Math.round(p.hauteur * k)];
  const grand = await depuisPixels(p).resize(l, h, { fit: 'fill' }).raw().toBuffer();
  return versPixels(
    sharp(grand, { raw: { width: l, height: h, channels: 3 } }).extract({
      left: (l - p.largeur) >> 1,
      top: (h - p.hauteur) >> 1,
      width: p.largeur,
      height: p.hauteur,
    }),
  );
};

/** The photo turned by `degres` about its centre and cropped back to its frame (a straightening). */
export const tourner = async (p: Pixels, degres: number): Promise<Pixels> => {
  const { data, info } = await depuisPixels(p).rotate(degres, { background: '#808080' }).raw().toBuffer({ resolveWithObject: true });
  return versPixels(
    sharp(data, { raw: { width: info.width, height: info.height, channels: 3 } }).extract({
      left: (info.width - p.largeur) >> 1,
      top: (info.height - p.hauteur) >> 1,
      width: p.largeur,
      height: p.hauteur,
    }),
  );
};

/** A region (one byte per pixel, 1 = compare) made of boxes widened by `marge` (fraction of the width). */
export const regionBoites = (boites: Boite[], largeur: number, hauteur: number, marge = 0.015): Uint8Array => {
  const r = new Uint8Array(largeur * hauteur);
  for (const b of boites) {
    const [x0, x1] = [Math.max(0, Math.floor((b.x0 - marge) * largeur)), Math.min(largeur, Math.ceil((b.x1 + marge) * largeur))];
    const [y0, y1] = [Math.max(0, Math.floor(b.y0 * hauteur - marge * largeur)), Math.min(hauteur, Math.ceil(b.y1 * hauteur + marge * largeur))];
    for (let y = y0; y < y1; y++) r.fill(1, y * largeur + x0, y * largeur + x1);
  }
  return r;
};

// ——— The cases the structure check is held to ———

export interface CasStructure {
  nom: string;
  /** What the result did, for the bench's table. */
  description: string;
  avant: Pixels;
  apres: Pixels;
  region: Uint8Array | null;
  /** Whether the result kept the structure (it must pass) or not (it must fail). */
  fidele: boolean;
}

/**
 * Every case at `largeur` × `hauteur`. The fixed elements of the room (what a detector would box):
 * the window, the door and the radiator, so that the furniture at the left stays outside the region.
 */
export const casStructure = async (largeur = LARGEUR, hauteur = HAUTEUR): Promise<CasStructure[]> => {
  const piece = (o: Partial<Piece> = {}) => dessinerPiece({ grain: 2, ...o }, largeur, hauteur);
  const maison = (o: Partial<Facade> = {}) => dessinerFacade({ grain: 2, ...o }, largeur, hauteur);
  const p0 = dessinerPiece({}, largeur, hauteur);
  const f0 = dessinerFacade({}, largeur, hauteur);
  const fen = PIECE.fenetres[0]!;
  const fixes = regionBoites([fen, PIECE.porte!, PIECE.radiateur!], largeur, hauteur);
  const d = Math.round(0.03 * largeur);
  // σ 2 px at 12 MP (4 000 px wide), in this scene's pixels.
  const sigma = Math.max(0.3, (2 * largeur) / 4000);
  const c = (nom: string, description: string, avant: Pixels, apres: Pixels, fidele: boolean, region: Uint8Array | null = null): CasStructure => ({
    nom,
    description,
    avant,
    apres,
    region,
    fidele,
  });
  return [
    c('identique', 'room, the same photo', p0, p0, true),
    c('murs-repeints', 'room, walls repainted sage green (redrawn)', p0, piece({ mur: [150, 170, 146] }), true),
    c('sol-change', 'room, oak floor replaced by grey tiles (redrawn), region: window, door, radiator', p0, piece({ sol: 'carrelage' }), true, fixes),
    c('jpeg-80', 'room, JPEG re-encoded at quality 80', p0, await jpeg(p0, 80), true),
    c('plus-doux', `room, softer: blurred σ ${sigma.toFixed(2)} px (σ 2 px at 12 MP)`, p0, await flouter(p0, sigma), true),
    c('decale-1px', 'room, moved 1 px right and down', p0, decaler(p0, 1, 1), true),
    c('plus-clair', 'room, brightness +15 %', p0, eclaircir(p0, 1.15), true),
    c('meubles-ajoutes', 'room, sofa and table added outside the region (window, door, radiator)', p0, piece({ meubles: true }), true, fixes),
    c('meubles-retires', 'room, sofa and table removed outside the region', dessinerPiece({ meubles: true }, largeur, hauteur), piece(), true, fixes),
    c('facade-identique', 'house, the same photo', f0, f0, true),
    c('facade-repeinte', 'house, render repainted light grey (redrawn)', f0, maison({ enduit: [198, 204, 206] }), true),
    c('facade-jpeg-80', 'house, JPEG re-encoded at quality 80', f0, await jpeg(f0, 80), true),
    c('facade-plus-douce', `house, softer: blurred σ ${sigma.toFixed(2)} px`, f0, await flouter(f0, sigma), true),
    c('facade-decalee-1px', 'house, moved 1 px right and down', f0, decaler(f0, 1, 1), true),
    c('facade-plus-claire', 'house, brightness +15 %', f0, eclaircir(f0, 1.15), true),

    c(
      'fenetre-deplacee',
      'room, the window moved sideways by 3 % of the width',
      p0,
      piece({ fenetres: [decalee(fen, 0.03)], radiateur: decalee(PIECE.radiateur!, 0.03) }),
      false,
    ),
    c('fenetre-muree', 'room, the window painted over with wall', p0, piece({ fenetres: [] }), false),
    c('fenetre-ajoutee', 'room, a second window added on the back wall', p0, piece({ fenetres: [fen, { x0: 0.52, x1: 0.6, y0: 0.27, y1: 0.5 }] }), false),
    c('porte-deplacee', 'room, the door moved sideways by 3 % of the width', p0, piece({ porte: decalee(PIECE.porte!, -0.03) }), false),
    c('toit-sureleve', 'house, eaves and ridge raised by 5 % of the height', f0, maison({ egout: FACADE.egout - 0.05, faite: FACADE.faite - 0.05 }), false),
    c('piece-decalee-3pc', 'room, the whole photo moved by 3 % (right and down)', p0, decaler(p0, d, Math.round(0.03 * hauteur)), false),
    c('piece-agrandie-3pc', 'room, the whole photo enlarged by 3 % about its centre', p0, await agrandir(p0, 1.03), false),
    c('facade-decalee-3pc', 'house, the whole photo moved by 3 % (right and down)', f0, decaler(f0, d, Math.round(0.03 * hauteur)), false),
    c('facade-agrandie-3pc', 'house, the whole photo enlarged by 3 % about its centre', f0, await agrandir(f0, 1.03), false),
  ];
};

/**
 * The region decides what counts: the room's window moved by 3 % of the width, compared inside a
 * region that leaves the window out (the door only: must pass), one around the window (must fail),
 * and the whole frame (must fail).
 */
export const casRegion = async (largeur = LARGEUR, hauteur = HAUTEUR): Promise<CasStructure[]> => {
  const avant = dessinerPiece({}, largeur, hauteur);
  const fen = PIECE.fenetres[0]!;
  const apres = dessinerPiece({ grain: 2, fenetres: [decalee(fen, 0.03)] }, largeur, hauteur);
  const c = (nom: string, description: string, region: Uint8Array | null, fidele: boolean): CasStructure => ({
    nom,
    description,
    avant,
    apres,
    region,
    fidele,
  });
  return [
    c('region-porte', 'room, window moved by 3 %, region = the door only', regionBoites([PIECE.porte!], largeur, hauteur), true),
    c('region-fenetre', 'room, window moved by 3 %, region = the window', regionBoites([fen], largeur, hauteur), false),
    c('region-nulle', 'room, window moved by 3 %, region null', null, false),
  ];
};

/**
 * What the check does beyond the cases it is held to, for the bench only: edits a model or the
 * pipeline may make, with what a photographer would call them (`fidele`), measured, not asserted.
 */
export const casLimites = async (largeur = LARGEUR, hauteur = HAUTEUR): Promise<CasStructure[]> => {
  const p0 = dessinerPiece({}, largeur, hauteur);
  const f0 = dessinerFacade({}, largeur, hauteur);
  const c = (nom: string, description: string, avant: Pixels, apres: Pixels, fidele: boolean, region: Uint8Array | null = null): CasStructure => ({
    nom,
    description,
    avant,
    apres,
    region,
    fidele,
  });
  return [
    c(
      'sol-change-cadre',
      'room, oak floor replaced by grey tiles, whole frame: plank and tile joints are lines too',
      p0,
      dessinerPiece({ grain: 2, sol: 'carrelage' }, largeur, hauteur),
      true,
    ),
    c(
      'meubles-cadre',
      'room, sofa and table added, whole frame (staging must pass its region)',
      p0,
      dessinerPiece({ grain: 2, meubles: true }, largeur, hauteur),
      false,
    ),
    c('tres-doux', 'room, blurred σ 2 px at this size (σ ≈ 7 px at 12 MP)', p0, await flouter(p0, 2), true),
    c('tres-doux-facade', 'house, blurred σ 2 px at this size', f0, await flouter(f0, 2), true),
    c('jpeg-50', 'room, JPEG quality 50', p0, await jpeg(p0, 50), true),
    c('decale-3px', 'room, moved 3 px right and down (0.25 %)', p0, decaler(p0, 3, 3), true),
    c('plus-sombre', 'room, brightness −15 %', p0, eclaircir(p0, 0.85), true),
    c('delave', 'room, contrast halved around mid-grey: washed out, every line where it was', p0, contraste(p0, 0.5), true),
    c('voile', 'room, contrast down to 30 %: a haze that hides the lines', p0, contraste(p0, 0.3), false),
    c('rotation-1', 'room, turned by 1° (what a straightening of verticals does: compare with the straightened photo)', p0, await tourner(p0, 1), false),
    c('rotation-1-facade', 'house, turned by 1°', f0, await tourner(f0, 1), false),
  ];
};
