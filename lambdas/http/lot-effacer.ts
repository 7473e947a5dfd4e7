/**
 * DELETE /lots/{id} (our extension) — erases the account's own ended batch: every job of it (inputs,
 * results, records), its ZIP, its record. A batch with jobs not yet ended answers 409 and is erased
 * by the sweeper when it ends.
 */
import { documentDepuisEnv } from '../core/infra/client-dynamodb';
import { lotDuCompte } from '../core/domaine/consultation';
import type { DepsEffacement } from '../core/domaine/effacement/commun';
import { effacerLotEnregistre } from '../core/domaine/effacement/lot';
import { dependancesAvec } from '../core/infra/dependances';
import { objetsDepuisEnv } from '../core/infra/objets';
import { idDuChemin } from './adaptateur';
import { routeAuthentifiee, type DepsAuthentification, type FournisseurDeps } from './authentifiee';
import { repondreEffacement } from './effacement';

export const creer = (deps: FournisseurDeps<DepsAuthentification & DepsEffacement>) =>
  routeAuthentifiee(deps, async ({ event, d, appelant }) => {
    const { lot } = await lotDuCompte(d, appelant, idDuChemin(event, 'batch'));
    const issue = await effacerLotEnregistre(d, lot);
    return repondreEffacement(issue, 'batch', lot.id);
  });
// DynamoDB and S3 deletes only: no link is signed here.
export const handler = creer(dependancesAvec({ ddb: documentDepuisEnv, objets: objetsDepuisEnv }));
