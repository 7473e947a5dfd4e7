/** GET /lots/{id} — a batch: counters, its jobs, and once done a signed link to the ZIP. */
import { lotDuCompte } from '../core/domaine/consultation';
import { documentDepuisEnv } from '../core/infra/client-dynamodb';
import { dependancesAvec, type AvecSigner } from '../core/infra/dependances';
import { lireSecretLiens } from '../core/infra/secret-liens';
import { versLot } from '../core/modele/enregistrements';
import { idDuChemin, reponseJson } from './adaptateur';
import { routeAuthentifiee, type DepsAuthentification, type FournisseurDeps } from './authentifiee';

export const creer = (deps: FournisseurDeps<DepsAuthentification & AvecSigner>) =>
  routeAuthentifiee(deps, async ({ event, d, appelant }) => {
    const { lot, travaux } = await lotDuCompte(d, appelant, idDuChemin(event, 'batch'));
    return reponseJson(200, versLot(lot, travaux, d.signer));
  });
// DynamoDB and the link signing secret only.
export const handler = creer(dependancesAvec({ ddb: documentDepuisEnv, lireSecret: lireSecretLiens }));
