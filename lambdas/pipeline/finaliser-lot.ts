/** Step "FinaliserLot": the last job of a batch streams its ZIP, then closes the batch. */
import { dependancesDepuisEnv } from '../core/infra/dependances-completes';
import type { Dependances } from '../core/infra/dependances';
import { finaliserLot } from '../core/domaine/lots';
import { etape } from './etape';

export const creer = (deps: () => Promise<Dependances>) =>
  etape(deps, 'finaliser-lot', async (etat, d) => (etat.lot ? finaliserLot(d, etat.lot, etat.travail) : { finalise: false }));
export const handler = creer(() => dependancesDepuisEnv());
