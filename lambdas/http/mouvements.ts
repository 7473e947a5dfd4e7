/** GET /compte/mouvements — the web site's account page: the balance and its newest movements (core/domaine/mouvements.ts). */
import { lire as lireCompte } from '../core/depots/comptes';
import { lireLimite } from '../core/domaine/consultation';
import { mouvementsDuCompte } from '../core/domaine/mouvements';
import { documentDepuisEnv } from '../core/infra/client-dynamodb';
import { dependancesAvec } from '../core/infra/dependances';
import { reponseJson } from './adaptateur';
import { routeAuthentifiee, type FournisseurDeps } from './authentifiee';

export const creer = (deps: FournisseurDeps) =>
  routeAuthentifiee(
    deps,
    async ({ event, d, appelant }) => {
      const limite = lireLimite(event.queryStringParameters);
      const [compte, mouvements] = await Promise.all([lireCompte(d, appelant.compte), mouvementsDuCompte(d, appelant.compte, limite)]);
      return reponseJson(200, { credits: compte?.credits ?? 0, mouvements });
    },
    { sessionSeule: true },
  );
// DynamoDB only.
export const handler = creer(dependancesAvec({ ddb: documentDepuisEnv }));
