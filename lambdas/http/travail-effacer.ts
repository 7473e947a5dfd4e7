/**
 * DELETE /travaux/{id} (our extension) — erases the account's own ended job: inputs, results, the
 * ZIP of its batch (written again without it), its record. A job not yet ended answers 409 and is
 * erased by the sweeper when it ends.
 */
import { documentDepuisEnv } from '../core/infra/client-dynamodb';
import { travailDuCompte } from '../core/domaine/consultation';
import type { DepsEffacement } from '../core/domaine/effacement/commun';
import { effacerTravailEnregistre } from '../core/domaine/effacement/travail';
import { dependancesAvec } from '../core/infra/dependances';
import { objetsDepuisEnv } from '../core/infra/objets';
import { idDuChemin } from './adaptateur';
import { routeAuthentifiee, type DepsAuthentification, type FournisseurDeps } from './authentifiee';
import { repondreEffacement } from './effacement';

export const creer = (deps: FournisseurDeps<DepsAuthentification & DepsEffacement>) =>
  routeAuthentifiee(deps, async ({ event, d, appelant }) => {
    const travail = await travailDuCompte(d, appelant, idDuChemin(event, 'job'));
    const issue = await effacerTravailEnregistre(d, travail);
    return repondreEffacement(issue, 'job', travail.id);
  });
// DynamoDB and S3 deletes only: no link is signed here.
export const handler = creer(dependancesAvec({ ddb: documentDepuisEnv, objets: objetsDepuisEnv }));
