/** POST /compte/cles — a new named API key, live or test (`"test": true`); the key is in this answer and nowhere else, ever. */
import { lireNouvelleCle } from '../core/contrat/compte';
import { creerCleNommee } from '../core/domaine/comptes';
import { documentDepuisEnv } from '../core/infra/client-dynamodb';
import { dependancesAvec } from '../core/infra/dependances';
import { entete, reponseJson } from './adaptateur';
import { routeAuthentifiee, type FournisseurDeps } from './authentifiee';

export const creer = (deps: FournisseurDeps) =>
  routeAuthentifiee(
    deps,
    async ({ event, d, appelant }) => {
      const { nom, test } = lireNouvelleCle(entete(event, 'content-type'), Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8'));
      return reponseJson(201, await creerCleNommee(d, appelant.compte, nom, test));
    },
    { sessionSeule: true },
  );
// DynamoDB only.
export const handler = creer(dependancesAvec({ ddb: documentDepuisEnv }));
