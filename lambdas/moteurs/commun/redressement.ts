/**
 * The deterministic half of `ciel`: balanced light and straight vertical lines, computed from the
 * photo itself (no model, same input → same bytes). Walls and door frames that lean — a camera held
 * askew (roll) or tilted up at a facade (verticals converging, "keystone") — are the most common flaw
 * of listing photos, and a model asked to replace the sky must not be the one that moves walls.
 */
import sharp from 'sharp';
import { cielAnalyse, copieAnalyse } from './ciel-masque';
import { lisse } from './lisse';
import { noyau, parRangees, partagee } from './parallele';
import { estSeize, luminance, pixelsDe, type Pixels, type Pixels16 } from './pixels';

const DEG = Math.PI / 180;

export interface Verticales {
  /** Lean of verticals at the centre column, radians; positive: tops lean right. */
  roulis: number;
  /** Change of that lean across the width (left edge to right edge), radians: converging verticals. */
  trapeze: number;
}

/** Beyond these the estimate is more likely a diagonal roof or a staircase than a tilted camera. */
const ROULIS_MAX = 4 * DEG;
const TRAPEZE_MAX = 10 * DEG;
/** Below these a correction would only resample the photo for nothing. */
const ROULIS_MIN = 0.15 * DEG;
const TRAPEZE_MIN = 0.3 * DEG;
/** Edges within this of vertical count as "meant to be vertical". */
const TOLERANCE = 12 * DEG;

/**
 * Fits lean(x) = roulis + trapeze · (x − centre) / width on strong near-vertical edges (Sobel on a
 * small grey copy), weighted by edge strength, twice: the second pass drops edges more than 1.5°
 * off the first fit (furniture, plants), which are not architecture.
 */
export const estimerVerticales = async (p: Pixels): Promise<Verticales> => {
  const largeurAnalyse = Math.min(p.largeur, 640);
  const { data: g, info } = await sharp(p.data, { raw: { width: p.largeur, height: p.hauteur, channels: 3 } })
    .resize({ width: largeurAnalyse })
    .greyscale()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const [l, h] = [info.width, info.height];
  const aretes: { xn: number; angle: number; poids: number }[] = [];
  const tolerance = Math.tan(TOLERANCE);
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < l - 1; x++) {
      const at = (dx: number, dy: number) => g[(y + dy) * l + (x + dx)]!;
      const gx = at(1, -1) + 2 * at(1, 0) + at(1, 1) - at(-1, -1) - 2 * at(-1, 0) - at(-1, 1);
      const gy = at(-1, 1) + 2 * at(0, 1) + at(1, 1) - at(-1, -1) - 2 * at(0, -1) - at(1, -1);
      const force = Math.abs(gx) + Math.abs(gy);
      if (force < 160 || Math.abs(gy) > Math.abs(gx) * tolerance) continue;
      aretes.push({ xn: (x - l / 2) / l, angle: Math.atan(gy / gx), poids: force });
    }
  }
  const nulle: Verticales = { roulis: 0, trapeze: 0 };
  // Too little architecture in view (a garden, a close-up): leave the geometry alone.
  if (aretes.length < l * h * 0.004) return nulle;

  const ajuster = (retenues: typeof aretes): Verticales | null => {
    let [s, sx, sxx, sy, sxy] = [0, 0, 0, 0, 0];
    for (const { xn, angle, poids } of retenues) {
      ((s += poids), (sx += poids * xn), (sxx += poids * xn * xn), (sy += poids * angle), (sxy += poids * xn * angle));
    }
    const det = s * sxx - sx * sx;
    if (s === 0 || Math.abs(det) < 1e-9 * s * s) return s === 0 ? null : { roulis: sy / s, trapeze: 0 };
    return { roulis: (sxx * sy - sx * sxy) / det, trapeze: (s * sxy - sx * sy) / det };
  };
  const premier = ajuster(aretes);
  if (!premier) return nulle;
  const proches = aretes.filter(({ xn, angle }) => Math.abs(angle - (premier.roulis + premier.trapeze * xn)) < 1.5 * DEG);
  const second = proches.length >= aretes.length * 0.25 ? ajuster(proches) : null;
  if (!second) return nulle;
  return {
    roulis: Math.max(-ROULIS_MAX, Math.min(ROULIS_MAX, second.roulis)),
    trapeze: Math.max(-TRAPEZE_MAX, Math.min(TRAPEZE_MAX, second.trapeze)),
  };
};

/**
 * Makes the fitted verticals vertical: each output column samples the input along the leaning line
 * that passes through it at mid-height, with a slight zoom so that no corner samples outside the
 * photo. Bilinear, at full resolution; the size is unchanged.
 */
export const redresserVerticales = async <T extends Pixels | Pixels16>(p: T, v: Verticales): Promise<T> => {
  if (Math.abs(v.roulis) < ROULIS_MIN && Math.abs(v.trapeze) < TRAPEZE_MIN) return p;
  const { largeur: l, hauteur: h } = p;
  const cx = (l - 1) / 2;
  const pente = (xn: number) => Math.tan(v.roulis + v.trapeze * xn);
  const penteMax = Math.max(Math.abs(pente(-0.5)), Math.abs(pente(0.5)));
  const zoom = 1 + (h / l) * penteMax + 2 / l;
  const base = new Float64Array(l);
  const pentes = new Float64Array(l);
  for (let u = 0; u < l; u++) {
    base[u] = cx + (u - cx) / zoom;
    pentes[u] = pente((base[u]! - cx) / l);
  }
  const n = p.data.length;
  const sortie = estSeize(p) ? new Uint16Array(new SharedArrayBuffer(n * 2)) : new Uint8ClampedArray(new SharedArrayBuffer(n));
  await parRangees(REDRESSEMENT, { source: partagee(p.data), largeur: l, hauteur: h, zoom, base, pentes, sortie }, h);
  return pixelsDe(sortie, l, h) as T;
};

interface ParamsRedressement {
  source: Uint8Array | Uint16Array;
  largeur: number;
  hauteur: number;
  zoom: number;
  /** Per output column, the source column at mid-height and the lean of its line. */
  base: Float64Array;
  pentes: Float64Array;
  /** 8 bits: a clamped array rounds for free. 16 bits: rounded by + 0.5 (a blend of values in range stays in range). */
  sortie: Uint8ClampedArray | Uint16Array;
}

/**
 * Rows [debut, fin) straightened. Each output row samples one source height: the two source rows are
 * blended once into `ligne`, then each output pixel blends two of its neighbours. Per pixel and channel,
 * with its own four-corner bilinear, straightening a 24 MP photo took 1.1 s of `fusion`'s 10 s.
 */
const REDRESSEMENT = noyau<ParamsRedressement>('redressement', ['sortie'], (p, debut, fin) => {
  const { source: data, largeur: l, hauteur: h, zoom, base, pentes, sortie } = p;
  const cy = (h - 1) / 2;
  const ligne = new Float32Array(l * 3);
  const arrondi = sortie instanceof Uint16Array ? 0.5 : 0;
  for (let vy = debut; vy < fin; vy++) {
    const y = cy + (vy - cy) / zoom;
    const y0 = Math.min(h - 1, Math.max(0, Math.floor(y)));
    const y1 = Math.min(h - 1, y0 + 1);
    const fy = Math.min(1, Math.max(0, y - y0));
    const [r0, r1] = [y0 * l * 3, y1 * l * 3];
    for (let i = 0; i < l * 3; i++) ligne[i] = data[r0 + i]! + (data[r1 + i]! - data[r0 + i]!) * fy;
    const decalage = cy - y;
    for (let u = 0, o = vy * l * 3; u < l; u++, o += 3) {
      const x = Math.min(l - 1, Math.max(0, base[u]! + decalage * pentes[u]!));
      const x0 = Math.floor(x);
      const fx = x - x0;
      const a = x0 * 3;
      const b = x0 < l - 1 ? a + 3 : a;
      sortie[o] = ligne[a]! + (ligne[b]! - ligne[a]!) * fx + arrondi;
      sortie[o + 1] = ligne[a + 1]! + (ligne[b + 1]! - ligne[a + 1]!) * fx + arrondi;
      sortie[o + 2] = ligne[a + 2]! + (ligne[b + 2]! - ligne[a + 2]!) * fx + arrondi;
    }
  }
});

/** Median luminance (0–1) outside the sky under which a photo counts as under-exposed, and what it is lifted to. */
export const MEDIANE_CIBLE = 0.4;
/** The strongest lift: a shadow at 0.05 goes to 0.16, the median of a very dark photo to about 0.45. */
const LEVEE_MAX = 2.5;
/** White balance moves each channel by at most this much: a correction, not a new colour. */
const GAIN_MAX = 0.08;

/**
 * How the light is measured and corrected: figures of the photo outside its sky, the lift `a` of the
 * curve f(x) = x + a·x·(1 − x)² applied to each channel, and the white-balance gains.
 */
export interface Reglage {
  mediane: number;
  levee: number;
  gains: [number, number, number];
}

/**
 * The light a photographer would accept: what is under-exposed is brightened, a well-exposed photo is
 * never darkened. The old percentile stretch mapped the 1st percentile to black, so a bright or misty
 * photo (snow, haze, overcast) came out darker; and its figures included the sky.
 *
 * - Measured outside the sky (ciel-masque.ts): a bright sky says nothing about the exposure of the
 *   house, and the sky is what production then replaces.
 * - Exposure: f(x) = x + a·x·(1 − x)², with a ≥ 0 chosen so the median outside the sky reaches
 *   MEDIANE_CIBLE (a = 0 when it already does). f(x) ≥ x everywhere, f(0) = 0, f(1) = 1 and its slope
 *   is 1 at white: shadows and mid-tones rise, highlights keep their place, nothing new clips.
 * - Grey-world white balance, gently (±8% per channel), its gains scaled so that the mean luminance
 *   outside the sky is unchanged: colour is corrected, brightness is not.
 */
const reglerLumiere = (analyse: Pixels, ciel: Uint8Array): Reglage => {
  const { data } = analyse;
  const histo = new Float64Array(256);
  const sommes: [number, number, number] = [0, 0, 0];
  let n = 0;
  for (let p = 0; p < ciel.length; p++) {
    if (ciel[p]) continue;
    const [r, g, b] = [data[p * 3]!, data[p * 3 + 1]!, data[p * 3 + 2]!];
    ((sommes[0] += r), (sommes[1] += g), (sommes[2] += b));
    histo[Math.round(luminance(r, g, b))]!++;
    n++;
  }
  if (n === 0) return { mediane: 0.5, levee: 0, gains: [1, 1, 1] };
  let [cumul, mediane] = [0, 0];
  for (let v = 0; v < 256; v++)
    if ((cumul += histo[v]!) >= n / 2) {
      mediane = v / 255;
      break;
    }
  const moyennes = sommes.map((s) => Math.max(1, s / n)) as [number, number, number];
  const gris = (moyennes[0] + moyennes[1] + moyennes[2]) / 3;
  const bruts = moyennes.map((m) => Math.max(1 - GAIN_MAX, Math.min(1 + GAIN_MAX, gris / m)));
  const luma = (c: readonly number[]) => luminance(c[0]!, c[1]!, c[2]!);
  const k = luma(moyennes) / luma(moyennes.map((m, i) => m * bruts[i]!));
  const gains = bruts.map((g) => g * k) as [number, number, number];
  const m = Math.max(0.02, mediane);
  const levee = m >= MEDIANE_CIBLE ? 0 : Math.min(LEVEE_MAX, (MEDIANE_CIBLE - m) / (m * (1 - m) ** 2));
  return { mediane, levee, gains };
};

/** From this value (0–1) of a pixel's largest channel up to white, the white balance eases off, so that white stays white. */
const BLANC_DEBUT = 0.75;

/**
 * White balance, then the lift. The balance eases off as a pixel's largest channel nears white (the
 * gains at BLANC_DEBUT, none at white, smoothly): a blown lampshade or window has no colour to correct,
 * and a warm room's gains (red down, blue up) turned its white to cyan. Eased by the pixel's largest
 * channel, not channel by channel, so that its three channels are eased alike: per channel, a warm glow's
 * red would ease off before its blue, its hue shifting along the gradient.
 */
export const appliquerLumiere = async <T extends Pixels | Pixels16>(p: T, { levee, gains }: Reglage): Promise<T> => {
  const source = partagee(p.data);
  if (estSeize(p)) {
    const sortie = new Uint16Array(new SharedArrayBuffer(p.data.length * 2));
    await parRangees(LUMIERE_16, { source: source as Uint16Array, largeur: p.largeur, levee, gains, sortie }, p.hauteur);
    return pixelsDe(sortie, p.largeur, p.hauteur) as T;
  }
  // Per channel, a table by (largest channel, value): 64 K bytes each, so that a 24 MP photo costs three
  // lookups a pixel, as the per-channel tables did.
  const tables = gains.map((g) => {
    const t = new Uint8Array(256 * 256);
    for (let m = 0; m < 256; m++) {
      const gain = gainAttenue(g, attenuation(m / 255));
      for (let v = 0; v <= m; v++) t[m * 256 + v] = Math.round(255 * lever(Math.min(255, v * gain) / 255, levee));
    }
    return t;
  }) as [Uint8Array, Uint8Array, Uint8Array];
  const sortie = new Uint8Array(new SharedArrayBuffer(p.data.length));
  await parRangees(LUMIERE, { source: source as Uint8Array, largeur: p.largeur, tables, sortie }, p.hauteur);
  return pixelsDe(sortie, p.largeur, p.hauteur) as T;
};

/** How much of the white balance a pixel whose largest channel is `m` (0–1) takes: 1 up to BLANC_DEBUT, 0 at white. */
const attenuation = (m: number): number => 1 - lisse(BLANC_DEBUT, 1, m);

/** A channel's white-balance gain `g` at an `attenuation`. */
const gainAttenue = (g: number, a: number): number => 1 + (g - 1) * a;

/** The lift f(x) = x + a·x·(1 − x)² of a value 0–1. */
const lever = (x: number, levee: number): number => x + levee * x * (1 - x) ** 2;

interface ParamsLumiere {
  source: Uint8Array;
  largeur: number;
  tables: [Uint8Array, Uint8Array, Uint8Array];
  sortie: Uint8Array;
}

export const LUMIERE = noyau<ParamsLumiere>('lumiere', ['sortie'], ({ source: src, largeur, tables, sortie }, debut, fin) => {
  const [tr, tv, tb] = tables;
  for (let i = debut * largeur * 3; i < fin * largeur * 3; i += 3) {
    const r = src[i]!;
    const v = src[i + 1]!;
    const b = src[i + 2]!;
    const m = (r > v ? (r > b ? r : b) : v > b ? v : b) << 8;
    sortie[i] = tr[m + r]!;
    sortie[i + 1] = tv[m + v]!;
    sortie[i + 2] = tb[m + b]!;
  }
});

/** The same light at 16 bits (fusion's 16-bit PNG brackets): computed per pixel, a table by (largest channel, value) would be 8 GB. */
const LUMIERE_16 = noyau<{ source: Uint16Array; largeur: number; levee: number; gains: readonly number[]; sortie: Uint16Array }>(
  'lumiere.16',
  ['sortie'],
  ({ source: src, largeur, levee, gains, sortie }, debut, fin) => {
    for (let i = debut * largeur * 3; i < fin * largeur * 3; i += 3) {
      // Once a pixel, for its three channels.
      const a = attenuation(Math.max(src[i]!, src[i + 1]!, src[i + 2]!) / 65535);
      for (let c = 0; c < 3; c++) sortie[i + c] = Math.round(65535 * lever(Math.min(65535, src[i + c]! * gainAttenue(gains[c]!, a)) / 65535, levee));
    }
  },
);

/** The light a photo needs, from its analysis copy (ciel-masque.ts, `copieAnalyse`), outside its sky. */
export const reglageLumiere = (analyse: Pixels): Reglage => reglerLumiere(analyse, cielAnalyse(analyse));

/** Balanced light (`appliquerLumiere`), set from the photo itself. */
export const equilibrerLumiere = async (p: Pixels): Promise<Pixels> => appliquerLumiere(p, reglageLumiere(await copieAnalyse(p)));

/** Straight lines first (on the photo's own light), then light: the base the sky is composited into. */
export const redresser = async (p: Pixels): Promise<Pixels> => equilibrerLumiere(await redresserVerticales(p, await estimerVerticales(p)));
