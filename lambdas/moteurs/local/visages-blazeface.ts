/**
 * Faces found by a trained model in the local preview engine: BlazeFace (Google MediaPipe, Apache-2.0),
 * as shipped with its weights inside the npm package @vladmandic/human (MIT), run as human.ts says.
 * Production uses Rekognition (bedrock/rekognition-personnes.ts); both answer the DetecteurPersonnes
 * interface.
 *
 * BlazeFace looks at a small square input, so a face that is a few dozen pixels wide in a large photo
 * would be lost in one pass over the whole frame: the photo is read at most 1280 px wide, in the whole
 * frame and in overlapping tiles of 427 px, and what is found twice is merged (personnes.ts,
 * `fusionner`); a detection of middling score is looked at again, centred, before it is kept. Faces in profile, masked or turned away are missed, as with any frontal face detector.
 */
import { unePourConteneur } from '../../core/infra/dependances';
import type { Rectangle } from '../commun/masques';
import { fusionner, type RegionPersonnelle } from '../commun/personnes';
import sharp from 'sharp';
import { aLEchelle, depuisPixels, type Pixels } from '../commun/pixels';
import { creerHuman, tenseur, type Human } from './human';

const COTE_ANALYSE = 1280;
/**
 * A third of the analysed width: BlazeFace reads 256 px, so a face of 27 px in a 640 px street photo
 * (54 px once enlarged) is 32 px there; with tiles of 640 px it was 22 px and a smiling woman in a
 * crowd of test/photos was missed. Twice the tiles of 640 px, about 0.3 s more per photo.
 */
const COTE_TUILE = 427;
/** BlazeFace's own score, 0–1: under it a detection is more often a pattern than a face. */
const CONFIANCE_MIN = 0.5;
/**
 * Under this score a detection is looked at again, centred and at the size BlazeFace reads best (a third
 * and a quarter of its input), and kept only if found there at VERIFICATION or more. On test/photos the
 * faces drawn by hand scored 0.58–0.96 in the first pass and 0.6 or more when looked at again (a man
 * with a telephone at his ear, in half profile: 0.6–0.7), while what was no face (roof beams, a window
 * of a facade, a hall's woodwork, a shop sign, hands, the back of a head) scored up to 0.65 in the
 * first pass and at most 0.52 the second time. Chosen on those photos: a false face costs a blurred
 * patch and a count, a missed one a person's privacy, so the bar sits at the low end of the faces.
 */
const CONFIANCE_SURE = 0.75;
const VERIFICATION = 0.6;
const COTE_VERIFICATION = 256;

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

/**
 * The square of side `cote` centred on (cx, cy), the frame's edge mirrored where it runs out, read at
 * BlazeFace's best size: the best score of a face whose centre lies in its middle third, and its box in
 * the photo's pixels.
 */
const revoir = async (human: Human, analyse: Pixels, cx: number, cy: number, cote: number) => {
  const [l, h] = [analyse.largeur, analyse.hauteur];
  const c = Math.max(8, Math.round(cote));
  const [x0, y0] = [Math.round(cx - c / 2), Math.round(cy - c / 2)];
  const dedans = { left: Math.max(0, x0), top: Math.max(0, y0), width: Math.min(l, x0 + c) - Math.max(0, x0), height: Math.min(h, y0 + c) - Math.max(0, y0) };
  if (dedans.width < 2 || dedans.height < 2) return undefined;
  const coupe = await depuisPixels(analyse)
    .extract(dedans)
    .extend({
      left: Math.min(dedans.width - 1, dedans.left - x0),
      top: Math.min(dedans.height - 1, dedans.top - y0),
      right: Math.min(dedans.width - 1, x0 + c - dedans.left - dedans.width),
      bottom: Math.min(dedans.height - 1, y0 + c - dedans.top - dedans.height),
      extendWith: 'mirror',
    })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const n = COTE_VERIFICATION;
  const carre = await sharp(coupe.data, { raw: { width: coupe.info.width, height: coupe.info.height, channels: 3 } })
    .resize(n, n, { fit: 'fill' })
    .raw()
    .toBuffer();
  const image = tenseur({ data: carre, largeur: n, hauteur: n });
  try {
    const [ex, ey] = [c / n, c / n];
    const centraux = (await human.detect(image)).face.filter((v) => {
      const [x, y, lv, hv] = v.box;
      return Math.abs(x + lv / 2 - n / 2) < n / 6 && Math.abs(y + hv / 2 - n / 2) < n / 6;
    });
    const meilleur = centraux.sort((a, b) => b.boxScore - a.boxScore)[0];
    if (!meilleur) return undefined;
    const [x, y, lv, hv] = meilleur.box;
    return { score: meilleur.boxScore, boite: { x0: x0 + x * ex, y0: y0 + y * ey, x1: x0 + (x + lv) * ex, y1: y0 + (y + hv) * ey } };
  } finally {
    image.dispose();
  }
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
  const gardes: RegionPersonnelle[] = [];
  for (const v of fusionner(trouves)) {
    if (v.confiance >= CONFIANCE_SURE) {
      gardes.push(v);
      continue;
    }
    const [cx, cy] = [((v.boite.x0 + v.boite.x1) / 2) * l, ((v.boite.y0 + v.boite.y1) / 2) * h];
    const cote = Math.max((v.boite.x1 - v.boite.x0) * l, (v.boite.y1 - v.boite.y0) * h);
    const vues = [await revoir(human, analyse, cx, cy, 3 * cote), await revoir(human, analyse, cx, cy, 4 * cote)].filter((r) => r !== undefined);
    const sure = vues.filter((r) => r.score >= VERIFICATION);
    if (sure.length === 0) continue;
    // The box seen centred is usually the better one: both are blurred.
    const b = sure.sort((a, c) => c.score - a.score)[0]!.boite;
    gardes.push({
      genre: 'visage',
      confiance: Math.max(v.confiance, ...sure.map((r) => r.score)),
      boite: {
        x0: Math.min(v.boite.x0, b.x0 / l),
        y0: Math.min(v.boite.y0, b.y0 / h),
        x1: Math.max(v.boite.x1, b.x1 / l),
        y1: Math.max(v.boite.y1, b.y1 / h),
      },
    });
  }
  return gardes;
};
