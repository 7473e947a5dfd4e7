/** GET /solde — the account's credit balance. */
import { lireCompte } from '../core/comptes';
import { dependancesDepuisEnv } from '../core/dependances';
import { ErreurApi } from '../core/erreurs';
import { reponseJson, routeAuthentifiee, type FournisseurDeps } from './adaptateur';

export const creer = (deps: FournisseurDeps) =>
  routeAuthentifiee(deps, async ({ d, appelant }) => {
    const compte = await lireCompte(d, appelant.compte);
    if (!compte) throw new ErreurApi('unauthorized', 'The account of this key no longer exists.');
    return reponseJson(200, { credits: compte.credits });
  });
export const handler = creer(() => dependancesDepuisEnv());
