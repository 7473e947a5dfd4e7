/**
 * The production engine: Amazon Bedrock. Stability AI Image Services for the five image tools
 * (one recipe per tool: vider.ts, staging.ts, renovation.ts, saison.ts, ciel.ts), Converse for the
 * listing (annonce.ts). Every image goes through the same path: decoded upright in sRGB, sent at a
 * working size the model accepts, its answer scaled back to the photo's resolution and composited
 * through the tool's mask, then encoded in the input's format with the provenance EXIF.
 *
 * The client is injected so tests can mock it; by default it makes at most two attempts, because
 * the state machine owns the long, jittered backoff on `moteur_indisponible` (see erreurs.ts).
 */
import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import type { OutilImage } from '../../core/outils';
import { graineDe, type DemandeRetouche, type ImageRetouchee, type Moteur } from '../moteur';
import { redigerAnnonce } from './annonce';
import { recetteCiel } from './ciel';
import { configurationBedrock, type ConfigurationBedrock } from './configuration';
import { agrandir, cadreDeTravail, imageDeTravail, masqueDeTravail, recomposer, redimensionnerMasque, reduire, reponseReduite } from './image';
import { adoucir, masqueDifference, masqueRectangle } from './masques';
import { decoder } from '../pixels';
import { fichierResultat } from '../resultat';
import type { Recette, Valeurs } from './recette';
import { recetteRenovation } from './renovation';
import { recetteSaison } from './saison';
import { recetteStaging } from './staging';
import { graineStability, invoquerStability } from './stability';
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
  /** Defaults to `configurationBedrock(env)`. */
  configuration?: ConfigurationBedrock;
  env?: Readonly<Record<string, string | undefined>>;
}

export const creerMoteurBedrock = (options: OptionsMoteurBedrock = {}): Moteur => {
  const configuration = options.configuration ?? configurationBedrock(options.env ?? process.env);
  const client = options.client ?? new BedrockRuntimeClient({ region: configuration.region, maxAttempts: 2 });

  return {
    nom: 'bedrock',
    async retoucher(demande: DemandeRetouche): Promise<ImageRetouchee> {
      const recette = RECETTES[demande.outil](demande.valeurs, configuration.images[demande.outil]);
      const { pixels: photo, format } = await decoder(demande.image);
      const base = recette.pretraiter ? await recette.pretraiter(photo) : photo;
      const { largeur, hauteur } = base;

      const cadre = cadreDeTravail(largeur, hauteur, configuration.coteTravail);
      const reduite = await reduire(base, cadre);
      const zone = recette.zone;
      const masqueFixe = zone.type === 'rectangle' ? masqueRectangle(largeur, hauteur, zone.rectangle) : null;
      const reponse = await invoquerStability(
        client,
        recette.modele,
        recette.corps({
          image: (await imageDeTravail(reduite, cadre)).toString('base64'),
          ...(masqueFixe ? { masque: (await masqueDeTravail(masqueFixe, cadre)).toString('base64') } : {}),
          // The same job always asks for the same seed: a result can be reproduced from the job id.
          graine: graineStability(graineDe(demande.travail)),
        }),
      );
      const reponseAuTravail = await reponseReduite(reponse.image, cadre);
      const resultat = await agrandir(reponseAuTravail, base);

      let alpha: Uint8Array;
      if (zone.type === 'cadre') alpha = new Uint8Array(largeur * hauteur).fill(255);
      else {
        // What the model changed is read at the scale it worked at: both sides equally sharp (an
        // upscaled answer is softer than the photo everywhere), and a fraction of the pixels to compare.
        const masque =
          zone.type === 'difference'
            ? await redimensionnerMasque(await masqueDifference(reduite, reponseAuTravail, zone.haut, zone.bas), cadre.photo, base)
            : (masqueFixe ?? masqueRectangle(largeur, hauteur, zone.rectangle));
        alpha = await adoucir(masque, largeur, hauteur);
      }
      const pixels = { data: recomposer(base, resultat, alpha), largeur, hauteur };
      const image = await fichierResultat(pixels, format, { outil: demande.outil, valeurs: demande.valeurs, apercu: false, graine: reponse.graine });
      return { image, format, graine: reponse.graine };
    },

    async rediger(demande) {
      return redigerAnnonce(client, demande, configuration.texte, configuration.maxTokens);
    },
  };
};
