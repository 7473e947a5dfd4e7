/**
 * The production engine: Amazon Bedrock. Stability AI Image Services for the five image tools
 * (one recipe per tool: vider.ts, staging.ts, renovation.ts, saison.ts, ciel.ts), Converse for the
 * listing (annonce.ts), Amazon Rekognition to find the furniture and the fixed elements (rekognition.ts).
 * Every image goes through the same path: decoded upright in sRGB; objects detected; for vider and
 * staging the edited area built from them (commun/zones.ts) and only the part of the photo around it sent,
 * as large as the model accepts; the answer scaled back to the photo's resolution and composited
 * through the tool's mask; the structure check (commun/controle.ts), with one more run if it fails; then
 * encoded in the input's format with the provenance EXIF.
 *
 * The clients and the detector are injected so tests can mock them; by default the Bedrock client
 * makes at most two attempts, because the state machine owns the long, jittered backoff on
 * `moteur_indisponible` (see erreurs.ts).
 */
import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { RekognitionClient } from '@aws-sdk/client-rekognition';
import type { OutilImage } from '../../core/modele/outils';
import { avecControle, regionStructure } from '../commun/controle';
import type { Detecteur } from '../commun/detection';
import type { DetecteurPersonnes } from '../commun/personnes';
import { creerDetecteurPersonnesRekognition } from './rekognition-personnes';
import { graineDe, valeurNommee, type DemandeRetouche, type ImageRetouchee, type Moteur } from '../commun/moteur';
import { adoucirInterieur, recomposer } from '../commun/masques';
import { decoder, type Pixels } from '../commun/pixels';
import { fichierResultat } from '../commun/resultat';
import { zoneStaging, zoneVider, type ZoneOutil } from '../commun/zones';
import { redigerAnnonce } from './annonce';
import { recetteCiel } from './ciel';
import { configurationBedrock, type ConfigurationBedrock } from './configuration';
import {
  agrandir,
  cadreDeTravail,
  decoupeAutour,
  extraire,
  extraireMasque,
  imageDeTravail,
  masqueDeTravail,
  redimensionnerMasque,
  reduire,
  replacer,
  reponseReduite,
} from './image';
import { masqueDifference } from './masques';
import type { Recette, Valeurs } from './recette';
import { creerDetecteurRekognition } from './rekognition';
import { recetteRenovation } from './renovation';
import { recetteSaison } from './saison';
import { recetteStaging } from './staging';
import { GRAINE_MAX, graineStability, invoquerStability } from './stability';
import { recetteVider } from './vider';

export { configurationBedrock, modelesBedrock, ressourcesIamBedrock, identifiantsBedrock } from './configuration';
export type { ConfigurationBedrock, ModelesBedrock } from './configuration';

export const RECETTES: Readonly<Record<OutilImage, (valeurs: Valeurs, modele: string) => Recette>> = {
  vider: recetteVider,
  staging: recetteStaging,
  renovation: recetteRenovation,
  saison: recetteSaison,
  ciel: recetteCiel,
};

export interface OptionsMoteurBedrock {
  /** Defaults to a client in the configured region. */
  client?: BedrockRuntimeClient;
  /** Defaults to Rekognition DetectLabels in the configured region. */
  detecteur?: Detecteur;
  /** Faces and plates to blur: defaults to Rekognition (DetectFaces, DetectLabels, DetectText) in the same region. */
  personnes?: DetecteurPersonnes;
  /** Defaults to `configurationBedrock(env)`. */
  configuration?: ConfigurationBedrock;
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * The edited area when it comes from the photo (vider, staging); null when the model finds it or edits all.
 * `piece`: the room the request named, if it did (`valeurNommee`): Rekognition's labels are both the objects
 * and the clues to the room, and weigh against a named room as the preview's do (zones.ts).
 */
const zoneDe = (recette: Recette, photo: Pixels, objets: Parameters<typeof zoneVider>[1], piece: string | undefined): Promise<ZoneOutil> | null =>
  recette.zone.type === 'objets' ? zoneVider(photo, objets) : recette.zone.type === 'sol' ? zoneStaging(photo, objets, objets, piece) : null;

/** The second run asks another seed, still derived from the job alone. */
const graineEssai = (travail: string, essai: 1 | 2): number => graineStability((graineDe(travail) + essai - 1) % GRAINE_MAX || 1);

export const creerMoteurBedrock = (options: OptionsMoteurBedrock = {}): Moteur => {
  const configuration = options.configuration ?? configurationBedrock(options.env ?? process.env);
  const client = options.client ?? new BedrockRuntimeClient({ region: configuration.region, maxAttempts: 2 });
  // One client for both detectors; it retries throttling a few times itself (the model's call, already paid, comes first).
  const rekognition = new RekognitionClient({ region: configuration.regionDetection, maxAttempts: 4 });
  const detecteur = options.detecteur ?? creerDetecteurRekognition(rekognition);
  const personnes = options.personnes ?? creerDetecteurPersonnesRekognition(rekognition);

  return {
    nom: 'bedrock',
    async retoucher(demande: DemandeRetouche): Promise<ImageRetouchee> {
      const recette = RECETTES[demande.outil](demande.valeurs, configuration.images[demande.outil]);
      const { pixels: photo, format } = await decoder(demande.image);
      const base = recette.pretraiter ? await recette.pretraiter(photo) : photo;
      const { largeur, hauteur } = base;

      const objets = await detecteur.detecter(base);
      const zone = await zoneDe(recette, base, objets, valeurNommee(demande, 'piece'));
      const region = await regionStructure(demande.outil, base, objets, zone?.masque ?? null);

      // Only the part around the edited area goes to the model, at the largest size it accepts.
      const decoupe = decoupeAutour(zone?.masque ?? null, largeur, hauteur);
      const partie = await extraire(base, decoupe);
      const cadre = cadreDeTravail(partie.largeur, partie.hauteur, configuration.pixelsTravail);
      const reduite = await reduire(partie, cadre);
      const image = (await imageDeTravail(reduite, cadre)).toString('base64');
      const masque = zone ? (await masqueDeTravail(extraireMasque(zone.masque, largeur, decoupe), cadre)).toString('base64') : undefined;
      const alphaZone = zone ? extraireMasque(zone.alpha, largeur, decoupe) : null;

      const { pixels, graine, structure } = await avecControle(base, region, async (essai) => {
        const reponse = await invoquerStability(
          client,
          recette.modele,
          // The same job always asks for the same seeds: a result can be reproduced from the job id.
          recette.corps({ image, ...(masque ? { masque } : {}), graine: graineEssai(demande.travail, essai), essai }),
        );
        const reponseAuTravail = await reponseReduite(reponse.image, cadre);
        const resultat = await agrandir(reponseAuTravail, partie);
        let alpha: Uint8Array;
        if (alphaZone) alpha = alphaZone;
        else if (recette.zone.type === 'difference') {
          // What the model changed is read at the scale it worked at: both sides equally sharp (an
          // upscaled answer is softer than the photo everywhere), and a fraction of the pixels to compare.
          const change = await masqueDifference(reduite, reponseAuTravail, recette.zone.haut, recette.zone.bas);
          alpha = await adoucirInterieur(await redimensionnerMasque(change, cadre.photo, partie), partie.largeur, partie.hauteur);
        } else alpha = new Uint8Array(partie.largeur * partie.hauteur).fill(255);
        const composee = { data: recomposer(partie, resultat, alpha), largeur: partie.largeur, hauteur: partie.hauteur };
        return { pixels: replacer(base, composee, decoupe), graine: reponse.graine };
      });
      const { fichier, floutage } = await fichierResultat(pixels, format, {
        outil: demande.outil,
        valeurs: demande.valeurs,
        apercu: false,
        graine,
        personnes,
        avant: base,
      });
      return { image: fichier, format, graine, structure, floutage };
    },

    async rediger(demande) {
      return redigerAnnonce(client, demande, configuration.texte, configuration.maxTokens);
    },
  };
};
