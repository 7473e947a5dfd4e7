/** Step "Enregistrer": the job is `termine` with its results; counters move once. */
import { terminerTravail } from '../core/domaine/cycle';
import { dependancesDepuisEnv } from '../core/infra/dependances-completes';
import type { Dependances } from '../core/infra/dependances';
import { ErreurTravail } from '../core/modele/erreurs';
import { etape } from './etape';

export const creer = (deps: () => Promise<Dependances>) =>
  etape(deps, 'enregistrer', async (etat, d) => {
    if (!etat.sortie) throw new ErreurTravail('erreur_interne', 'no tool output to record');
    return terminerTravail(d, etat.travail, etat.sortie, { tentative: etat.tentative });
  });
export const handler = creer(() => dependancesDepuisEnv());
