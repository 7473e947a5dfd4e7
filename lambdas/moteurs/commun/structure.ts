/**
 * Did a result move the fixed structure of the photo (walls, windows, doors, a building's outline)?
 * Buyers and regulators punish a listing photo that moves a wall or hides a window, and an image
 * model can do either while everything looks plausible. This compares the lines of the photo a tool
 * started from with those of its result.
 *
 * Method, each step for a reason:
 * - both images reduced to COTE_ANALYSE px and blurred a little: wood grain, leaves, sensor grain and
 *   the joints of small bricks or tiles fall below a few pixels and are averaged out, while walls,
 *   frames and outlines, tens of pixels long, remain; a softer or re-encoded result then looks the same;
 * - colour gradients (Di Zenzo: the three channels' Sobel gradients summed as a tensor), so a wall
 *   repainted to the luminance of its frame keeps its edge;
 * - structural edges: local maxima of the gradient across the edge (thin lines, so a line that moved
 *   by a few pixels no longer overlaps itself), stronger than a threshold set on `avant` only (an
 *   absolute floor and a share of its strongest edges) and applied to both images, and locally
 *   straight (structure-tensor coherence): walls, windows and doors are made of straight lines, foliage
 *   and clutter are not;
 * - each structural edge of one image is looked for in the other within RAYON of the long side, at an
 *   orientation within ±ANGLE; there the other image's edges count down to a fraction of the threshold
 *   (hysteresis, never below the floor), so an edge that merely crosses the threshold in one image is
 *   not called missing, and a contrast halved (a washed-out result) keeps its lines;
 * - rappel: avant's edges found in apres (a window painted over lowers it); precision: apres's edges
 *   found in avant (a window added or moved lowers it), both over the whole region;
 * - score: their harmonic mean (F1), and no more than the worst F1 of the cells (an eighth of the
 *   long side, overlapping) that hold a line's worth of edges: over a whole room a moved window is a
 *   tenth of the lines (F1 ≈ 0.88, as high as a good repaint), around the window it is all of them.
 * Only edges of the region count, but they may be matched just outside it: a frame on its border
 * stays found. It works on reduced copies, so its cost hardly grows with the photo (docs/benchmarks.md:
 * the tool step's time, `npm run bench:grande-image`).
 *
 * What it cannot see: a change that keeps the lines (a window's glass made opaque, a door recoloured
 * to the wall), lines under the threshold or shorter than a few analysis pixels (a socket, a thin
 * moulding), and what a line is: plank, tile or brick joints count as much as a wall's edge, so a new
 * floor fails on the whole frame; a caller that changes a floor or adds furniture passes a region.
 */
import sharp from 'sharp';
import type { Pixels } from './pixels';

export interface MesureStructure {
  /** 0–1: how well the fixed structure of `avant` is found again in `apres` (1 = identical lines): F1 of rappel and precision, or the worst cell's if lower. */
  score: number;
  /** Share of avant's structural edges found in apres (a window painted over lowers it). */
  rappel: number;
  /** Share of apres's structural edges that were in avant (a new or moved window lowers it). */
  precision: number;
  /** Structural edge pixels compared (both images, at analysis scale): few means "nothing to compare". */
  aretes: number;
}

/** Long side of the analysis copies: lines of a room survive, texture does not. */
const COTE_ANALYSE = 512;
/** Blur of the analysis copies (px): the last of the texture and the grain. */
const FLOU = 1;
/** Weakest gradient (levels per pixel, colour magnitude) that can be structure: a flat wall's plaster stays under it. */
const PLANCHER = 4;
/** The threshold is this share of avant's strong gradients (PERCENTILE of the region), above PLANCHER. */
const PART_FORTS = 0.25;
const PERCENTILE = 0.99;
/** An edge of the other image counts as a match down to this share of the threshold. */
const HYSTERESE = 0.5;
/** Minimum coherence (0 = isotropic, 1 = one straight line) over a 5 × 5 neighbourhood. */
const COHERENCE = 0.5;
/** Matching radius, share of the long side (0.5 %: 3 px at 512). */
const RAYON = 0.005;
/** Orientation tolerance, degrees, modulo 180. */
const ANGLE = 30;
/** Fewer structural edge pixels than this (both images together) is nothing to compare: score 1. */
export const ARETES_MIN = 60;
/** Side of the local cells, share of the long side (64 px at 512), and the edge pixels per pixel of side a cell needs to be judged. */
const CELLULE = 1 / 8;
const ARETES_CELLULE = 1;

/**
 * Below this score a result "moved the structure". Measured on the synthetic rooms and house fronts
 * of test/support/scenes-structure.ts at 1200 × 800 (npm run bench:structure):
 * - faithful results score 0.91–1: identical 1, walls repainted 0.983, floor replaced (region: window,
 *   door, radiator) 0.914, JPEG 80 1, softer (σ 2 px at 12 MP) 1, 1 px shift 1 (house 0.992),
 *   brightness +15 % 0.992, furniture added or removed outside the region 1, house repainted 1;
 *   beyond the tests: σ ≈ 7 px at 12 MP 0.996, JPEG 50 1, 3 px shift 1, contrast halved 0.977;
 * - results that moved the structure score 0–0.25: window moved by 3 % 0.245, painted over 0,
 *   added 0.174, door moved 0, roof raised by 5 % 0, photo shifted or enlarged by 3 % 0, turned by 1° 0.04.
 * 0.6 sits in the middle of that gap (0.31 below the worst faithful score, 0.35 above the worst
 * unfaithful one): a real model's answer redraws more than these scenes do, and must still pass.
 */
export const SEUIL_STRUCTURE = 0.6;

const reduire = async (p: Pixels, l: number, h: number): Promise<Buffer> =>
  sharp(p.data, { raw: { width: p.largeur, height: p.hauteur, channels: 3 } })
    .resize(l, h, { fit: 'fill', kernel: 'linear' })
    .blur(FLOU)
    .raw()
    .toBuffer();

/** The region at analysis scale: a cell counts if any of its pixels did. */
const reduireRegion = async (r: Uint8Array | Buffer, p: Pixels, l: number, h: number): Promise<Uint8Array> => {
  const octets = Buffer.from(r.buffer, r.byteOffset, r.byteLength);
  const binaire = Buffer.alloc(octets.length);
  for (let i = 0; i < octets.length; i++) binaire[i] = octets[i] ? 255 : 0;
  const petit = await sharp(binaire, { raw: { width: p.largeur, height: p.hauteur, channels: 1 } })
    .resize(l, h, { fit: 'fill', kernel: 'linear' })
    .extractChannel(0)
    .raw()
    .toBuffer();
  return Uint8Array.from(petit, (v) => (v > 0 ? 1 : 0));
};

/** The colour structure tensor of each pixel (Di Zenzo) and its gradient magnitude. */
interface Tenseur {
  jxx: Float32Array;
  jyy: Float32Array;
  jxy: Float32Array;
  /** Gradient magnitude (colour), levels per pixel. */
  force: Float32Array;
}

/** The edges of an image: its local maxima across the edge, and their orientation and straightness. */
interface Aretes {
  force: Float32Array;
  /** 1 where the magnitude is a local maximum across the edge and at least the weak threshold. */
  crete: Uint8Array;
  /** Gradient orientation, radians in [0, π), on crests only. */
  angle: Float32Array;
  /** Coherence of the structure tensor summed over 5 × 5 (0 = no direction, 1 = one straight line), on crests only. */
  coherence: Float32Array;
}

const tenseur = (rgb: Buffer, l: number, h: number): Tenseur => {
  const n = l * h;
  const jxx = new Float32Array(n);
  const jyy = new Float32Array(n);
  const jxy = new Float32Array(n);
  const force = new Float32Array(n);
  // Plain index arithmetic in the hot loops: two 200 000-pixel images must take a few milliseconds.
  for (let y = 0; y < h; y++) {
    const ym = Math.max(0, y - 1) * l;
    const y0 = y * l;
    const yp = Math.min(h - 1, y + 1) * l;
    for (let x = 0; x < l; x++) {
      const xm = x > 0 ? x - 1 : 0;
      const xp = x < l - 1 ? x + 1 : l - 1;
      const hg = (ym + xm) * 3,
        g = (y0 + xm) * 3,
        bg = (yp + xm) * 3;
      const hd = (ym + xp) * 3,
        d = (y0 + xp) * 3,
        bd = (yp + xp) * 3;
      const h0 = (ym + x) * 3,
        b0 = (yp + x) * 3;
      let a = 0,
        b = 0,
        c = 0;
      for (let k = 0; k < 3; k++) {
        // Sobel, divided by 8: levels per pixel.
        const gx = (rgb[hd + k]! + 2 * rgb[d + k]! + rgb[bd + k]! - rgb[hg + k]! - 2 * rgb[g + k]! - rgb[bg + k]!) / 8;
        const gy = (rgb[bg + k]! + 2 * rgb[b0 + k]! + rgb[bd + k]! - rgb[hg + k]! - 2 * rgb[h0 + k]! - rgb[hd + k]!) / 8;
        a += gx * gx;
        b += gy * gy;
        c += gx * gy;
      }
      const p = y0 + x;
      jxx[p] = a;
      jyy[p] = b;
      jxy[p] = c;
      const e = (a - b) / 2;
      force[p] = Math.sqrt((a + b) / 2 + Math.sqrt(e * e + c * c));
    }
  }
  return { jxx, jyy, jxy, force };
};

/**
 * Crests of at least `faible`: the magnitude no lower than its two neighbours along the gradient (its
 * direction in 4 steps). Orientation and coherence are computed there only, a few percent of the pixels.
 */
const cretes = ({ jxx, jyy, jxy, force }: Tenseur, l: number, h: number, faible: number): Aretes => {
  const n = l * h;
  const crete = new Uint8Array(n);
  const angle = new Float32Array(n);
  const coherence = new Float32Array(n);
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < l - 1; x++) {
      const p = y * l + x;
      const f = force[p]!;
      if (f < faible || f <= 0) continue;
      const t0 = 0.5 * Math.atan2(2 * jxy[p]!, jxx[p]! - jyy[p]!);
      const t = t0 < 0 ? t0 + Math.PI : t0;
      const secteur = Math.round(t / (Math.PI / 4)) % 4;
      const d = secteur === 0 ? 1 : secteur === 1 ? l + 1 : secteur === 2 ? l : l - 1;
      if (!(f > force[p - d]! && f >= force[p + d]!)) continue;
      crete[p] = 1;
      angle[p] = t;
      let a = 0,
        b = 0,
        c = 0;
      for (let yy = Math.max(0, y - 2); yy <= Math.min(h - 1, y + 2); yy++) {
        for (let xx = Math.max(0, x - 2); xx <= Math.min(l - 1, x + 2); xx++) {
          const q = yy * l + xx;
          a += jxx[q]!;
          b += jyy[q]!;
          c += jxy[q]!;
        }
      }
      coherence[p] = a + b > 1e-6 ? Math.sqrt((a - b) * (a - b) + 4 * c * c) / (a + b) : 0;
    }
  }
  return { force, crete, angle, coherence };
};

/** The `q` quantile of the gradient inside the region (histogram of quarter levels: exact enough, no sort). */
const percentile = (force: Float32Array, region: Uint8Array | null, q: number): number => {
  const histo = new Uint32Array(4 * 512 + 1);
  let n = 0;
  for (let p = 0; p < force.length; p++) {
    if (region && !region[p]) continue;
    histo[Math.min(histo.length - 1, Math.round(force[p]! * 4))]!++;
    n++;
  }
  let cumul = 0;
  for (let i = 0; i < histo.length; i++) if ((cumul += histo[i]!) > q * n) return i / 4;
  return 0;
};

const structurelle = (a: Aretes, p: number, seuil: number): boolean => a.crete[p] === 1 && a.force[p]! >= seuil && a.coherence[p]! >= COHERENCE;

/**
 * `source`'s structural edges in the region (1) and those with an edge of `cible` nearby at a similar
 * angle (2), per pixel.
 */
const apparier = (source: Aretes, cible: Aretes, region: Uint8Array | null, l: number, h: number, seuil: number, rayon: number): Uint8Array => {
  const tolerance = (ANGLE * Math.PI) / 180;
  const etat = new Uint8Array(l * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < l; x++) {
      const p = y * l + x;
      if ((region && !region[p]) || !structurelle(source, p, seuil)) continue;
      etat[p] = 1;
      const t = source.angle[p]!;
      for (let dy = -rayon; dy <= rayon && etat[p] === 1; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= h) continue;
        for (let dx = -rayon; dx <= rayon; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= l || dx * dx + dy * dy > rayon * rayon + rayon) continue;
          const q = yy * l + xx;
          if (!cible.crete[q]) continue;
          const ecart = Math.abs(cible.angle[q]! - t);
          if (Math.min(ecart, Math.PI - ecart) <= tolerance) {
            etat[p] = 2;
            break;
          }
        }
      }
    }
  }
  return etat;
};

const f1 = (rappel: number, precision: number) => (rappel + precision > 0 ? (2 * rappel * precision) / (rappel + precision) : 0);

/** Integral image of (etat >= seuil): sums over any rectangle in four reads. */
const integrale = (etat: Uint8Array, l: number, h: number, seuil: number): Int32Array => {
  const s = new Int32Array((l + 1) * (h + 1));
  for (let y = 0; y < h; y++) {
    let ligne = 0;
    for (let x = 0; x < l; x++) {
      ligne += etat[y * l + x]! >= seuil ? 1 : 0;
      s[(y + 1) * (l + 1) + x + 1] = s[y * (l + 1) + x + 1]! + ligne;
    }
  }
  return s;
};
const somme = (s: Int32Array, l: number, x0: number, y0: number, x1: number, y1: number) =>
  s[y1 * (l + 1) + x1]! - s[y0 * (l + 1) + x1]! - s[y1 * (l + 1) + x0]! + s[y0 * (l + 1) + x0]!;

/**
 * The worst F1 over overlapping cells of CELLULE of the long side holding at least ARETES_CELLULE
 * edge pixels: a window moved in a large room changes a tenth of its lines, but all the lines of
 * the cells around that window.
 */
const pireCellule = (ra: Uint8Array, pb: Uint8Array, l: number, h: number): number => {
  const [na, ta, nb, tb] = [integrale(ra, l, h, 1), integrale(ra, l, h, 2), integrale(pb, l, h, 1), integrale(pb, l, h, 2)];
  const cote = Math.max(8, Math.round(CELLULE * Math.max(l, h)));
  const pas = cote >> 1;
  const departs = (n: number) => {
    const d: number[] = [];
    for (let v = 0; v + cote < n; v += pas) d.push(v);
    d.push(Math.max(0, n - cote));
    return d;
  };
  let pire = 1;
  for (const y0 of departs(h)) {
    for (const x0 of departs(l)) {
      const [x1, y1] = [Math.min(l, x0 + cote), Math.min(h, y0 + cote)];
      const [a, b] = [somme(na, l, x0, y0, x1, y1), somme(nb, l, x0, y0, x1, y1)];
      if (a + b < ARETES_CELLULE * cote) continue;
      const rappel = a ? somme(ta, l, x0, y0, x1, y1) / a : 1;
      const precision = b ? somme(tb, l, x0, y0, x1, y1) / b : 1;
      pire = Math.min(pire, f1(rappel, precision));
    }
  }
  return pire;
};

export const mesurerStructure = async (avant: Pixels, apres: Pixels, region: Uint8Array | Buffer | null): Promise<MesureStructure> => {
  if (avant.largeur !== apres.largeur || avant.hauteur !== apres.hauteur) throw new Error('mesurerStructure: images of different sizes');
  if (region && region.length !== avant.largeur * avant.hauteur) throw new Error('mesurerStructure: region of another size');
  const echelle = Math.min(1, COTE_ANALYSE / Math.max(avant.largeur, avant.hauteur));
  const [l, h] = [Math.max(3, Math.round(avant.largeur * echelle)), Math.max(3, Math.round(avant.hauteur * echelle))];
  const [a, b, r] = await Promise.all([reduire(avant, l, h), reduire(apres, l, h), region ? reduireRegion(region, avant, l, h) : null]);
  const [ta, tb] = [tenseur(a, l, h), tenseur(b, l, h)];
  const seuil = Math.max(PLANCHER, PART_FORTS * percentile(ta.force, r, PERCENTILE));
  // A match is never weaker than the floor: on a bare wall, plaster and grain match nothing.
  const faible = Math.max(PLANCHER, seuil * HYSTERESE);
  const [ea, eb] = [cretes(ta, l, h, faible), cretes(tb, l, h, faible)];
  const rayon = Math.max(1, Math.round(RAYON * Math.max(l, h)));
  const ra = apparier(ea, eb, r, l, h, seuil, rayon);
  const pb = apparier(eb, ea, r, l, h, seuil, rayon);
  let [na, trouvesA, nb, trouvesB] = [0, 0, 0, 0];
  for (let p = 0; p < ra.length; p++) {
    if (ra[p]) (na++, (trouvesA += ra[p]! >> 1));
    if (pb[p]) (nb++, (trouvesB += pb[p]! >> 1));
  }
  const aretes = na + nb;
  if (aretes < ARETES_MIN) return { score: 1, rappel: 1, precision: 1, aretes };
  const [rappel, precision] = [na ? trouvesA / na : 1, nb ? trouvesB / nb : 1];
  return { score: Math.min(f1(rappel, precision), pireCellule(ra, pb, l, h)), rappel, precision, aretes };
};
