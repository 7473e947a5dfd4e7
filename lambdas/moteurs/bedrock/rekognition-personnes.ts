/**
 * The production face and plate detector (the `floutage` setting): Amazon Rekognition, on the tool's
 * result, before it is blurred and signed.
 *
 * Faces: DetectFaces, whose boxes are the face itself (forehead to chin); DetectLabels' "Person" boxes
 * are whole bodies, and blurring a body hides far more than the face. Rekognition finds a face down to
 * 40 × 40 px in a 1920 × 1080 image, and in a larger image only a proportionally larger one
 * (Rekognition Developer Guide, "Guidelines and quotas"): sending a bigger JPEG does not find smaller
 * faces. So the photo is sent whole at a 1920 px long edge, and, when it is larger than 3200 px, also
 * as overlapping tiles of at most 3200 px (each again at 1920 px): faces down to about 65 px of the
 * photo are found in a 12, 24 or 50 MP photo (a 24 MP photo: 5 calls, a 50 MP one: 7), instead of
 * 125–180 px from one call.
 *
 * Plates: no Rekognition operation returns plates as such. DetectText finds text lines with their boxes,
 * but on the whole photo it finds house numbers, shop signs and the agency's board as well, and misses
 * a plate's small characters in a 1920 px copy of a 24 MP photo. DetectLabels returns instance boxes for
 * vehicles (its documented box-bearing labels include cars). So: DetectLabels on the photo (1600 px, as
 * the furniture detector), then DetectText on each vehicle found (at most 6, the largest), cut from the
 * full-size result: a text line of 2 to 10 letters or digits in the lower part of a vehicle is its
 * plate. A "License Plate" label instance, if Rekognition returns one, is taken as a plate directly.
 * No vehicle found, no DetectText call. Boxes are fractions of what was sent, turned into fractions of
 * the photo.
 *
 * The calls are made one after the other (a batch of 50 jobs must not burst past Rekognition's
 * transactions per second), by a client that retries throttling a few times itself: this detector runs
 * after the paid model call, which a failure here would repeat.
 */
import { DetectFacesCommand, DetectLabelsCommand, DetectTextCommand, type BoundingBox, type Label, type RekognitionClient } from '@aws-sdk/client-rekognition';
import type { Rectangle } from '../commun/masques';
import type { DetecteurPersonnes, Genre, RegionPersonnelle } from '../commun/personnes';
import { depuisPixels, type Pixels } from '../commun/pixels';
import { erreurDeBedrock } from './erreurs';

/** Long edge of every image sent: Rekognition's own reference size for its smallest face (40 px in 1920 × 1080). */
export const COTE_ENVOI = 1920;
/** Longest tile edge in the photo's pixels: a face of 40 × 3200 / 1920 ≈ 67 px is still found in it. */
export const COTE_TUILE = 3200;
/** Smallest face Rekognition finds in an image sent at COTE_ENVOI (Developer Guide, "Guidelines and quotas"). */
const VISAGE_MIN_ENVOI = 40;
/** The smallest image Rekognition accepts, in pixels per side. */
const COTE_MIN = 80;
/** Rekognition's limit for image bytes in a request. */
const OCTETS_MAX = 5 * 1024 * 1024;
/** Long edge sent to DetectLabels: vehicle boxes are fractions, the furniture detector's size is enough. */
const COTE_LABELS = 1600;
/** Below these, a guess: but a face missed is worse than a wall blurred, so the floors are low. */
const CONFIANCE_VISAGE = 50;
const CONFIANCE_LABEL = 50;
const CONFIANCE_TEXTE = 50;
/** DetectText calls per photo at most: the largest vehicles. */
const MAX_VEHICULES = 6;

/** A part of the photo, in its pixels. */
export interface Tuile {
  gauche: number;
  haut: number;
  largeur: number;
  hauteur: number;
}

/**
 * What DetectFaces is shown: the whole photo, then, for a photo longer than COTE_TUILE, a grid of tiles
 * of at most COTE_TUILE px. Tiles overlap by one and a half times the smallest face the whole-frame call
 * finds, so any face it may miss lies entirely inside one tile.
 */
export const tuiles = (largeur: number, hauteur: number): Tuile[] => {
  const entiere = { gauche: 0, haut: 0, largeur, hauteur };
  const [nx, ny] = [Math.ceil(largeur / COTE_TUILE), Math.ceil(hauteur / COTE_TUILE)];
  if (nx * ny <= 1) return [entiere];
  const recouvrement = Math.ceil((1.5 * VISAGE_MIN_ENVOI * Math.max(largeur, hauteur)) / COTE_ENVOI);
  const bornes = (n: number, cote: number, i: number) => {
    const debut = Math.max(0, Math.floor((i * cote) / n - recouvrement / 2));
    return [debut, Math.min(cote, Math.ceil(((i + 1) * cote) / n + recouvrement / 2)) - debut] as const;
  };
  const liste = [entiere];
  for (let j = 0; j < ny; j++) {
    for (let i = 0; i < nx; i++) {
      const [gauche, l] = bornes(nx, largeur, i);
      const [haut, h] = bornes(ny, hauteur, j);
      liste.push({ gauche, haut, largeur: l, hauteur: h });
    }
  }
  return liste;
};

/** The part as a JPEG Rekognition takes: long edge at most `cote`, short edge at least 80 px, under 5 MB. */
const jpegDe = async (photo: Pixels, t: Tuile, cote: number): Promise<Uint8Array> => {
  const echelle = Math.max(COTE_MIN / Math.min(t.largeur, t.hauteur), Math.min(1, cote / Math.max(t.largeur, t.hauteur)));
  const [l, h] = [Math.max(1, Math.round(t.largeur * echelle)), Math.max(1, Math.round(t.hauteur * echelle))];
  const entiere = t.gauche === 0 && t.haut === 0 && t.largeur === photo.largeur && t.hauteur === photo.hauteur;
  for (const qualite of [90, 75, 60]) {
    const image = entiere ? depuisPixels(photo) : depuisPixels(photo).extract({ left: t.gauche, top: t.haut, width: t.largeur, height: t.hauteur });
    const octets = await image.resize(l, h, { fit: 'fill' }).jpeg({ quality: qualite }).toBuffer();
    if (octets.length <= OCTETS_MAX) return octets;
  }
  throw new Error('a 1920 px JPEG over 5 MB at quality 60');
};

const borne = (v: number) => Math.min(1, Math.max(0, v));

/** A box Rekognition gave for a part, in fractions of the photo; null when incomplete or empty. */
export const versPhoto = (b: BoundingBox | undefined, t: Tuile, photo: { largeur: number; hauteur: number }): Rectangle | null => {
  if (b?.Left === undefined || b.Top === undefined || b.Width === undefined || b.Height === undefined) return null;
  const r = {
    x0: borne((t.gauche + b.Left * t.largeur) / photo.largeur),
    y0: borne((t.haut + b.Top * t.hauteur) / photo.hauteur),
    x1: borne((t.gauche + (b.Left + b.Width) * t.largeur) / photo.largeur),
    y1: borne((t.haut + (b.Top + b.Height) * t.hauteur) / photo.hauteur),
  };
  return r.x1 > r.x0 && r.y1 > r.y0 ? r : null;
};

/** Vehicle labels whose instances may carry a plate: by name or by parent (Sedan → Car). Parts of a vehicle are not vehicles. */
const VEHICULES = new Set([
  'Car',
  'Truck',
  'Bus',
  'Van',
  'Motorcycle',
  'Vehicle',
  'Automobile',
  'Pickup Truck',
  'Suv',
  'Caravan',
  'Trailer',
  'Tractor',
  'Moped',
  'Motor Scooter',
]);
const PIECES = new Set(['Wheel', 'Tire', 'Car Wheel', 'Alloy Wheel', 'Spoke', 'Bumper', 'Headlight', 'Windshield', 'Car Mirror', 'Machine']);
export const PLAQUE = 'License Plate';

const estVehicule = (label: Label): boolean =>
  !PIECES.has(label.Name ?? '') && (VEHICULES.has(label.Name ?? '') || (label.Parents ?? []).some((p) => VEHICULES.has(p.Name ?? '')));

/** What DetectLabels answered: the vehicles' boxes (largest first, at most 6) and any plate it boxed itself. Exported for the tests. */
export const vehiculesEtPlaques = (labels: readonly Label[], photo: { largeur: number; hauteur: number }) => {
  const entiere = { gauche: 0, haut: 0, largeur: photo.largeur, hauteur: photo.hauteur };
  const boites = (label: Label) =>
    (label.Instances ?? []).flatMap((i) => {
      const boite = versPhoto(i.BoundingBox, entiere, photo);
      return boite ? [{ boite, confiance: (i.Confidence ?? label.Confidence ?? 0) / 100 }] : [];
    });
  const plaques = labels.filter((l) => l.Name === PLAQUE).flatMap(boites);
  const aire = (r: Rectangle) => (r.x1 - r.x0) * (r.y1 - r.y0);
  const vehicules = labels
    .filter((l) => l.Name !== PLAQUE && estVehicule(l))
    .flatMap(boites)
    .sort((a, b) => aire(b.boite) - aire(a.boite))
    .slice(0, MAX_VEHICULES);
  return { vehicules, plaques };
};

/**
 * A line DetectText found in a vehicle's crop that is its plate: 2 to 10 letters or digits (spaces,
 * dashes and dots apart), wider than tall, its middle below the upper third of the vehicle.
 */
export const estPlaque = (texte: string, b: BoundingBox, crop: { largeur: number; hauteur: number }): boolean => {
  const signes = texte.replace(/[^\p{L}\p{N}]/gu, '').length;
  const [l, h] = [(b.Width ?? 0) * crop.largeur, (b.Height ?? 0) * crop.hauteur];
  return signes >= 2 && signes <= 10 && l >= 1.2 * h && (b.Top ?? 0) + (b.Height ?? 0) / 2 >= 0.33;
};

/** A vehicle's box grown by 5 % each side, in the photo's pixels. */
const decoupeVehicule = (r: Rectangle, photo: Pixels): Tuile => {
  const [mx, my] = [0.05 * (r.x1 - r.x0), 0.05 * (r.y1 - r.y0)];
  const gauche = Math.max(0, Math.floor((r.x0 - mx) * photo.largeur));
  const haut = Math.max(0, Math.floor((r.y0 - my) * photo.hauteur));
  return {
    gauche,
    haut,
    largeur: Math.max(1, Math.min(photo.largeur, Math.ceil((r.x1 + mx) * photo.largeur)) - gauche),
    hauteur: Math.max(1, Math.min(photo.hauteur, Math.ceil((r.y1 + my) * photo.hauteur)) - haut),
  };
};

export const creerDetecteurPersonnesRekognition = (client: RekognitionClient): DetecteurPersonnes => {
  const appeler = async <T>(envoi: () => Promise<T>): Promise<T> => {
    try {
      return await envoi();
    } catch (erreur) {
      throw erreurDeBedrock(erreur);
    }
  };

  const visages = async (photo: Pixels): Promise<RegionPersonnelle[]> => {
    const trouves: RegionPersonnelle[] = [];
    for (const t of tuiles(photo.largeur, photo.hauteur)) {
      const Bytes = await jpegDe(photo, t, COTE_ENVOI);
      const { FaceDetails } = await appeler(() => client.send(new DetectFacesCommand({ Image: { Bytes }, Attributes: ['DEFAULT'] })));
      for (const f of FaceDetails ?? []) {
        const boite = versPhoto(f.BoundingBox, t, photo);
        if (boite && (f.Confidence ?? 0) >= CONFIANCE_VISAGE) trouves.push({ genre: 'visage', boite, confiance: (f.Confidence ?? 0) / 100 });
      }
    }
    return trouves;
  };

  const plaques = async (photo: Pixels): Promise<RegionPersonnelle[]> => {
    const entiere = { gauche: 0, haut: 0, largeur: photo.largeur, hauteur: photo.hauteur };
    const Bytes = await jpegDe(photo, entiere, COTE_LABELS);
    const { Labels } = await appeler(() =>
      client.send(new DetectLabelsCommand({ Image: { Bytes }, MaxLabels: 100, MinConfidence: CONFIANCE_LABEL, Features: ['GENERAL_LABELS'] })),
    );
    const { vehicules, plaques: etiquetees } = vehiculesEtPlaques(Labels ?? [], photo);
    const trouves: RegionPersonnelle[] = etiquetees.map((p) => ({ genre: 'plaque', ...p }));
    for (const v of vehicules) {
      const t = decoupeVehicule(v.boite, photo);
      const octets = await jpegDe(photo, t, COTE_ENVOI);
      const { TextDetections } = await appeler(() =>
        client.send(new DetectTextCommand({ Image: { Bytes: octets }, Filters: { WordFilter: { MinConfidence: CONFIANCE_TEXTE } } })),
      );
      for (const d of TextDetections ?? []) {
        const b = d.Geometry?.BoundingBox;
        if (d.Type !== 'LINE' || !b || !estPlaque(d.DetectedText ?? '', b, t)) continue;
        const boite = versPhoto(b, t, photo);
        if (boite) trouves.push({ genre: 'plaque', boite, confiance: (d.Confidence ?? 0) / 100 });
      }
    }
    return trouves;
  };

  return {
    nom: 'rekognition',
    async detecter(photo: Pixels, genres: ReadonlySet<Genre>): Promise<RegionPersonnelle[]> {
      return [...(genres.has('visage') ? await visages(photo) : []), ...(genres.has('plaque') ? await plaques(photo) : [])];
    },
  };
};
