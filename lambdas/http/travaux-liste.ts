/** GET /travaux — recent jobs, newest first, optionally of one tool. */
import { lireFiltre, listerTravaux } from '../core/consultation';
import { documentDepuisEnv } from '../core/client-dynamodb';
import { dependancesAvec } from '../core/dependances-env';
import { lireSecretLiens } from '../core/secret-liens';
import { versTravail } from '../core/modele';
import { reponseJson } from './adaptateur';
import { routeAuthentifiee, type FournisseurDeps } from './authentifiee';

export const creer = (deps: FournisseurDeps) =>
  routeAuthentifiee(deps, async ({ event, d, appelant }) => {
    const travaux = await listerTravaux(d, appelant.compte, lireFiltre(event.queryStringParameters));
    return reponseJson(200, { travaux: travaux.map((t) => versTravail(t, d.signer)) });
  });
// DynamoDB and the link signing secret only.
export const handler = creer(dependancesAvec({ ddb: documentDepuisEnv, lireSecret: lireSecretLiens }));
