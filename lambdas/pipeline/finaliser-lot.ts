/** Step "FinaliserLot": the last job of a batch streams its ZIP, then closes the batch. */
import { dependancesDepuisEnv, type Dependances } from '../core/dependances';
import { finaliserLot } from '../core/lots';
import { etape } from './etape';

export const creer = (deps: () => Promise<Dependances>) =>
  etape(deps, 'finaliser-lot', async (etat, d) => (etat.lot ? finaliserLot(d, etat.lot, etat.travail) : { finalise: false }));
export const handler = creer(() => dependancesDepuisEnv());
