/**
 * The local engine's detector, in place of Rekognition: what the trained model (objets-nanodet.ts) finds,
 * vouched for by the colour rules (detecteur-couleurs.ts) where it is unsure, with the windows and doors
 * of commun/fenetres.ts.
 */
import { preuveDInterieur, type Detecteur, type ObjetDetecte } from '../commun/detection';
import { avecOuvertures, trouverFenetres } from '../commun/fenetres';
import { aireCommune, type Rectangle } from '../commun/masques';
import type { Pixels } from '../commun/pixels';
import { trouverSol } from '../commun/sol';
import { detecteurCouleurs } from './detecteur-couleurs';

// The tests and benches take both stand-ins from here: they give the drawn scenes to the colour rules alone.
export { detecteurCouleurs };

/**
 * Down to this score, a piece of furniture the model is unsure of is kept when the colour rules find
 * one in the same place (IoU ≥ ACCORD): two readings that share nothing but the photo. Drawn scenes
 * need it — their flat colours are what the rules were tuned on, and the model sees the drawn sofa of
 * docs/exemples at 0.34, under CONFIANCE_MIN — and real photos do not mind: on test/photos, no
 * reading of the model between this score and CONFIANCE_MIN meets a box of the rules at IoU 0.5
 * (the nearest: a cup at 0.28, IoU 0.34).
 */
const CONFIANCE_ACCORD = 0.25;
const ACCORD = 0.5;

/**
 * A "bed" or "sofa" box this much of which is free floor (sol.ts) is the floor itself: the model reads
 * a bare floor seen wide as a bed (the drawn empty room of docs/exemples: 0.76 of its box, at 0.39),
 * while the beds and sofas it finds on test/photos are at most 0.47 floor (the rest of the box is the
 * piece itself).
 */
const SOL_MAX = 0.6;
/** What the model reads as a whole floor seen wide: a bed or a sofa, never a chair or a plant. */
const PIECES_AU_SOL: ReadonlySet<string> = new Set(['Bed', 'Couch']);

const iou = (a: Rectangle, b: Rectangle): number => {
  const commune = aireCommune(a, b);
  return commune / ((a.x1 - a.x0) * (a.y1 - a.y0) + (b.x1 - b.x0) * (b.y1 - b.y0) - commune);
};

/** The share of a box (fractions of the frame) that is floor on the analysis copy. */
const partDeSol = (b: Rectangle, sol: Uint8Array, l: number, h: number): number => {
  const [x0, x1, y0, y1] = [Math.floor(b.x0 * l), Math.min(l, Math.ceil(b.x1 * l)), Math.floor(b.y0 * h), Math.min(h, Math.ceil(b.y1 * h))];
  let n = 0;
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) n += sol[y * l + x]!;
  return n / Math.max(1, (x1 - x0) * (y1 - y0));
};

/**
 * The local engine's detector: furniture and the plumbed-in (sink, toilet, oven, refrigerator) found
 * by NanoDet, a trained model (objets-nanodet.ts, loaded at the first job that needs it), and the
 * windows and doors found from the photo's edges (commun/fenetres.ts, the rule production adds to
 * Rekognition's answer), as fixed elements: vider and staging leave them out of their masks, and the
 * structure check has their lines. The colour rules alone are not used: on real photos their furniture
 * is walls, shadows and facades, and their windows and doors are mostly not windows or doors
 * (docs/benchmarks.md: `npm run bench:detecteurs`), and a false window cuts a hole in the furniture vider
 * removes. They only confirm what the model half sees (CONFIANCE_ACCORD), which is how a drawn scene's
 * sofa is found, and the floor tells the model's "bed" that is a bare floor (SOL_MAX).
 */
export const detecteurLocal: Detecteur = {
  nom: 'local',
  async detecter(photo: Pixels): Promise<ObjetDetecte[]> {
    const { trouverObjets, CONFIANCE_INDICE, CONFIANCE_MIN } = await import('./objets-nanodet');
    // One reading of the model: its boxes at its threshold, those the colour rules vouch for under it, and
    // at CONFIANCE_INDICE what tells an interior (as indicesLocaux below), which tells the window finder
    // not to look for a facade's rhythm.
    const lecture = await trouverObjets(photo, CONFIANCE_ACCORD);
    const { analyse, sol } = await trouverSol(photo);
    const [l, h] = [analyse.largeur, analyse.hauteur];
    const objets = lecture.filter((o) => o.confiance >= CONFIANCE_MIN && !(PIECES_AU_SOL.has(o.nom) && partDeSol(o.boite, sol, l, h) >= SOL_MAX));
    const incertains = lecture.filter((o) => o.nature === 'meuble' && o.confiance < CONFIANCE_MIN);
    if (incertains.length) {
      for (const regle of (await detecteurCouleurs.detecter(photo)).filter((o) => o.nature === 'meuble')) {
        const modele = incertains.find((o) => iou(o.boite, regle.boite) >= ACCORD && !objets.includes(o));
        // The model's box, as for everything else it finds: the rules only vouch for it.
        if (modele) objets.push(modele);
      }
    }
    const interieur = preuveDInterieur(lecture.filter((o) => o.confiance >= CONFIANCE_INDICE)) !== undefined;
    return avecOuvertures(objets, await trouverFenetres(photo, { interieur }));
  },
};

/**
 * What tells the local engine a photo was taken inside: the same model's reading, at the lower score
 * of CONFIANCE_INDICE (objets-nanodet.ts). For detection.ts preuveDInterieur.
 */
export const indicesLocaux = async (photo: Pixels): Promise<ObjetDetecte[]> => {
  const { trouverObjets, CONFIANCE_INDICE } = await import('./objets-nanodet');
  return trouverObjets(photo, CONFIANCE_INDICE);
};
