/**
 * renovation → Stable Image Control Structure: the photo's structure (edges, depth) guides a new
 * rendering described by zone × niveau × style.
 *
 * Renovating is a change of every surface in view, so the edited area is the whole frame. What must
 * not change is the geometry — the building's outline, the openings, the viewpoint — and that is
 * exactly what Control Structure holds fixed. `niveau` sets how tightly: a refresh follows the
 * photo closely (strong control), a complete renovation is allowed new materials and joinery.
 */
import { A_EVITER, FORMAT_REPONSE, type Recette, type Valeurs } from './recette';

const SUJETS = {
  facade: 'The same house facade seen from the same viewpoint',
  interieur: 'The same interior room seen from the same viewpoint',
} as const;

const TRAVAUX = {
  facade: {
    rafraichissement: 'freshly refreshed: cleaned and repainted walls, repaired joinery and gutters, a tidy front garden',
    complete: 'fully renovated: new render or cladding, new window frames and front door, a new roof and a landscaped front garden',
  },
  interieur: {
    rafraichissement: 'freshly refreshed: repainted walls and ceiling, a restored floor, new light fittings',
    complete: 'completely renovated: new flooring, smooth plastered walls, new built-in joinery and modern lighting',
  },
} as const;

export const STYLES_RENOVATION: Readonly<Record<string, string>> = {
  contemporary: 'a contemporary style: clean lines, white and anthracite tones, large glazing, minimal details',
  classic: 'a classic style: traditional materials, mouldings, warm cream and stone tones, painted wooden joinery',
  'natural materials': 'a natural materials style: wood, natural stone, lime plaster, linen and sand tones',
};

/** How tightly the structure is kept (Control Structure's control_strength, 0–1). */
export const FORCES_CONTROLE = { rafraichissement: 0.85, complete: 0.65 } as const;

const lire = <T extends string>(valeur: string | undefined, permis: readonly T[], defaut: T): T =>
  (permis as readonly string[]).includes(valeur ?? '') ? (valeur as T) : defaut;

export const parametresRenovation = (valeurs: Valeurs) => {
  const zone = lire(valeurs.zone, ['facade', 'interieur'], 'facade');
  const niveau = lire(valeurs.niveau, ['rafraichissement', 'complete'], 'complete');
  const style = valeurs.style && STYLES_RENOVATION[valeurs.style] ? valeurs.style : 'contemporary';
  return {
    prompt:
      `${SUJETS[zone]}, ${TRAVAUX[zone][niveau]}, in ${STYLES_RENOVATION[style]}. ` +
      'Same shape, same openings in the same places, same perspective. Professional real estate photograph, photorealistic, daylight.',
    control_strength: FORCES_CONTROLE[niveau],
  };
};

export const recetteRenovation = (valeurs: Valeurs, modele: string): Recette => ({
  modele,
  zone: { type: 'cadre' },
  corps: ({ image, graine, essai }) => {
    const parametres = parametresRenovation(valeurs);
    return {
      ...parametres,
      // A first result that moved the openings or outline: the second run holds the structure tighter.
      control_strength: essai === 2 ? Math.min(0.95, parametres.control_strength + 0.1) : parametres.control_strength,
      negative_prompt: `extra windows, extra floors, ruined, unfinished, scaffolding, ${A_EVITER}`,
      image,
      seed: graine,
      output_format: FORMAT_REPONSE,
    };
  },
});
