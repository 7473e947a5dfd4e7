/**
 * `fusion`: the bracketed exposures of one view merged into one photo whose windows show the outside and
 * whose corners are not black. Classical image processing, no model: the same code and the same bytes on
 * the local preview and the production engines, so its result is never a preview's stand-in.
 *
 * The steps, each in its module with its reasons:
 * 1. decodage.ts: the headers checked (format, size limit, one size once upright), each photo decoded
 *    upright at its depth (16-bit PNG at 16 bits), and a small copy made (long side 1024 px).
 * 2. expositions.ts: ordered by brightness (the request's order does not matter), the middle one is the
 *    reference; a bracket of one exposure is refused (`expositions_identiques`).
 * 3. alignement.ts: each photo aligned to its neighbour towards the reference (the smallest exposure gaps)
 *    on the small copies, sub-pixel; one that cannot be is refused (`vues_differentes`).
 * 4. fantomes.ts and assemblage.ts: what moved between frames is taken from the reference; apport.ts:
 *    where a darker photo shows more than the reference's white (elsewhere the reference keeps its own).
 * 5. deformation.ts, ponderation.ts, mertens.ts and pyramide.ts: each photo warped at full size by
 *    libvips, weighed against the reference (its blown and dark parts go to the other photos), and merged
 *    (Mertens's exposure fusion) one at a time into one output pyramid; the next photo is warped on
 *    libvips's threads while the main thread merges the current one.
 * 6. Straight verticals and balanced light, as `ciel` does them (redressement.ts, shared, not copied),
 *    then the structure check every image result passes, where the reference is trusted.
 *
 * Measured on 5 × 24 MP brackets on 2 cores: docs/engines.md, "fusion" (npm run bench:fusion).
 */
import { ErreurTravail } from '../../../core/modele/erreurs';
import type { FormatImage } from '../../../core/modele/images';
import type { ControleStructure } from '../../../core/modele/sorties';
import { depuisPixels, versPixels, type Pixels, type Pixels16 } from '../pixels';
import { copieAnalyse } from '../ciel-masque';
import { partagee, preparer, repartir, tache } from '../parallele';
import { appliquerLumiere, estimerVerticales, redresserVerticales, reglageLumiere, type Verticales } from '../redressement';
import { mesurerStructure, SEUIL_STRUCTURE } from '../structure';
import { aligner, SCORE_MIN, type Alignement } from './alignement';
import { assembler } from './assemblage';
import { analyser, decoderEntree, lireEntrees, type Copie, type Entree } from './decodage';
import { deformer, type Cadre, type Image } from './deformation';
import { ecartEV, ordonner, verifierEcarts } from './expositions';
import { detecterFantomes, type Fantomes } from './fantomes';
import { ajouterPhoto, nouvelleFusion, terminer } from './mertens';
import { regionDeConfiance } from './ponderation';
import { plan, type Plan } from './plan';
import { redimensionner } from './pyramide';
import { aLEchelle, composer, echelle, IDENTITE, rotationDegres, type Transformation } from './transformation';

/** What a hand can do between the frames of a bracket; beyond, two photos are of different views. */
const ROTATION_MAX = 5;
const DECALAGE_MAX = 0.12;
const ECHELLE_MAX = 0.05;

export interface MesurePhoto {
  /** Position in the request (0-based). */
  index: number;
  /** Exposure relative to the reference, EV (positive: brighter). */
  ev: number;
  /** Where the reference's centre lies in this photo, full-size pixels; and its turn (degrees) and scale. */
  decalage: { x: number; y: number };
  rotation: number;
  echelle: number;
  /** Correlation with its neighbour once aligned (1 for the reference). */
  score: number;
  /** Share of the frame taken from the reference as a ghost. */
  fantomes: number;
}

export interface MesuresFusion {
  /** Request positions from darkest to brightest. */
  ordre: number[];
  photos: MesurePhoto[];
  verticales: Verticales;
  /** Wall time of each stage, ms (decoding for the merge overlaps the merge and counts there). */
  durees: { decodage: number; alignement: number; fusion: number; redressement: number };
}

export interface ResultatFusion {
  /** At 16 bits when the reference is a 16-bit PNG (its depth kept), else 8. */
  pixels: Pixels | Pixels16;
  /** The first photo's format, the result's. */
  format: FormatImage;
  /** Position in the request of the reference: the result has its geometry and its moving things. */
  reference: number;
  /** The result's lines against the reference's (structure.ts), both straightened alike. */
  structure: ControleStructure;
  mesures: MesuresFusion;
}

interface Aligne {
  /** From the reference's pixel to the photo's, on the analysis copies. */
  t: Transformation;
  score: number;
}

const refuser = (photo: Entree, voisine: Entree): never => {
  throw new ErreurTravail(
    'vues_differentes',
    `The photos are not of the same view: photo ${photo.index + 1} could not be aligned with photo ${voisine.index + 1}.`,
  );
};

/** One pair's alignment (alignement.ts), a task of its own: the pairs are independent until composed. */
export const ALIGNEMENT = tache<{ voisine: Plan; photo: Plan }, Alignement>('fusion.alignement', [], ({ voisine, photo }) => aligner(voisine, photo));
/** One photo's ghosts against the reference (fantomes.ts). */
const FANTOMES = tache<{ ref: Copie; photo: Copie; t: Transformation; ev: number }, Fantomes>('fusion.fantomes', [], ({ ref, photo, t, ev }) =>
  detecterFantomes(ref, photo, t, ev),
);

/**
 * Each photo aligned to its neighbour towards the reference, the transforms composed from the reference out.
 * The pairs are aligned half on the worker (parallele.ts), then judged and composed here in order.
 */
const alignerTout = async (entrees: readonly Entree[], copies: readonly Copie[], ordre: readonly number[], reference: number): Promise<Aligne[]> => {
  const r = ordre.indexOf(reference);
  // From the reference out, the darker side first: [photo, its neighbour towards the reference].
  const paires: (readonly [number, number])[] = [];
  for (const sens of [-1, 1]) for (let q = r + sens; q >= 0 && q < ordre.length; q += sens) paires.push([ordre[q]!, ordre[q - sens]!]);
  const mesures = await repartir(
    ALIGNEMENT,
    paires.map(([k, voisine]) => ({ voisine: copies[voisine]!.luminance, photo: copies[k]!.luminance })),
  );
  const alignes: Aligne[] = new Array<Aligne>(copies.length);
  alignes[reference] = { t: IDENTITE, score: 1 };
  const { largeur: l } = copies[reference]!.luminance;
  paires.forEach(([k, voisine], i) => {
    const a = mesures[i]!;
    const t = a.transformation;
    const plausible = Math.abs(rotationDegres(t)) <= ROTATION_MAX && Math.hypot(t.tx, t.ty) <= DECALAGE_MAX * l && Math.abs(echelle(t) - 1) <= ECHELLE_MAX;
    if (a.score < SCORE_MIN || a.recouvrement < 0.5 || !plausible) refuser(entrees[k]!, entrees[voisine]!);
    alignes[k] = { t: composer(t, alignes[voisine]!.t), score: a.score };
  });
  return alignes;
};

/** Where any darker photo shows more than the reference's white (apport.ts), or null when none is darker. */
const apportDesSombres = (fantomes: readonly (Fantomes | null)[]): Plan | null => {
  let apport: Plan | null = null;
  for (const f of fantomes) {
    if (!f?.apport) continue;
    if (!apport) apport = plan(f.apport.largeur, f.apport.hauteur, Float32Array.from(f.apport.data));
    else for (let p = 0; p < apport.data.length; p++) apport.data[p] = Math.max(apport.data[p]!, f.apport.data[p]!);
  }
  return apport;
};

/** A decoded photo in shared memory (parallele.ts). */
const enPartage = (im: Image): Image => ({ ...im, data: partagee(im.data) });

/** A photo being warped on libvips's threads, while the main thread works on. */
type Deformee = Promise<Cadre>;

/**
 * The full-size photos merged: the reference first (it needs no warp, so the main thread starts at once
 * while the next photo warps), then the others from darkest to brightest. A fixed order, so the sums,
 * and the bytes, do not depend on the request's order.
 */
const fusionnerPleine = async (
  lire: (k: number) => Promise<Image>,
  ordre: readonly number[],
  reference: number,
  deformees: Map<number, Deformee>,
  deformerSuivante: (k: number) => Deformee,
  fantomes: readonly (Fantomes | null)[],
  evs: readonly number[],
  apport: Plan | null,
): Promise<Pixels | Pixels16> => {
  // Shared (parallele.ts): every frame's assembly and the final assembly read it on both threads. Neither the
  // decoded copy nor a frame's canvas is bound to a name here, so each is freed once used: at 50 MP, 150 MB each.
  const refImage = enPartage(await lire(reference));
  const fusion = nouvelleFusion(refImage.largeur, refImage.hauteur);
  const suite = ordre.filter((k) => k !== reference);
  const deformee = (k: number): Deformee => deformees.get(k) ?? deformerSuivante(k);
  const assemblee = async (k: number, cadre: Deformee): Promise<Image> => assembler(await cadre, refImage, fantomes[k]!);
  let suivante = suite[0] === undefined ? null : deformee(suite[0]);
  await ajouterPhoto(fusion, refImage, 0, apport);
  for (let q = 0; q < suite.length; q++) {
    const prete = assemblee(suite[q]!, suivante!);
    deformees.delete(suite[q]!);
    // The next one warps while this one is assembled and merged.
    suivante = q + 1 < suite.length ? deformee(suite[q + 1]!) : null;
    await ajouterPhoto(fusion, await prete, evs[suite[q]!]!);
  }
  return terminer(fusion, refImage);
};

/** The reference's small copy as 8-bit pixels, for the structure check. */
const pixelsDeCopie = (c: Copie): Pixels => {
  const { largeur, hauteur } = c.luminance;
  const data = Buffer.alloc(largeur * hauteur * 3);
  for (let p = 0; p < largeur * hauteur; p++) {
    data[p * 3] = Math.round(c.rouge.data[p]! * 255);
    data[p * 3 + 1] = Math.round(c.vert.data[p]! * 255);
    data[p * 3 + 2] = Math.round(c.bleu.data[p]! * 255);
  }
  return { data, largeur, hauteur };
};

/** A mask (1 = in) as 3-channel pixels, so that it goes through the same straightening as a photo. */
const pixelsDeMasque = (m: Uint8Array, largeur: number, hauteur: number): Pixels => {
  const data = Buffer.alloc(largeur * hauteur * 3);
  for (let p = 0; p < m.length; p++) if (m[p]) data.fill(255, p * 3, p * 3 + 3);
  return { data, largeur, hauteur };
};

/**
 * Straight verticals and balanced light, as `ciel` does them; then the structure check every image result
 * passes (structure.ts): the result's lines against the reference's, both straightened alike, where the
 * reference is trusted (ponderation.ts). Only there: elsewhere the merge is meant to show what the
 * reference did not (a window's view, a dark corner's furniture), lines the reference never had. Where it
 * is trusted the result is the reference's own, so a line lost or moved there is a merge gone wrong (a
 * frame misaligned, a ghost let through), refused like any tool's (`structure_modifiee`).
 */
const redresserEtControler = async (
  fusionnee: Pixels | Pixels16,
  refCopie: Copie,
  apport: Plan | null,
): Promise<{ pixels: Pixels | Pixels16; verticales: Verticales; structure: ControleStructure }> => {
  // One copy of the merge at the analysis size serves the verticals' estimate, the light's setting and the
  // structure check (which reduces both photos to 512 px anyway): each reduced the 24 MP merge on its own before,
  // three resizes of 72 MB, half a second.
  const { largeur: l, hauteur: h } = refCopie.luminance;
  // At 8 bits whatever the merge's depth: the estimates and the check read 8-bit copies.
  const petite = await versPixels(depuisPixels(fusionnee).resize(l, h, { fit: 'fill', kernel: 'linear' }).toColourspace('srgb'));
  const verticales = await estimerVerticales(petite);
  const petiteDroite = await redresserVerticales(petite, verticales);
  const reglage = reglageLumiere(await copieAnalyse(petiteDroite));
  const pixels = await appliquerLumiere(await redresserVerticales(fusionnee, verticales), reglage);
  const avant = await redresserVerticales(pixelsDeCopie(refCopie), verticales);
  const apportCopie = apport && redimensionner(apport, l, h);
  const confiance = regionDeConfiance(refCopie.rouge, refCopie.vert, refCopie.bleu, refCopie.luminance, apportCopie);
  const region = await redresserVerticales(pixelsDeMasque(confiance, l, h), verticales);
  const dedans = new Uint8Array(l * h);
  for (let p = 0; p < dedans.length; p++) dedans[p] = region.data[p * 3]! > 127 ? 1 : 0;
  const { score } = await mesurerStructure(avant, await appliquerLumiere(petiteDroite, reglage), dedans);
  if (score < SEUIL_STRUCTURE) throw new ErreurTravail('structure_modifiee');
  return { pixels, verticales, structure: { score, seuil: SEUIL_STRUCTURE, essais: 1 } };
};

export const fusionner = async (images: readonly Buffer[]): Promise<ResultatFusion> => {
  // The worker of the full-size passes boots while the photos decode.
  preparer();
  let debut = performance.now();
  const tour = () => {
    const [avant, maintenant] = [debut, performance.now()];
    debut = maintenant;
    return Math.round(maintenant - avant);
  };
  const entrees = await lireEntrees(images);
  if (entrees.length < 2) verifierEcarts([0]);
  const { copies, decodees } = await analyser(entrees);
  const decodage = tour();
  const { ordre, reference } = ordonner(copies);
  const alignes = await alignerTout(entrees, copies, ordre, reference);
  const refCopie = copies[reference]!;
  const { largeur: L, hauteur: H } = entrees[reference]!;
  const [fx, fy] = [L / refCopie.luminance.largeur, H / refCopie.luminance.hauteur];
  const pleine = alignes.map((a) => aLEchelle(a.t, fx, fy));
  const lire = async (k: number): Promise<Image> => {
    const image = decodees[k] ?? (await decoderEntree(entrees[k]!));
    decodees[k] = null;
    return image;
  };
  const deformerSuivante = async (k: number): Promise<Cadre> => deformer(await lire(k), pleine[k]!);
  const evs = alignes.map((a, k) => (k === reference ? 0 : ecartEV(refCopie.luminance, copies[k]!.luminance, a.t)));
  verifierEcarts(evs);
  // The first photo to merge after the reference starts warping now, while the ghosts are looked for.
  const premiere = ordre.find((k) => k !== reference)!;
  const deformees = new Map<number, Deformee>([[premiere, deformerSuivante(premiere)]]);
  const autres = ordre.filter((k) => k !== reference);
  const trouves = await repartir(
    FANTOMES,
    autres.map((k) => ({ ref: refCopie, photo: copies[k]!, t: alignes[k]!.t, ev: evs[k]! })),
  );
  const fantomes = alignes.map((_, k) => (k === reference ? null : trouves[autres.indexOf(k)]!));
  const apport = apportDesSombres(fantomes);
  const alignement = tour();
  const fusionnee = await fusionnerPleine(lire, ordre, reference, deformees, deformerSuivante, fantomes, evs, apport);
  const fusion = tour();
  const { pixels, verticales, structure } = await redresserEtControler(fusionnee, refCopie, apport);
  const redressement = tour();
  const photos = alignes.map((a, index) => ({
    index,
    ev: evs[index]!,
    decalage: { x: pleine[index]!.tx, y: pleine[index]!.ty },
    rotation: rotationDegres(a.t),
    echelle: echelle(a.t),
    score: a.score,
    fantomes: fantomes[index]?.part ?? 0,
  }));
  return {
    pixels,
    format: entrees[0]!.format,
    reference,
    structure,
    mesures: { ordre, photos, verticales, durees: { decodage, alignement, fusion, redressement } },
  };
};
