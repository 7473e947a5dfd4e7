/** GET /travaux — recent jobs, newest first, optionally of one tool, a page at a time (`suivant`, `?apres=`). */
import { lireFiltre, listerTravaux } from '../core/domaine/consultation';
import { documentDepuisEnv } from '../core/infra/client-dynamodb';
import { dependancesAvec, type AvecCurseurs, type AvecSigner } from '../core/infra/dependances';
import { lireSecretLiens } from '../core/infra/secret-liens';
import { versTravail } from '../core/modele/enregistrements';
import { reponseJson } from './adaptateur';
import { routeAuthentifiee, type DepsAuthentification, type FournisseurDeps } from './authentifiee';

export const creer = (deps: FournisseurDeps<DepsAuthentification & AvecSigner & AvecCurseurs>) =>
  routeAuthentifiee(deps, async ({ event, d, appelant }) => {
    const { travaux, suivant } = await listerTravaux(d, appelant, lireFiltre(event.queryStringParameters));
    return reponseJson(200, { travaux: travaux.map((t) => versTravail(t, d.signer)), suivant });
  });
// DynamoDB and the link signing secret only (links, and the cursors' key derived from it).
export const handler = creer(dependancesAvec({ ddb: documentDepuisEnv, lireSecret: lireSecretLiens }));
