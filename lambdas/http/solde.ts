/** GET /solde — the account's credit balance. */
import { lire as lireCompte } from '../core/depots/comptes';
import { documentDepuisEnv } from '../core/infra/client-dynamodb';
import { dependancesAvec } from '../core/infra/dependances';
import { ErreurApi } from '../core/modele/erreurs';
import { reponseJson } from './adaptateur';
import { routeAuthentifiee, type FournisseurDeps } from './authentifiee';

export const creer = (deps: FournisseurDeps) =>
  routeAuthentifiee(deps, async ({ d, appelant }) => {
    const compte = await lireCompte(d, appelant.compte);
    if (!compte) throw new ErreurApi('unauthorized', 'The account of this key no longer exists.');
    return reponseJson(200, { credits: compte.credits });
  });
// DynamoDB only: no S3, Step Functions or link secret in this function's bundle.
export const handler = creer(dependancesAvec({ ddb: documentDepuisEnv }));
