/** GET /lots/{id} — a batch: counters, its jobs, and once done a signed link to the ZIP. */
import { lotDuCompte } from '../core/consultation';
import { documentDepuisEnv } from '../core/client-dynamodb';
import { dependancesAvec } from '../core/dependances-env';
import { lireSecretLiens } from '../core/secret-liens';
import { versLot } from '../core/modele';
import { idDuChemin, reponseJson } from './adaptateur';
import { routeAuthentifiee, type FournisseurDeps } from './authentifiee';

export const creer = (deps: FournisseurDeps) =>
  routeAuthentifiee(deps, async ({ event, d, appelant }) => {
    const { lot, travaux } = await lotDuCompte(d, appelant.compte, idDuChemin(event, 'batch'));
    return reponseJson(200, versLot(lot, travaux, d.signer));
  });
// DynamoDB and the link signing secret only.
export const handler = creer(dependancesAvec({ ddb: documentDepuisEnv, lireSecret: lireSecretLiens }));
