/**
 * A full-size photo, as a customer's camera sends it once direct uploads exist: 6000 × 4000 (24 MP),
 * a JPEG of 12 to 15 MB. No photograph may be copied into this repository, so it is drawn: a brick
 * house under a sky with clouds, a tree line, a garden in front (snowy by default, the photo `saison`
 * is for), the house seen from below so its verticals converge as in a real listing photo (what
 * `ciel` straightens), a light vignette, and the fine grain of a sensor everywhere so that JPEG
 * compresses it no more than it compresses a photograph. What decides memory and time in the tool
 * step is the pixel count and how much detail the encoder must keep: both are those of a real upload.
 *
 * Deterministic: the same options give the same pixels (a seeded generator, no clock, no Math.random),
 * and the same bytes with the same sharp. About 2.5 s for 24 MP on one core (drawing, then encoding).
 */
import sharp from 'sharp';

export interface OptionsPhoto {
  /** Default 6000. */
  largeur?: number;
  /** Default 4000. */
  hauteur?: number;
  /** Default 1: another seed moves the clouds, the bricks' shades and the grain. */
  graine?: number;
  /** Default true: snow on the ground and the roof. false: a green lawn and trees in leaf. */
  neige?: boolean;
  /** JPEG quality, default 97 (a camera's finest setting); lower fits more pixels under the 15 MB upload limit. */
  qualite?: number;
}

export const LARGEUR_PHOTO = 6000;
export const HAUTEUR_PHOTO = 4000;

/** What the photo's EXIF says: orientation 1 (stored upright) and a camera of our own invention. */
export const EXIF_PHOTO = { orientation: 1, marque: 'Retouche', modele: 'Synthetic 24MP test camera' } as const;

/** As a camera's finest JPEG setting: little quantisation, no chroma subsampling. */
const QUALITE_PHOTO = 97;

/** xorshift32 seeded through a splitmix-style mix, so that seeds 0, 1, 2… start far apart. */
const generateur = (graine: number) => {
  let s = Math.imul((graine >>> 0) ^ 0x9e3779b9, 0x85ebca6b);
  s = Math.imul(s ^ (s >>> 13), 0xc2b2ae35);
  s = (s ^ (s >>> 16)) >>> 0 || 0x6d2b79f5;
  return (): number => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return s >>> 0;
  };
};

/** A value in [0, 1) for an integer cell and a seed: per-brick and per-tile shades. */
const hachage = (i: number, j: number, graine: number): number => {
  let v = Math.imul(i, 0x27d4eb2d) ^ Math.imul(j, 0x165667b1) ^ Math.imul(graine + 1, 0x9e3779b1);
  v = Math.imul(v ^ (v >>> 15), 0x85ebca6b);
  v = Math.imul(v ^ (v >>> 13), 0xc2b2ae35);
  return ((v ^ (v >>> 16)) >>> 0) / 2 ** 32;
};

/** Smooth value noise in [0, 1] over the frame (fractions of width and height), `cx` × `cy` cells. */
const champ = (suivant: () => number, cx: number, cy: number) => {
  const grille = Float64Array.from({ length: (cx + 1) * (cy + 1) }, () => suivant() / 2 ** 32);
  const lisse = (t: number) => t * t * (3 - 2 * t);
  return (fx: number, fy: number): number => {
    const x = Math.min(Math.max(fx, 0), 1) * cx;
    const y = Math.min(Math.max(fy, 0), 1) * cy;
    const i = Math.min(cx - 1, Math.floor(x));
    const j = Math.min(cy - 1, Math.floor(y));
    const tx = lisse(x - i);
    const ty = lisse(y - j);
    const a = grille[j * (cx + 1) + i]!,
      b = grille[j * (cx + 1) + i + 1]!;
    const c = grille[(j + 1) * (cx + 1) + i]!,
      d = grille[(j + 1) * (cx + 1) + i + 1]!;
    return (a + (b - a) * tx) * (1 - ty) + (c + (d - c) * tx) * ty;
  };
};

interface Ouverture {
  u0: number;
  u1: number;
  y0: number;
  y1: number;
  porte: boolean;
}

/** Windows and the door, in fractions of the facade's own (rectified) width and of the height. */
const OUVERTURES: readonly Ouverture[] = [
  ...[0.2, 0.34, 0.5, 0.66, 0.8].map((c) => ({ u0: c - (c === 0.5 ? 0.03 : 0.0425), u1: c + (c === 0.5 ? 0.03 : 0.0425), y0: 0.4, y1: 0.51, porte: false })),
  ...[0.2, 0.34, 0.66, 0.8].map((c) => ({ u0: c - 0.0425, u1: c + 0.0425, y0: 0.565, y1: 0.68, porte: false })),
  { u0: 0.465, u1: 0.535, y0: 0.555, y1: 0.745, porte: true },
];

/** The raw pixels (RGB, row-major) of the scene: what photoGrande encodes. */
export const pixelsPhotoGrande = (options: OptionsPhoto = {}): { data: Buffer; largeur: number; hauteur: number } => {
  const largeur = Math.max(16, Math.round(options.largeur ?? LARGEUR_PHOTO));
  const hauteur = Math.max(16, Math.round(options.hauteur ?? HAUTEUR_PHOTO));
  const graine = options.graine ?? 1;
  const neige = options.neige ?? true;
  const suivant = generateur(graine);
  const nuages = champ(suivant, 9, 5);
  const nuagesFins = champ(suivant, 31, 17);
  const relief = champ(suivant, 13, 7);
  const cimes = champ(suivant, 40, 1);
  const buissons = champ(suivant, 55, 1);
  const plaques = champ(suivant, 70, 30);

  const data = Buffer.alloc(largeur * hauteur * 3);
  // Clamps and rounds on write.
  const sortie = new Uint8ClampedArray(data.buffer, data.byteOffset, data.length);
  const [W, H] = [largeur, hauteur];
  const cx = W / 2;
  const echelle = Math.min(W / LARGEUR_PHOTO, H / HAUTEUR_PHOTO);
  // Sizes of the texture, in pixels: bricks, tiles, mortar, twigs, paving.
  const [briqueL, briqueH, joint] = [Math.max(3, W * 0.016), Math.max(2, H * 0.0085), Math.max(1, 7 * echelle)];
  const [tuileL, tuileH] = [Math.max(3, W * 0.012), Math.max(2, H * 0.012)];
  const brindille = Math.max(1, Math.round(3 * echelle));
  const dalle = Math.max(3, W * 0.03);

  // Tree line and bush tops depend on the column only (the keystone hardly moves them).
  const hautArbres = Float64Array.from({ length: W }, (_, x) => 0.5 + 0.06 * cimes((x + 0.5) / W, 0) + 0.02 * nuagesFins((x + 0.5) / W / 2, 0.3));
  const hautBuissons = Float64Array.from({ length: W }, (_, x) => 0.675 + 0.035 * buissons((cx + (x + 0.5 - cx) / 0.986) / W, 0));
  let r = 0,
    g = 0,
    b = 0,
    grain = 0,
    micro = 0;
  const teinte = (R: number, G: number, B: number) => {
    r = R;
    g = G;
    b = B;
  };
  const briques = (U: number, Y: number, ton: number) => {
    const rang = Math.floor(Y / briqueH);
    const decale = U + (rang & 1) * briqueL * 0.5;
    const col = Math.floor(decale / briqueL);
    if (decale - col * briqueL < joint || Y - rang * briqueH < joint) {
      teinte(188, 182, 172);
      return;
    }
    const h = hachage(col, rang, graine);
    const f = (0.82 + 0.3 * h) * ton;
    teinte(150 * f + 14 * (h - 0.5), 76 * f, 57 * f - 8 * (h - 0.5));
    grain = 10;
    micro = 0.12;
  };

  for (let y = 0; y < H; y++) {
    const fy = (y + 0.5) / H;
    const Y = fy * H;
    // Seen from below: the top of the facade is 5% narrower than its base.
    const s = 1 - 0.05 * (1 - fy);
    const t = Math.min(1, fy / 0.6);
    const [cielR, cielV, cielB] = [100 + 100 * t, 158 + 58 * t, 228 + 8 * t];
    const ouvertures = OUVERTURES.filter((o) => fy >= o.y0 && fy < o.y1 + 0.012);
    const vy = ((y - H / 2) / (H / 2)) ** 2;
    for (let x = 0; x < W; x++) {
      const fu = (cx + (x + 0.5 - cx) / s) / W;
      const U = fu * W;
      const i = (y * W + x) * 3;
      grain = 7;
      micro = 0;
      const hautToit = 0.14 + 0.2 * (Math.abs(fu - 0.5) / 0.4);
      const hautBuisson = hautBuissons[x]!;
      const buisson = fy >= hautBuisson && fy < 0.765 && ((fu > 0.13 && fu < 0.445) || (fu > 0.555 && fu < 0.87));
      if (buisson) {
        const h = hachage(Math.floor(x / brindille), Math.floor(y / brindille), graine);
        const f = 0.45 + 0.9 * h;
        if (neige && h > 0.82 && fy < hautBuisson + 0.02) teinte(228, 232, 238);
        else if (neige) teinte(88 * f, 74 * f, 60 * f);
        else teinte(44 * f, 82 * f, 36 * f);
        grain = 14;
      } else if (fu >= 0.66 && fu < 0.7 && fy >= 0.165 && fy < hautToit) {
        briques(U, Y, 0.8); // the chimney
      } else if (fu >= 0.1 && fu < 0.9 && fy >= hautToit && fy < 0.345) {
        const rang = Math.floor(Y / tuileH);
        const v = (Y - rang * tuileH) / tuileH;
        const bordNeige = hautToit + (0.345 - hautToit) * (0.55 + 0.35 * relief(fu, fy));
        if (neige && fy < bordNeige) {
          const f = 0.93 + 0.07 * v;
          teinte(232 * f, 235 * f, 241 * f);
        } else {
          const col = Math.floor((U + (rang & 1) * tuileL * 0.5) / tuileL);
          const f = (0.75 + 0.45 * hachage(col, rang + 7919, graine)) * (1.1 - 0.45 * v * v);
          teinte(78 * f, 62 * f, 58 * f);
          grain = 11.5;
          micro = 0.12;
        }
      } else if (fu >= 0.1 && fu < 0.9 && fy >= 0.345 && fy < 0.354) {
        teinte(232, 231, 226); // fascia board
      } else if (fu >= 0.12 && fu < 0.88 && fy >= 0.354 && fy < 0.75) {
        briques(U, Y, 1);
        for (const o of ouvertures) {
          if (fu < o.u0 - 0.004 || fu >= o.u1 + 0.004) continue;
          if (fy >= o.y1) {
            if (!o.porte) {
              teinte(202, 196, 186); // stone sill
              micro = 0.08;
            }
            break;
          }
          if (fu < o.u0 || fu >= o.u1) break;
          const lu = (fu - o.u0) / (o.u1 - o.u0);
          const ly = (fy - o.y0) / (o.y1 - o.y0);
          const cadre = Math.min(lu, 1 - lu) * (o.u1 - o.u0) < 0.006 || Math.min(ly, 1 - ly) * (o.y1 - o.y0) < 0.008;
          if (o.porte) {
            const panneau = Math.abs(lu - 0.5) < 0.03 || Math.abs(ly - 0.35) < 0.015 || Math.abs(ly - 0.75) < 0.015;
            const f = (cadre || panneau ? 0.8 : 1) * (0.85 + 0.3 * hachage(Math.floor(x / brindille), 0, graine));
            teinte(96 * f, 56 * f, 36 * f);
            grain = 9;
            micro = 0.05;
          } else if (cadre || Math.abs(lu - 0.5) < 0.02 || Math.abs(ly - 0.4) < 0.02) {
            teinte(236, 236, 232); // frame and mullions
            grain = 6;
            micro = 0.02;
          } else {
            // Glass reflects the sky: brighter at the top, a diagonal highlight.
            const reflet = 55 * (1 - ly) + (Math.abs(lu - ly * 0.8 - 0.1) < 0.08 ? 35 : 0);
            teinte(48 + reflet, 62 + reflet * 1.1, 80 + reflet * 1.3);
            grain = 6;
            micro = 0;
          }
          break;
        }
      } else if (fy < 0.6) {
        if (fy >= hautArbres[x]!) {
          const h = hachage(Math.floor(x / brindille), Math.floor(y / brindille), graine + 17);
          const f = (0.5 + 0.8 * h) * (0.8 + (0.3 * (fy - hautArbres[x]!)) / 0.1);
          if (neige) teinte(82 * f, 76 * f, 72 * f);
          else teinte(42 * f, 74 * f, 40 * f);
          grain = 14;
        } else {
          const n = 0.65 * nuages(fu, fy / 0.6) + 0.35 * nuagesFins(fu, fy / 0.6);
          const c = n < 0.5 ? 0 : n > 0.72 ? 1 : ((n - 0.5) / 0.22) ** 2 * (3 - 2 * ((n - 0.5) / 0.22));
          const ombre = 1 - (0.12 * Math.max(0, n - 0.7)) / 0.3;
          teinte(cielR + (246 * ombre - cielR) * c, cielV + (247 * ombre - cielV) * c, cielB + (250 * ombre - cielB) * c);
          grain = 3.5;
        }
      } else {
        // The garden: a paved path from the door, snow or lawn on either side.
        const largeurAllee = 0.04 + 0.12 * Math.max(0, (fy - 0.745) / 0.255);
        if (fy >= 0.745 && Math.abs(fu - 0.5) < largeurAllee) {
          const P = (U - W / 2) / (largeurAllee / 0.04);
          const rang = Math.floor(Y / (dalle * 0.6 * (0.5 + fy)));
          const col = Math.floor((P + (rang & 1) * dalle * 0.5) / dalle);
          const bord = Math.abs(P - (col * dalle - (rang & 1) * dalle * 0.5)) < joint;
          const f = bord ? 0.65 : 0.85 + 0.3 * hachage(col, rang + 104729, graine);
          teinte(150 * f, 146 * f, 140 * f);
          grain = 10;
          micro = 0.1;
        } else if (neige) {
          // Wind-packed crust: light and shade a couple of pixels across.
          const f = 0.9 + 0.08 * relief(fu, fy) + 0.04 * plaques(fu, fy);
          teinte(236 * f, 239 * f, 245 * f);
          grain = 7;
          micro = 0.07;
        } else {
          // Blades of grass: a pixel wide, a few tall.
          const f = (0.8 + 0.3 * hachage(x, y >> 2, graine)) * (0.85 + 0.2 * relief(fu, fy));
          teinte(72 * f, 112 * f, 44 * f);
          grain = 8;
        }
      }
      // Surface texture (brick pores, snow crust, concrete) a couple of pixels across.
      if (micro) {
        const m = 1 + micro * (hachage(x >> 1, y >> 1, graine + 31) - 0.5) * 2;
        teinte(r * m, g * m, b * m);
      }
      // Vignette, then sensor grain: luminance (triangular) and a little chroma.
      const v = 1 - 0.1 * (((x - cx) / cx) ** 2 + vy);
      const alea = suivant();
      const l = (((alea & 0xff) + ((alea >>> 8) & 0xff) - 255) / 255) * grain;
      const cr = (((alea >>> 16) & 0xff) - 127.5) / 127.5;
      const cb = ((alea >>> 24) - 127.5) / 127.5;
      sortie[i] = r * v + l + cr * grain * 0.3;
      sortie[i + 1] = g * v + l;
      sortie[i + 2] = b * v + l + cb * grain * 0.3;
    }
  }
  return { data, largeur, hauteur };
};

/**
 * The photo as a camera's JPEG: quality 97, 4:4:4, EXIF orientation 1, make and model. 6000 × 4000
 * and 12–15 MB by default (bench/grande-image.ts checks both); other sizes scale the scene.
 */
export async function photoGrande(options: OptionsPhoto = {}): Promise<Buffer> {
  const { data, largeur, hauteur } = pixelsPhotoGrande(options);
  return sharp(data, { raw: { width: largeur, height: hauteur, channels: 3 } })
    .withMetadata({ orientation: EXIF_PHOTO.orientation })
    .withExifMerge({ IFD0: { Make: EXIF_PHOTO.marque, Model: EXIF_PHOTO.modele } })
    .jpeg({ quality: options.qualite ?? QUALITE_PHOTO, chromaSubsampling: '4:4:4' })
    .toBuffer();
}
