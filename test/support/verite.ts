/**
 * The real photographs of test/photos and their truth (verite.json: boxes drawn by COCO's annotators
 * or by hand here; test/photos/SOURCES.md), and how detections are scored against it: each true box
 * is matched at most once, by the detection of its class that overlaps it most, at IoU ≥ 0.5, the
 * detections taken in decreasing confidence, as object-detection benchmarks score.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Rectangle } from '../../lambdas/moteurs/commun/masques';
import { iou } from './boites';

export const DOSSIER_PHOTOS = path.join(import.meta.dirname, '..', 'photos');

export type ClasseVerite = 'meuble' | 'fixe' | 'visage' | 'plaque';
export interface ObjetVrai {
  classe: ClasseVerite;
  nom?: string;
  lisible?: boolean;
  boite: [number, number, number, number];
}
export interface PhotoVraie {
  lieu: 'interieur' | 'exterieur';
  meublee: boolean;
  ciel: boolean;
  hiver: boolean;
  objets: ObjetVrai[];
  fenetres_partielles?: boolean;
}

export const verite = (): Record<string, PhotoVraie> =>
  JSON.parse(readFileSync(path.join(DOSSIER_PHOTOS, 'verite.json'), 'utf8')) as Record<string, PhotoVraie>;

export const photo = (nom: string): Buffer => readFileSync(path.join(DOSSIER_PHOTOS, nom));

export const rectangle = ([x0, y0, x1, y1]: readonly number[]): Rectangle => ({ x0: x0!, y0: y0!, x1: x1!, y1: y1! });

export interface Detection {
  boite: Rectangle;
  confiance: number;
}

/** Counts of one class: true boxes found, true boxes to find, detections that matched nothing. */
export interface Score {
  trouves: number;
  attendus: number;
  fausses: number;
}

export const SCORE_VIDE: Score = { trouves: 0, attendus: 0, fausses: 0 };

export const ajouter = (a: Score, b: Score): Score => ({ trouves: a.trouves + b.trouves, attendus: a.attendus + b.attendus, fausses: a.fausses + b.fausses });

/**
 * `vrais`: the boxes to find; `ignores`: true boxes a detection may match without counting either way
 * (a face under 24 px, an illegible plate): finding one is no error, missing it no miss.
 */
export const apparier = (detections: readonly Detection[], vrais: readonly Rectangle[], ignores: readonly Rectangle[] = [], seuil = 0.5): Score => {
  const libres = new Set(vrais.map((_, i) => i));
  let [trouves, fausses] = [0, 0];
  for (const d of [...detections].sort((a, b) => b.confiance - a.confiance)) {
    let [meilleur, indice] = [seuil, -1];
    for (const i of libres) {
      const v = iou(d.boite, vrais[i]!);
      if (v >= meilleur) [meilleur, indice] = [v, i];
    }
    if (indice >= 0) {
      libres.delete(indice);
      trouves++;
    } else if (!ignores.some((r) => iou(d.boite, r) >= seuil)) fausses++;
  }
  return { trouves, attendus: vrais.length, fausses };
};

export const rappel = (s: Score): number => (s.attendus ? s.trouves / s.attendus : NaN);
export const precision = (s: Score): number => (s.trouves + s.fausses ? s.trouves / (s.trouves + s.fausses) : NaN);
