/**
 * Faces found by a trained model in the local preview engine: BlazeFace (Google MediaPipe, Apache-2.0),
 * as shipped with its weights inside the npm package @vladmandic/human (MIT), run as human.ts says.
 * Production uses Rekognition (bedrock/rekognition-personnes.ts); both answer the DetecteurPersonnes
 * interface.
 *
 * BlazeFace looks at a small square input, so a face that is a few dozen pixels wide in a large photo
 * would be lost in one pass over the whole frame: the photo is read at most 1280 px wide, in the whole
 * frame and in overlapping tiles of 640 px, and what is found twice is merged (personnes.ts,
 * `fusionner`). Faces in profile, masked or turned away are missed, as with any frontal face detector.
 */
import { unePourConteneur } from '../../core/infra/dependances';
import type { Rectangle } from '../commun/masques';
import { fusionner, type RegionPersonnelle } from '../commun/personnes';
import { aLEchelle, type Pixels } from '../commun/pixels';
import { creerHuman, tenseur } from './human';

const COTE_ANALYSE = 1280;
const COTE_TUILE = 640;
/** BlazeFace's own score, 0–1: under it a detection is more often a pattern than a face. */
const CONFIANCE_MIN = 0.5;

/** Loaded once per process (a container on AWS): the WebAssembly backend and the model, about 0.1 s. */
const charger = unePourConteneur(() =>
  creerHuman({
    face: {
      enabled: true,
      detector: {
        modelPath: '@vladmandic/human/models/blazeface.json',
        rotation: false,
        skipFrames: 0,
        skipTime: 0,
        maxDetected: 100,
        minConfidence: CONFIANCE_MIN,
        return: false,
      },
      mesh: { enabled: false },
      iris: { enabled: false },
      description: { enabled: false },
      emotion: { enabled: false },
      antispoof: { enabled: false },
      liveness: { enabled: false },
      attention: { enabled: false },
    },
  }),
);

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
  const analyse = await aLEchelle(photo, COTE_ANALYSE, 2);
  const [l, h] = [analyse.largeur, analyse.hauteur];
  const trouves: RegionPersonnelle[] = [];
  for (const f of fenetres(l, h)) {
    const image = tenseur(analyse, f);
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
