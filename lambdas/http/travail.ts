/** GET /travaux/{id} — one job, with freshly signed links to its results. */
import { travailDuCompte } from '../core/domaine/consultation';
import { documentDepuisEnv } from '../core/infra/client-dynamodb';
import { dependancesAvec, type AvecSigner } from '../core/infra/dependances';
import { lireSecretLiens } from '../core/infra/secret-liens';
import { versTravail } from '../core/modele/enregistrements';
import { idDuChemin, reponseJson } from './adaptateur';
import { routeAuthentifiee, type DepsAuthentification, type FournisseurDeps } from './authentifiee';

export const creer = (deps: FournisseurDeps<DepsAuthentification & AvecSigner>) =>
  routeAuthentifiee(deps, async ({ event, d, appelant }) => {
    const travail = await travailDuCompte(d, appelant, idDuChemin(event, 'job'));
    return reponseJson(200, versTravail(travail, d.signer));
  });
// DynamoDB and the link signing secret only.
export const handler = creer(dependancesAvec({ ddb: documentDepuisEnv, lireSecret: lireSecretLiens }));
