/**
 * The local preview engine: deterministic sharp pipelines that show each tool's idea on the real
 * photo, without a generative model. It is what `npm start` and the tests run, so that every path of the
 * service (inputs, results, ZIPs, links) carries real images a person can look at.
 *
 * It runs the production engine's rules with a stand-in where the models are: objects are found by
 * the local detector instead of Rekognition (detecteur-local.ts: NanoDet, a trained model; what it
 * finds also tells an interior, where ciel paints no sky and saison has nothing to do); vider and staging edit the area built
 * from them by the same code (commun/zones.ts: furniture boxes without windows, doors and radiators;
 * the free floor) and say so the same way when there is nothing to edit; every result
 * passes the same structure check (commun/controle.ts). Pixels outside the edited area are exactly the
 * photo's, as the production engine composites the model's answer into the original; `ciel`, as in
 * production, first corrects the light and verticals of the whole photo. Results say in their
 * metadata that they are previews, and on the image by a mark in a corner (commun/resultat.ts, apercu.ts).
 *
 * This file is the factory; one recipe per tool beside it (vider.ts, staging.ts with the furniture
 * of dessin.ts, renovation.ts, saison.ts, ciel.ts; couleurs.ts and neige.ts what they share), and the
 * stand-ins (detecteur-local.ts with objets-nanodet.ts and the colour rules of detecteur-couleurs.ts,
 * personnes-local.ts with visages-blazeface.ts, both models loaded by human.ts; annonce-locale.ts).
 * Nothing here imports from bedrock/ (a lint rule, eslint.config.js): what both engines run is in commun/.
 */
import { setTimeout as attendre } from 'node:timers/promises';
import type { OutilImage } from '../../core/modele/outils';
import { avecControle, regionStructure } from '../commun/controle';
import { preuveDInterieur, type Detecteur } from '../commun/detection';
import type { Redaction } from '../../core/modele/sorties';
import { graineDe, valeurNommee, type DemandeRetouche, type ImageRetouchee, type Moteur } from '../commun/moteur';
import type { DetecteurPersonnes } from '../commun/personnes';
import { decoder } from '../commun/pixels';
import { redresser } from '../commun/redressement';
import { fichierResultat } from '../commun/resultat';
import { masqueFixes, zoneStaging, zoneVider } from '../commun/zones';
import { redigerAnnonceLocale } from './annonce-locale';
import { apercuCiel } from './ciel';
import { detecteurLocal, indicesLocaux } from './detecteur-local';
import { detecteurPersonnesLocal } from './personnes-local';
import { apercuRenovation } from './renovation';
import { apercuSaison } from './saison';
import { apercuStaging } from './staging';
import { apercuVider } from './vider';

/** The preview writes from a fixed template, not a model: said as such on the job. */
export const REDACTION_LOCALE: Redaction = { automatique: true, intelligence_artificielle: false, modele: 'retouche-modele-local (template, no AI model)' };

/**
 * `detecteur` and `personnes`: the local stand-ins by default (detecteur-local.ts, personnes-local.ts); a
 * bench or a test may give the boxes itself, as Rekognition would (the drawn scenes of the tests give
 * the colour rules, detecteurCouleurs, which were tuned on them).
 */
export const creerMoteurLocal = (options: { delaiMs?: number; detecteur?: Detecteur; personnes?: DetecteurPersonnes } = {}): Moteur => ({
  nom: 'local',
  async retoucher(demande: DemandeRetouche): Promise<ImageRetouchee> {
    if (options.delaiMs) await attendre(options.delaiMs);
    const { pixels, format } = await decoder(demande.image);
    // As in production: light and verticals corrected first, then everything works on the corrected photo.
    const base = demande.outil === 'ciel' ? await redresser(pixels) : pixels;
    const objets = await (options.detecteur ?? detecteurLocal).detecter(base);
    // Inside, ciel paints no sky, saison has nothing to turn and staging no lawn to stay off: a
    // bathroom's white tiles are no overcast sky.
    const indices = options.detecteur ? objets : await indicesLocaux(base);
    // The room the request names weighs against the detectors' guesses (zones.ts): a washbasin does not make a
    // bedroom a bathroom. Named, not defaulted: `living room` by default is no one's word against a washbasin.
    const zone =
      demande.outil === 'vider'
        ? await zoneVider(base, objets)
        : demande.outil === 'staging'
          ? await zoneStaging(base, objets, indices, valeurNommee(demande, 'piece'))
          : null;
    const region = await regionStructure(demande.outil, base, objets, zone?.masque ?? null);
    const traitements: Record<OutilImage, (graine: number) => Promise<Buffer>> = {
      ciel: () => apercuCiel(base, pixels, { interieur: preuveDInterieur(indices) !== undefined }),
      saison: () => apercuSaison(base, indices),
      vider: (graine) => apercuVider(base, zone!, graine),
      staging: () => apercuStaging(base, zone!, demande.valeurs),
      renovation: () => apercuRenovation(base, demande.valeurs, masqueFixes(base.largeur, base.hauteur, objets)),
    };
    const {
      pixels: resultat,
      graine,
      structure,
    } = await avecControle(base, region, async (essai) => {
      const graine = graineDe(demande.travail) + essai - 1;
      return { pixels: { ...base, data: await traitements[demande.outil](graine) }, graine };
    });
    const { fichier, floutage } = await fichierResultat(resultat, format, {
      outil: demande.outil,
      valeurs: demande.valeurs,
      apercu: true,
      ...(demande.langue ? { langue: demande.langue } : {}),
      graine,
      personnes: options.personnes ?? detecteurPersonnesLocal,
      avant: base,
    });
    return { image: fichier, format, graine, structure, floutage };
  },

  async rediger(demande) {
    if (options.delaiMs) await attendre(options.delaiMs);
    return { texte: redigerAnnonceLocale(demande.valeurs, demande.images.length), redaction: REDACTION_LOCALE };
  },
});
