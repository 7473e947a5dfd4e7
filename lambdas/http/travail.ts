/** GET /travaux/{id} — one job, with freshly signed links to its results. */
import { travailDuCompte } from '../core/consultation';
import { dependancesDepuisEnv } from '../core/dependances';
import { versTravail } from '../core/modele';
import { idDuChemin, reponseJson, routeAuthentifiee, type FournisseurDeps } from './adaptateur';

export const creer = (deps: FournisseurDeps) =>
  routeAuthentifiee(deps, async ({ event, d, appelant }) => {
    const travail = await travailDuCompte(d, appelant.compte, idDuChemin(event, 'job'));
    return reponseJson(200, versTravail(travail, d.signer));
  });
export const handler = creer(() => dependancesDepuisEnv());
