/** GET /compte/cles — the web site's API page: the account's active keys, never the keys themselves. */
import { clesDuCompte } from '../core/domaine/comptes';
import { documentDepuisEnv } from '../core/infra/client-dynamodb';
import { dependancesAvec } from '../core/infra/dependances';
import { reponseJson } from './adaptateur';
import { routeAuthentifiee, type FournisseurDeps } from './authentifiee';

export const creer = (deps: FournisseurDeps) =>
  routeAuthentifiee(deps, async ({ d, appelant }) => reponseJson(200, { cles: await clesDuCompte(d, appelant.compte) }), { sessionSeule: true });
// DynamoDB only.
export const handler = creer(dependancesAvec({ ddb: documentDepuisEnv }));
