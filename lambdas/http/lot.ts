/** GET /lots/{id} — a batch: counters, its jobs, and once done a signed link to the ZIP. */
import { lotDuCompte } from '../core/consultation';
import { dependancesDepuisEnv } from '../core/dependances';
import { versLot } from '../core/modele';
import { idDuChemin, reponseJson, routeAuthentifiee, type FournisseurDeps } from './adaptateur';

export const creer = (deps: FournisseurDeps) =>
  routeAuthentifiee(deps, async ({ event, d, appelant }) => {
    const { lot, travaux } = await lotDuCompte(d, appelant.compte, idDuChemin(event, 'batch'));
    return reponseJson(200, versLot(lot, travaux, d.signer));
  });
export const handler = creer(() => dependancesDepuisEnv());
