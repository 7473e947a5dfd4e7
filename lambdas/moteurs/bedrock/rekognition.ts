/**
 * The production furniture detector: Amazon Rekognition DetectLabels, whose labels carry instance
 * boxes for common objects (furniture, plants, lamps; for windows and doors they are not promised,
 * below). Chosen over the other ways AWS offers to find objects in a photo because it needs nothing
 * deployed (a segmentation model on SageMaker would be an endpoint to run and pay for around the
 * clock), it answers in about a second for about a tenth of a cent, and its boxes are what a mask
 * needs once grown and feathered: the inpainting model repaints the wall or floor around the object
 * anyway. Its limit: boxes, not outlines, and only the labels it knows; the floor itself is found by
 * our own code (commun/sol.ts).
 *
 * Each label is mapped to a nature through NATURES (commun/detection.ts), by its own name or failing that
 * by its nearest parent's: what is neither furniture nor a fixed element is ignored.
 *
 * Windows and doors are not left to Rekognition alone. Its documentation promises instance boxes only
 * "for common object labels such as people, cars, furniture, apparel or pets": a Window or a Door may
 * come back as a label without a box, or with boxes for a few of a facade's windows and none for the
 * rest, and then vider's mask would repaint them and the structure check would not look at them. So
 * the windows and doors our own rule finds (commun/fenetres.ts) are added to every answer, not only
 * when a Window label comes without boxes: a label says nothing of the windows it did not box, and a
 * protected window that was not one costs far less (a patch of wall left as it was) than a window
 * repainted. What Rekognition boxed itself is not duplicated (its box wins), and nothing is added
 * inside a piece of furniture it boxed (commun/fenetres.ts avecOuvertures).
 */
import { DetectLabelsCommand, type Label, type RekognitionClient } from '@aws-sdk/client-rekognition';
import { NATURES, preuveDInterieur, type Detecteur, type Nature, type ObjetDetecte } from '../commun/detection';
import { avecOuvertures, trouverFenetres } from '../commun/fenetres';
import { depuisPixels, type Pixels } from '../commun/pixels';
import { erreurDeBedrock } from './erreurs';

/** Long edge sent: boxes are fractions, so more pixels only cost bytes (the API takes ≤ 5 MB). */
const COTE_DETECTION = 1600;
/** Below this, Rekognition's own figures show guesses, not objects: a mask built on one repaints a wall. */
const CONFIANCE_MIN = 55;

const natureDe = (label: Label): Nature | undefined =>
  NATURES[label.Name ?? ''] ?? (label.Parents ?? []).map((p) => NATURES[p.Name ?? '']).find((n) => n !== undefined);

/** What DetectLabels answered, as the detector interface's objects. Exported for the tests. */
export const objetsDeLabels = (labels: readonly Label[]): ObjetDetecte[] =>
  labels.flatMap((label) => {
    const nature = natureDe(label);
    if (!nature) return [];
    return (label.Instances ?? []).flatMap((instance) => {
      const b = instance.BoundingBox;
      if (b?.Left === undefined || b.Top === undefined || b.Width === undefined || b.Height === undefined) return [];
      const borne = (v: number) => Math.min(1, Math.max(0, v));
      return [
        {
          nom: label.Name ?? '',
          nature,
          boite: { x0: borne(b.Left), y0: borne(b.Top), x1: borne(b.Left + b.Width), y1: borne(b.Top + b.Height) },
          confiance: (instance.Confidence ?? label.Confidence ?? 0) / 100,
        },
      ];
    });
  });

/**
 * Whether the photo was taken inside, for the window finder: an indoor object boxed (a bed, a sink…),
 * or Rekognition's own scene label Indoors, by name or as a parent (Living Room, Bedroom…).
 */
const interieurSelonLabels = (labels: readonly Label[], objets: readonly ObjetDetecte[]): boolean =>
  preuveDInterieur(objets) !== undefined || labels.some((l) => l.Name === 'Indoors' || (l.Parents ?? []).some((p) => p.Name === 'Indoors'));

export const creerDetecteurRekognition = (client: RekognitionClient): Detecteur => ({
  nom: 'rekognition',
  async detecter(photo: Pixels): Promise<ObjetDetecte[]> {
    const echelle = Math.min(1, COTE_DETECTION / Math.max(photo.largeur, photo.hauteur));
    const octets = await depuisPixels(photo)
      .resize(Math.round(photo.largeur * echelle), Math.round(photo.hauteur * echelle), { fit: 'fill' })
      .jpeg({ quality: 88 })
      .toBuffer();
    let labels: Label[];
    try {
      const { Labels } = await client.send(
        new DetectLabelsCommand({ Image: { Bytes: octets }, MaxLabels: 100, MinConfidence: CONFIANCE_MIN, Features: ['GENERAL_LABELS'] }),
      );
      labels = Labels ?? [];
    } catch (erreur) {
      throw erreurDeBedrock(erreur);
    }
    const objets = objetsDeLabels(labels);
    return avecOuvertures(objets, await trouverFenetres(photo, { interieur: interieurSelonLabels(labels, objets) }));
  },
});
