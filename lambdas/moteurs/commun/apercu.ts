/**
 * The preview's mark: every image the preview engine delivers says "Preview" on the image itself, in a
 * lower right corner (the staging notice takes the left one). Its results are a stand-in's work, no
 * trained generative model's, and the metadata that says so (provenance.ts, the C2PA manifest) is gone
 * as soon as a portal re-encodes the file: the mark is what stays, so that a preview is never taken for,
 * nor passed off as, a production result. Drawn after the structure check and the blur, before the
 * metadata and the signature, which therefore bind the marked pixels (resultat.ts).
 */
import type { Langue } from '../../core/modele/outils';
import { poserEtiquette, svgMention, placeEtiquette, type Fond } from './mention';
import type { Pixels } from './pixels';

/** The mark in each language the service writes in; the request's (Accept-Language: core/contrat/langue.ts). */
export const MARQUES_APERCU: Readonly<Record<Langue, string>> = {
  French: 'Aperçu',
  English: 'Preview',
  Dutch: 'Voorbeeld',
  German: 'Vorschau',
  Spanish: 'Vista previa',
  Italian: 'Anteprima',
};

/** When the request named none of the six: English, the API's own language. */
export const LANGUE_APERCU_PAR_DEFAUT: Langue = 'English';

/** Amber, not the staging notice's black: the two say different things and are told apart at a glance. */
const FOND_APERCU: Fond = { couleur: '#9a3412', opacite: 0.8 };

/** The rectangle the mark covers in a photo of that size (the tests read it back). */
export const zoneMarqueApercu = async (largeur: number, hauteur: number, langue: Langue = LANGUE_APERCU_PAR_DEFAUT) => {
  const { l, h } = await svgMention(MARQUES_APERCU[langue], largeur, hauteur, FOND_APERCU);
  return { ...placeEtiquette({ largeur, hauteur }, l, h, 'droite'), largeur: l, hauteur: h };
};

/** The photo with the mark in its lower right corner; every other pixel unchanged. */
export const ajouterMarqueApercu = (p: Pixels, langue: Langue = LANGUE_APERCU_PAR_DEFAUT): Promise<Pixels> =>
  poserEtiquette(p, MARQUES_APERCU[langue], 'droite', FOND_APERCU);
