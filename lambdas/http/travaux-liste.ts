/** GET /travaux — recent jobs, newest first, optionally of one tool. */
import { lireFiltre, listerTravaux } from '../core/consultation';
import { dependancesDepuisEnv } from '../core/dependances';
import { versTravail } from '../core/modele';
import { reponseJson, routeAuthentifiee, type FournisseurDeps } from './adaptateur';

export const creer = (deps: FournisseurDeps) =>
  routeAuthentifiee(deps, async ({ event, d, appelant }) => {
    const travaux = await listerTravaux(d, appelant.compte, lireFiltre(event.queryStringParameters));
    return reponseJson(200, { travaux: travaux.map((t) => versTravail(t, d.signer)) });
  });
export const handler = creer(() => dependancesDepuisEnv());
