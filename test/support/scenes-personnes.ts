/**
 * Photos with people and cars in them, for the blurring of faces and plates (lambdas/moteurs/floutage.ts):
 * a street in front of a house — sky, a plastered facade with a window, the pavement — with people
 * (a face with hair, eyebrows, eyes, nose, mouth, over a shirt) and cars (body, cabin, wheels, a white EU
 * plate with a blue band and dark characters). No photograph may be copied into this repository, so they
 * are drawn; what is drawn is returned as the truth (face and plate boxes, in fractions of the frame),
 * for the tests and the bench to compare with what a detector finds — the detectors never see it.
 *
 * A face's identity is a set of features (eye spacing, size and height, eyebrows, nose, mouth, face
 * shape, hairline) derived from a number; the skin and hair colours are the same for everyone, so that
 * telling two blurred faces apart must rest on the features, not on a colour (bench/floutage.ts).
 *
 * Deterministic: seeded hashes only; anti-aliased by 4 samples per pixel.
 */
import sharp from 'sharp';
import type { Rectangle } from '../../lambdas/moteurs/commun/masques';
import type { Pixels } from '../../lambdas/moteurs/commun/pixels';
import { fbm, fois, hachage, melange, type Rgb } from './scenes-lumiere';

/** What makes one face another: positions and sizes in units of the face's half-width (u) and half-height (v). */
export interface Traits {
  /** Height / width of the face ellipse. */
  forme: number;
  /** v of the hairline (the top of the skin). */
  cheveux: number;
  /** Eyes: |u| of their centres, v, half-width, half-height. */
  yeux: { ecart: number; hauteur: number; largeur: number; ouverture: number };
  /** Eyebrows: thickness (v) and tilt. */
  sourcils: { epaisseur: number; pente: number };
  /** Nose: v of the nostrils and their |u|. */
  nez: { hauteur: number; narines: number };
  /** Mouth: v, half-width, half-height. */
  bouche: { hauteur: number; largeur: number; epaisseur: number };
}

const entre = (identite: number, k: number, min: number, max: number) => min + (max - min) * hachage(identite, k, 9173);

/** The features of identity `identite` (any integer): the same number, the same face. */
export const traits = (identite: number): Traits => ({
  forme: entre(identite, 1, 1.22, 1.42),
  cheveux: entre(identite, 2, -0.78, -0.5),
  yeux: {
    ecart: entre(identite, 3, 0.3, 0.44),
    hauteur: entre(identite, 4, -0.2, -0.04),
    largeur: entre(identite, 5, 0.13, 0.2),
    ouverture: entre(identite, 6, 0.05, 0.085),
  },
  sourcils: { epaisseur: entre(identite, 7, 0.025, 0.06), pente: entre(identite, 8, -0.06, 0.06) },
  nez: { hauteur: entre(identite, 9, 0.2, 0.36), narines: entre(identite, 10, 0.07, 0.14) },
  bouche: { hauteur: entre(identite, 11, 0.5, 0.66), largeur: entre(identite, 12, 0.22, 0.4), epaisseur: entre(identite, 13, 0.04, 0.09) },
});

const PEAU: Rgb = [222, 172, 140];
const CHEVEUX: Rgb = [58, 40, 30];
const LEVRES: Rgb = [165, 78, 78];

/** A shape drawn at a point (pixels, sub-pixel): its colour there, or null where it is not. */
type Forme = (x: number, y: number) => Rgb | null;

/** Draws `forme` over `p` inside the box, 4 samples per pixel: edges blend with what was there. */
const peindre = (p: Pixels, forme: Forme, x0: number, y0: number, x1: number, y1: number) => {
  const [xa, ya, xb, yb] = [Math.max(0, Math.floor(x0)), Math.max(0, Math.floor(y0)), Math.min(p.largeur, Math.ceil(x1)), Math.min(p.hauteur, Math.ceil(y1))];
  for (let y = ya; y < yb; y++) {
    for (let x = xa; x < xb; x++) {
      const i = (y * p.largeur + x) * 3;
      const somme: Rgb = [0, 0, 0];
      let n = 0;
      for (const [dx, dy] of [
        [0.25, 0.25],
        [0.75, 0.25],
        [0.25, 0.75],
        [0.75, 0.75],
      ] as const) {
        const f = forme(x + dx, y + dy);
        if (f) n++;
        const c = f ?? ([p.data[i]!, p.data[i + 1]!, p.data[i + 2]!] as Rgb);
        for (let k = 0; k < 3; k++) somme[k]! += c[k]!;
      }
      if (n === 0) continue;
      for (let k = 0; k < 3; k++) p.data[i + k] = Math.max(0, Math.min(255, Math.round(somme[k]! / 4)));
    }
  }
};

export interface Visage {
  /** Centre of the face ellipse, in pixels. */
  cx: number;
  cy: number;
  /** Width of the face, in pixels. */
  largeur: number;
  identite: number;
  /** Light on the face (1 as drawn): a probe photo of the same person under other light. */
  lumiere?: number;
}

/**
 * A head and shoulders: the face over a shirt, hair around the top. Returns the face's box as a face
 * detector gives it (hairline to chin, cheek to cheek), in fractions of the frame.
 */
export const dessinerVisage = (p: Pixels, v: Visage): Rectangle => {
  const t = traits(v.identite);
  const a = v.largeur / 2;
  const b = a * t.forme;
  const k = v.lumiere ?? 1;
  const uv = (x: number, y: number) => [(x - v.cx) / a, (y - v.cy) / b] as const;
  // Shoulders and a shirt, under the chin.
  const chemise: Forme = (x, y) => {
    const [u, w] = uv(x, y);
    if (w < 0.9 || Math.abs(u) > 0.55 + (w - 0.9) * 1.6) return null;
    return fois(Math.abs(u) < 0.28 && w < 1.08 ? [40, 46, 70] : [70, 92, 150], k * (0.9 + 0.1 * fbm(x / 40, y / 40, 3, 5)));
  };
  peindre(p, chemise, v.cx - 3 * a, v.cy + 0.85 * b, v.cx + 3 * a, v.cy + 2.6 * b);
  const { yeux, sourcils, nez, bouche } = t;
  const tete: Forme = (x, y) => {
    const [u, w] = uv(x, y);
    const r2 = u * u + w * w;
    const cheveux = (u / 1.13) ** 2 + ((w + 0.1) / 1.1) ** 2 <= 1 && w < 0.15;
    if (r2 > 1) return cheveux ? fois(CHEVEUX, k * (0.85 + 0.3 * hachage(Math.floor(x), Math.floor(y / 3), 3))) : null;
    // Above the hairline (wavy), hair.
    if (w < t.cheveux + 0.04 * Math.sin(u * 7 + v.identite)) return fois(CHEVEUX, k * (0.85 + 0.3 * hachage(Math.floor(x), Math.floor(y / 3), 3)));
    const cote = Math.abs(u);
    // Eyebrows.
    const ds = w - (yeux.hauteur - 0.17 + (sourcils.pente * (cote - yeux.ecart)) / yeux.largeur);
    if (Math.abs(ds) < sourcils.epaisseur / 2 && Math.abs(cote - yeux.ecart) < yeux.largeur * 1.1) return fois(CHEVEUX, k);
    // Eyes: the white, the iris, the pupil.
    const [ex, ey] = [(cote - yeux.ecart) * a, (w - yeux.hauteur) * b];
    if ((ex / (yeux.largeur * a)) ** 2 + (ey / (yeux.ouverture * b)) ** 2 <= 1) {
      const rayon = Math.hypot(ex, ey);
      if (rayon < yeux.ouverture * b * 0.45) return fois([20, 16, 14], k);
      if (rayon < yeux.ouverture * b * 0.95) return fois([88, 62, 44], k);
      return fois([236, 234, 228], k);
    }
    // Nostrils, and the shade down the nose.
    if (((cote - nez.narines) / 0.045) ** 2 + ((w - nez.hauteur) / 0.025) ** 2 <= 1) return fois([96, 58, 48], k);
    // The mouth: lips and the line between them.
    const bm = (u / bouche.largeur) ** 2 + ((w - bouche.hauteur) / bouche.epaisseur) ** 2;
    if (bm <= 1) return Math.abs(w - bouche.hauteur) < 0.012 && bm < 0.9 ? fois([70, 30, 30], k) : fois(LEVRES, k);
    const ombre = cote < 0.07 && w > yeux.hauteur + 0.06 && w < nez.hauteur ? 0.93 : 1;
    const relief = (1 - 0.16 * r2 ** 1.5) * (1 + 0.05 * u) * ombre;
    const grain = 0.97 + 0.06 * fbm(x / (a * 0.5), y / (a * 0.5), 4, v.identite);
    return fois(PEAU, k * relief * grain);
  };
  peindre(p, tete, v.cx - 1.2 * a, v.cy - 1.3 * b, v.cx + 1.2 * a, v.cy + 1.05 * b);
  return { x0: (v.cx - a) / p.largeur, x1: (v.cx + a) / p.largeur, y0: (v.cy + t.cheveux * b) / p.hauteur, y1: (v.cy + b) / p.hauteur };
};

/** 5 × 7 characters, rows from the top, '#' inked: what a plate is written in. */
const POLICE: Readonly<Record<string, readonly string[]>> = {
  '0': [' ### ', '#   #', '#  ##', '# # #', '##  #', '#   #', ' ### '],
  '1': ['  #  ', ' ##  ', '  #  ', '  #  ', '  #  ', '  #  ', ' ### '],
  '2': [' ### ', '#   #', '    #', '   # ', '  #  ', ' #   ', '#####'],
  '3': ['#####', '   # ', '  #  ', '   # ', '    #', '#   #', ' ### '],
  '4': ['   # ', '  ## ', ' # # ', '#  # ', '#####', '   # ', '   # '],
  '5': ['#####', '#    ', '#### ', '    #', '    #', '#   #', ' ### '],
  '6': ['  ## ', ' #   ', '#    ', '#### ', '#   #', '#   #', ' ### '],
  '7': ['#####', '    #', '   # ', '  #  ', ' #   ', ' #   ', ' #   '],
  '8': [' ### ', '#   #', '#   #', ' ### ', '#   #', '#   #', ' ### '],
  '9': [' ### ', '#   #', '#   #', ' ####', '    #', '   # ', ' ##  '],
  A: [' ### ', '#   #', '#   #', '#####', '#   #', '#   #', '#   #'],
  B: ['#### ', '#   #', '#   #', '#### ', '#   #', '#   #', '#### '],
  C: [' ### ', '#   #', '#    ', '#    ', '#    ', '#   #', ' ### '],
  D: ['#### ', '#   #', '#   #', '#   #', '#   #', '#   #', '#### '],
  E: ['#####', '#    ', '#    ', '#### ', '#    ', '#    ', '#####'],
  F: ['#####', '#    ', '#    ', '#### ', '#    ', '#    ', '#    '],
  G: [' ### ', '#   #', '#    ', '# ###', '#   #', '#   #', ' ####'],
  H: ['#   #', '#   #', '#   #', '#####', '#   #', '#   #', '#   #'],
  K: ['#   #', '#  # ', '# #  ', '##   ', '# #  ', '#  # ', '#   #'],
  L: ['#    ', '#    ', '#    ', '#    ', '#    ', '#    ', '#####'],
  M: ['#   #', '## ##', '# # #', '# # #', '#   #', '#   #', '#   #'],
  N: ['#   #', '##  #', '# # #', '#  ##', '#   #', '#   #', '#   #'],
  P: ['#### ', '#   #', '#   #', '#### ', '#    ', '#    ', '#    '],
  R: ['#### ', '#   #', '#   #', '#### ', '# #  ', '#  # ', '#   #'],
  S: [' ####', '#    ', '#    ', ' ### ', '    #', '    #', '#### '],
  T: ['#####', '  #  ', '  #  ', '  #  ', '  #  ', '  #  ', '  #  '],
  X: ['#   #', '#   #', ' # # ', '  #  ', ' # # ', '#   #', '#   #'],
  Z: ['#####', '    #', '   # ', '  #  ', ' #   ', '#    ', '#####'],
  '-': ['     ', '     ', '     ', ' ### ', '     ', '     ', '     '],
};
export const CARACTERES_PLAQUE = Object.keys(POLICE).filter((c) => c !== '-');

/** A plate's text for a seed, as Belgian and French plates are laid out: 1-ABC-234 style. */
export const textePlaque = (graine: number): string => {
  const c = (k: number, de: string) => de[Math.floor(hachage(graine, k, 4242) * de.length)]!;
  const lettres = 'ABCDEFGHKLMNPRSTXZ';
  const chiffres = '0123456789';
  return `${c(1, chiffres)}-${c(2, lettres)}${c(3, lettres)}${c(4, lettres)}-${c(5, chiffres)}${c(6, chiffres)}${c(7, chiffres)}`;
};

export interface Plaque {
  /** Top left corner and width, in pixels (an EU plate is 520 × 110 mm). */
  x: number;
  y: number;
  largeur: number;
  texte: string;
  lumiere?: number;
}

/** A white EU plate: dark rim, blue band on the left, dark characters. Returns its box in fractions. */
export const dessinerPlaque = (p: Pixels, q: Plaque): Rectangle => {
  const hauteur = q.largeur * (110 / 520);
  const k = q.lumiere ?? 1;
  const bande = q.largeur * 0.08;
  const bord = Math.max(0.6, hauteur * 0.04);
  const hauteurCar = hauteur * 0.66;
  const pas = (q.largeur - bande - 2 * bord - hauteur * 0.2) / q.texte.length;
  const [tx0, ty0] = [q.x + bande + bord + hauteur * 0.1, q.y + (hauteur - hauteurCar) / 2];
  const plaque: Forme = (x, y) => {
    const [dx, dy] = [x - q.x, y - q.y];
    if (dx < 0 || dy < 0 || dx >= q.largeur || dy >= hauteur) return null;
    if (dx < bord || dy < bord || dx >= q.largeur - bord || dy >= hauteur - bord) return fois([40, 40, 44], k);
    if (dx < bande) return fois([20, 60, 160], k);
    const i = Math.floor((x - tx0) / pas);
    const caractere = POLICE[q.texte[i] ?? ''];
    if (caractere) {
      // The character fills 5/6 of its step, 7 rows of the character height.
      const gx = ((x - tx0 - i * pas) / (pas * (5 / 6))) * 5;
      const gy = ((y - ty0) / hauteurCar) * 7;
      if (gx >= 0 && gx < 5 && gy >= 0 && gy < 7 && caractere[Math.floor(gy)]![Math.floor(gx)] === '#') return fois([22, 22, 26], k);
    }
    return fois([244, 244, 238], k);
  };
  peindre(p, plaque, q.x, q.y, q.x + q.largeur, q.y + hauteur);
  return { x0: q.x / p.largeur, y0: q.y / p.hauteur, x1: (q.x + q.largeur) / p.largeur, y1: (q.y + hauteur) / p.hauteur };
};

export interface Voiture {
  /** Box of the car, in pixels. */
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  couleur: Rgb;
  texte: string;
}

/** A car seen from behind: cabin and rear window, body, lights, wheels, and its plate. Returns the plate's box. */
export const dessinerVoiture = (p: Pixels, v: Voiture): { voiture: Rectangle; plaque: Rectangle } => {
  const [l, h] = [v.x1 - v.x0, v.y1 - v.y0];
  const roues: Forme = (x, y) => {
    for (const cx of [v.x0 + 0.17 * l, v.x1 - 0.17 * l]) if (Math.abs(x - cx) < 0.11 * l && y > v.y1 - 0.16 * h && y < v.y1) return [22, 22, 24];
    return null;
  };
  peindre(p, roues, v.x0, v.y1 - 0.16 * h, v.x1, v.y1);
  const caisse: Forme = (x, y) => {
    const [fx, fy] = [(x - v.x0) / l, (y - v.y0) / h];
    if (fy < 0 || fy > 0.88) return null;
    // The cabin narrows upwards.
    if (fy < 0.42) {
      const retrait = 0.12 + 0.1 * (1 - fy / 0.42);
      if (fx < retrait || fx > 1 - retrait) return null;
      const vitre = fy > 0.06 && fx > retrait + 0.04 && fx < 1 - retrait - 0.04 && fy < 0.38;
      return vitre ? melange([70, 86, 100], [150, 170, 185], fy / 0.42) : fois(v.couleur, 0.9);
    }
    if (fx < 0.02 || fx > 0.98) return null;
    if (fy > 0.5 && fy < 0.6 && (fx < 0.15 || fx > 0.85)) return [190, 30, 30];
    if (fy > 0.8) return [50, 50, 54];
    return fois(v.couleur, 1 - 0.25 * (fy - 0.42));
  };
  peindre(p, caisse, v.x0, v.y0, v.x1, v.y1);
  const largeurPlaque = 0.3 * l;
  const plaque = dessinerPlaque(p, { x: v.x0 + (l - largeurPlaque) / 2, y: v.y0 + 0.63 * h, largeur: largeurPlaque, texte: v.texte });
  return { voiture: { x0: v.x0 / p.largeur, y0: v.y0 / p.hauteur, x1: v.x1 / p.largeur, y1: v.y1 / p.hauteur }, plaque };
};

export interface ScenePersonnes {
  pixels: Pixels;
  visages: Rectangle[];
  plaques: Rectangle[];
  voitures: Rectangle[];
}

export interface OptionsScene {
  largeur?: number;
  hauteur?: number;
  graine?: number;
  /** Default true: one person on the left. */
  visage?: boolean;
  /** Default true: one car on the right. */
  voiture?: boolean;
}

/**
 * The street: sky, a plastered facade with a window, the pavement; a person on the left (face about 7 %
 * of the width) and a car on the right (plate about 10 % of the width). Sensor grain over everything.
 */
export const scenePersonnes = (o: OptionsScene = {}): ScenePersonnes => {
  const [L, H, g] = [o.largeur ?? 960, o.hauteur ?? 640, o.graine ?? 1];
  const p: Pixels = { data: Buffer.alloc(L * H * 3), largeur: L, hauteur: H };
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < L; x++) {
      const [fx, fy] = [x / L, y / H];
      let c: Rgb;
      if (fy < 0.22) c = melange([70, 130, 210], [170, 200, 235], fy / 0.22);
      else if (fy < 0.62) {
        const fenetre = fx > 0.08 && fx < 0.22 && fy > 0.27 && fy < 0.5;
        const cadre = fx > 0.07 && fx < 0.23 && fy > 0.26 && fy < 0.51;
        c = fenetre
          ? melange([60, 74, 90], [110, 126, 140], (fy - 0.27) / 0.23)
          : cadre
            ? [236, 236, 232]
            : fois([214, 204, 184], 0.9 + 0.15 * fbm(fx, fy, 12, g));
      } else c = fois([128, 128, 132], 0.85 + 0.2 * fbm(fx, fy, 40, g + 1) + 0.1 * (fy - 0.62));
      const i = (y * L + x) * 3;
      for (let k = 0; k < 3; k++) p.data[i + k] = Math.max(0, Math.min(255, Math.round(c[k]!)));
    }
  }
  const scene: ScenePersonnes = { pixels: p, visages: [], plaques: [], voitures: [] };
  if (o.visage ?? true) scene.visages.push(dessinerVisage(p, { cx: 0.3 * L, cy: 0.5 * H, largeur: 0.07 * L, identite: g }));
  if (o.voiture ?? true) {
    const { voiture, plaque } = dessinerVoiture(p, { x0: 0.52 * L, y0: 0.5 * H, x1: 0.86 * L, y1: 0.9 * H, couleur: [150, 32, 40], texte: textePlaque(g) });
    scene.voitures.push(voiture);
    scene.plaques.push(plaque);
  }
  // Sensor grain, stronger in the shadows.
  for (let q = 0; q < L * H; q++) {
    const l = (p.data[q * 3]! + p.data[q * 3 + 1]! + p.data[q * 3 + 2]!) / 765;
    const n = (hachage(q % L, Math.floor(q / L), g + 17) + hachage(q % L, Math.floor(q / L), g + 23) - 1) * (3 + 5 * (1 - l));
    for (let k = 0; k < 3; k++) p.data[q * 3 + k] = Math.max(0, Math.min(255, Math.round(p.data[q * 3 + k]! + n)));
  }
  return scene;
};

/** The scene as a file, as a customer would send it. */
export const encoder = (p: Pixels, format: 'jpeg' | 'png' | 'webp' = 'jpeg'): Promise<Buffer> =>
  sharp(p.data, { raw: { width: p.largeur, height: p.hauteur, channels: 3 } })
    [format](format === 'png' ? {} : { quality: 92 })
    .toBuffer();
