/**
 * The studio's launches survive a reload (issue 41, point 2): once POST /travaux has answered, the launch's
 * batch and job ids are kept in this tab's sessionStorage, and the studio, opened again, follows them where
 * it left off. Ids only (no photo, no setting): the tab's own, gone with it. A launch the agent removes from
 * the page, or one the API no longer knows (erased), is forgotten.
 */
import type { LancementEnregistre } from './demande';

const CLE = 'retouche.studio.lancements';
/** The newest launches only: the studio shows them one below the other. */
const MAX = 10;

export const lireLancements = (): LancementEnregistre[] => {
  try {
    const valeur = JSON.parse(sessionStorage.getItem(CLE) ?? '[]') as unknown;
    return Array.isArray(valeur)
      ? valeur.filter((l): l is LancementEnregistre => typeof l?.cle === 'string' && typeof l?.outil === 'string' && Array.isArray(l?.travaux))
      : [];
  } catch {
    // Storage refused, or something else written there: nothing to resume.
    return [];
  }
};

const ecrire = (lancements: LancementEnregistre[]) => {
  try {
    sessionStorage.setItem(CLE, JSON.stringify(lancements.slice(0, MAX)));
  } catch {
    // Not kept: the launch runs all the same, only a reload loses sight of it (the history still has it).
  }
};

export const garderLancement = (lancement: LancementEnregistre): void => ecrire([lancement, ...lireLancements().filter((l) => l.cle !== lancement.cle)]);

export const oublierLancement = (cle: string): void => ecrire(lireLancements().filter((l) => l.cle !== cle));
