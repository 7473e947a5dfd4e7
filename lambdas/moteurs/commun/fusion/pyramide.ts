/**
 * Laplacian and Gaussian pyramids for exposure fusion (Burt and Adelson; Mertens, Kautz and Van Reeth
 * 2007), accumulated one photo at a time: each photo's band-pass levels, weighted by the Gaussian pyramid
 * of its weights, are added into one output pyramid with the weights' own sums beside them, and the photo
 * is dropped. Memory is then the output pyramid (4/3 of one plane) whatever the number of photos. Each
 * level is divided by its weights' sum at the end (per-level normalisation): at the finest level this is
 * Mertens's normalised weights exactly; at coarser ones it differs from blurring normalised weights only
 * where the sum of the weights itself changes within the blur, and it is a partition of unity at every
 * level, so a uniform region stays uniform and no level is brightened or darkened.
 *
 * The filters: halving by [1 3 3 1]/8 (plan.ts) and doubling by linear interpolation, both centred. Any
 * pair rebuilds a single photo exactly (each band is defined as the difference the doubling leaves);
 * these are the cheapest that do not alias visibly in the blend. Same on the local and production
 * engines (no model).
 */
import { plan, reduireDeMoitie, type Plan } from './plan';

/** Interpolation along one axis: for each fine index, the coarse index below and the weight of the one above. */
export interface Axe {
  i0: Int32Array;
  f: Float32Array;
  n: number;
  /** Fine = 2 × coarse at i/2 − 1/4 (the usual case: even sizes): the fast path of `ligneAgrandie`. */
  double: boolean;
}

/** Fine index i sits at coarse coordinate `position(i)`, clamped to the coarse plane. */
export const axe = (fin: number, gros: number, position: (i: number) => number): Axe => {
  const [i0, f] = [new Int32Array(fin), new Float32Array(fin)];
  let double = fin === 2 * gros && gros > 1;
  for (let i = 0; i < fin; i++) {
    const x = Math.max(0, Math.min(gros - 1, position(i)));
    const j = Math.min(Math.max(0, gros - 2), Math.floor(x));
    i0[i] = j;
    f[i] = gros > 1 ? x - j : 0;
    double &&= Math.abs(position(i) - (i / 2 - 0.25)) < 1e-9;
  }
  return { i0, f, n: gros, double };
};

/** Between two levels of a pyramid (halving centred on 2i + 0.5): fine i is at coarse i/2 − 1/4. */
const axeDemi = (fin: number, gros: number): Axe => axe(fin, gros, (i) => i / 2 - 0.25);

/** Between a photo and its copy resized by libvips to `gros` (centre convention). */
export const axeRedimensionne = (fin: number, gros: number): Axe => axe(fin, gros, (i) => ((i + 0.5) * gros) / fin - 0.5);

/** Row `y` of the coarse plane interpolated vertically (coarse width), into `tampon`. */
export const ligneVerticale = (p: Plan, ay: Axe, y: number, tampon: Float32Array): void => {
  const { data, largeur: l } = p;
  const j = ay.i0[y]!;
  const fy = ay.f[y]!;
  const a = j * l;
  const b = Math.min(ay.n - 1, j + 1) * l;
  for (let i = 0; i < l; i++) tampon[i] = data[a + i]! + (data[b + i]! - data[a + i]!) * fy;
};

/** A coarse row enlarged along x into `ligne`, only for fine columns x0..x1. */
export const ligneHorizontalePartielle = (tampon: Float32Array, l: number, ax: Axe, ligne: Float32Array, x0: number, x1: number): void => {
  const { i0, f } = ax;
  const dernier = l - 1;
  for (let x = x0; x <= x1; x++) {
    const i = i0[x]!;
    const g = tampon[i]!;
    ligne[x] = g + (tampon[i < dernier ? i + 1 : i]! - g) * f[x]!;
  }
};

/** A coarse row enlarged along x into `ligne`: at twice the size, fixed weights ¼ ¾ (no index tables to read). */
export const ligneHorizontale = (tampon: Float32Array, l: number, ax: Axe, ligne: Float32Array): void => {
  if (ax.double) {
    const dernier = l - 1;
    ligne[0] = tampon[0]!;
    for (let i = 0; i < dernier; i++) {
      const a = tampon[i]!;
      const b = tampon[i + 1]!;
      ligne[2 * i + 1] = 0.75 * a + 0.25 * b;
      ligne[2 * i + 2] = 0.25 * a + 0.75 * b;
    }
    ligne[2 * dernier + 1] = tampon[dernier]!;
    return;
  }
  const { i0, f } = ax;
  const dernier = l - 1;
  for (let x = 0; x < ligne.length; x++) {
    const i = i0[x]!;
    const g = tampon[i]!;
    ligne[x] = g + (tampon[i < dernier ? i + 1 : i]! - g) * f[x]!;
  }
};

/** One output row of the bilinear enlargement of `p` (row `y` of the fine grid), into `ligne`. */
export const ligneAgrandie = (p: Plan, ax: Axe, ay: Axe, y: number, tampon: Float32Array, ligne: Float32Array): void => {
  ligneVerticale(p, ay, y, tampon);
  ligneHorizontale(tampon, p.largeur, ax, ligne);
};

/** `p` enlarged to l × h along the given axes. */
export const agrandir = (p: Plan, l: number, h: number, ax: Axe, ay: Axe): Plan => {
  const sortie = plan(l, h);
  const [tampon, ligne] = [new Float32Array(p.largeur), new Float32Array(l)];
  for (let y = 0; y < h; y++) {
    ligneAgrandie(p, ax, ay, y, tampon, ligne);
    sortie.data.set(ligne, y * l);
  }
  return sortie;
};

/** `p` resized to l × h (bilinear, centre convention): a small working plane brought to a photo's size. */
export const redimensionner = (p: Plan, l: number, h: number): Plan => agrandir(p, l, h, axeRedimensionne(l, p.largeur), axeRedimensionne(h, p.hauteur));

/** An output pyramid being accumulated: per level, Σ weight·band and Σ weight. */
export interface PyramideSomme {
  bandes: Plan[];
  poids: Plan[];
}

/** Levels of a plane of l × h: halve while the short side stays over 8 px. */
export const niveaux = (l: number, h: number): number => {
  let n = 1;
  for (let [a, b] = [l, h]; Math.min(a, b) >= 16; [a, b] = [a >> 1, b >> 1]) n++;
  return n;
};

export const pyramideVide = (l: number, h: number): PyramideSomme => {
  const [bandes, poids]: [Plan[], Plan[]] = [[], []];
  for (let k = 0, [a, b] = [l, h]; k < niveaux(l, h); k++, [a, b] = [Math.max(1, a >> 1), Math.max(1, b >> 1)]) {
    bandes.push(plan(a, b));
    poids.push(plan(a, b));
  }
  return { bandes, poids };
};

/** Adds one photo: its plane's Laplacian pyramid weighted by the Gaussian pyramid of its weights. */
export const accumuler = (somme: PyramideSomme, image: Plan, poids: Plan): void => {
  let [g, w] = [image, poids];
  const n = somme.bandes.length;
  for (let k = 0; k < n; k++) {
    const [bande, sommePoids] = [somme.bandes[k]!.data, somme.poids[k]!.data];
    const suivant = k === n - 1 ? null : reduireDeMoitie(g);
    const [l, h] = [g.largeur, g.hauteur];
    const [gd, wd] = [g.data, w.data];
    if (!suivant) {
      for (let p = 0; p < gd.length; p++) ((bande[p]! += wd[p]! * gd[p]!), (sommePoids[p]! += wd[p]!));
      break;
    }
    // The band row by row (the next level enlarged one row at a time): no plane of the level's size made.
    const [ax, ay] = [axeDemi(l, suivant.largeur), axeDemi(h, suivant.hauteur)];
    const [tampon, plus] = [new Float32Array(suivant.largeur), new Float32Array(l)];
    for (let y = 0; y < h; y++) {
      ligneAgrandie(suivant, ax, ay, y, tampon, plus);
      for (let x = 0, p = y * l; x < l; x++, p++) {
        const wp = wd[p]!;
        bande[p]! += wp * (gd[p]! - plus[x]!);
        sommePoids[p]! += wp;
      }
    }
    [g, w] = [suivant, reduireDeMoitie(w)];
  }
};

/** The fused plane: each level divided by its weights, then collapsed from the coarsest. */
export const reconstruire = (somme: PyramideSomme): Plan => {
  const n = somme.bandes.length;
  let courant: Plan | null = null;
  for (let k = n - 1; k >= 0; k--) {
    const [bande, poids] = [somme.bandes[k]!, somme.poids[k]!];
    const { largeur: l, hauteur: h } = bande;
    const plus = courant ? agrandir(courant, l, h, axeDemi(l, courant.largeur), axeDemi(h, courant.hauteur)).data : null;
    const sortie = plan(l, h);
    for (let p = 0; p < sortie.data.length; p++) sortie.data[p] = bande.data[p]! / (poids.data[p]! || 1e-30) + (plus ? plus[p]! : 0);
    courant = sortie;
  }
  return courant!;
};

/**
 * A photo's plane with what it cannot be trusted on (`confiance` under 1: blown, or deep in the dark,
 * ponderation.ts) filled from its own trusted surroundings, by pull-push: confidence-weighted means up
 * the pyramid, then each level completed from the coarser one down. Why: a blown window's white, kept in a photo's plane, rises into
 * its coarse levels and, through the weights of the wall around it (which that photo exposes well), lifts
 * the window's base in the result: a washed-out window with its view's detail laid on white. Filled, the
 * photo brings to the coarse levels the light of what it does see, and only the photo that sees the
 * window sets the window's base. Where the confidence is 1 the plane is unchanged.
 */
export const remplir = (p: Plan, confiance: Float32Array): Plan => {
  // A photo trusted everywhere: unchanged, at no cost.
  let rien = true;
  for (let i = 0; i < confiance.length && rien; i++) rien = confiance[i]! >= 1;
  if (rien) return p;
  const produit = new Float32Array(p.data.length);
  for (let i = 0; i < produit.length; i++) produit[i] = p.data[i]! * confiance[i]!;
  const ponderes: Plan[] = [plan(p.largeur, p.hauteur, produit)];
  const poids: Plan[] = [plan(p.largeur, p.hauteur, confiance)];
  while (ponderes.at(-1)!.largeur > 1 || ponderes.at(-1)!.hauteur > 1) {
    ponderes.push(reduireDeMoitie(ponderes.at(-1)!));
    poids.push(reduireDeMoitie(poids.at(-1)!));
  }
  // The coarsest level: the trusted mean (or mid-grey where nothing is trusted at all).
  const haut = ponderes.length - 1;
  let rempli = plan(1, 1, Float32Array.of(poids[haut]!.data[0]! > 1e-6 ? ponderes[haut]!.data[0]! / poids[haut]!.data[0]! : 0.5));
  for (let k = haut - 1; k >= 0; k--) {
    const [v, c] = [ponderes[k]!, poids[k]!];
    const { largeur: l, hauteur: h } = v;
    const grossier = agrandir(rempli, l, h, axeDemi(l, rempli.largeur), axeDemi(h, rempli.hauteur)).data;
    const sortie = plan(l, h);
    for (let i = 0; i < sortie.data.length; i++) {
      // At the finest level the confidence itself; coarser, a mean confidence of 1/4 already says enough.
      const ci = c.data[i]!;
      const a = k === 0 ? ci : Math.min(1, 4 * ci);
      sortie.data[i] = a * (ci > 1e-6 ? v.data[i]! / ci : 0) + (1 - a) * grossier[i]!;
    }
    rempli = sortie;
  }
  return rempli;
};
