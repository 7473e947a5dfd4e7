/**
 * POST /televersements (our extension) — signed PUT URLs for full-size photos, which then go to S3
 * directly; an image of POST /travaux names one by its id. Free, but counted by the rate limit.
 */
import { documentDepuisEnv } from '../core/infra/client-dynamodb';
import { objetsDepuisEnv } from '../core/infra/objets';
import { dependancesAvec } from '../core/infra/dependances';
import { creerTeleversements, type DepsTeleversements } from '../core/domaine/televersements';
import { entete, reponseJson } from './adaptateur';
import { routeAuthentifiee, type DepsAuthentification, type FournisseurDeps } from './authentifiee';

export const creer = (deps: FournisseurDeps<DepsAuthentification & DepsTeleversements>) =>
  routeAuthentifiee(deps, async ({ event, d, appelant }) => {
    const corps = Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');
    return reponseJson(201, await creerTeleversements(d, appelant.compte, entete(event, 'content-type'), corps, { test: appelant.test === true }));
  });
// DynamoDB, and S3 for presigned PUT URLs through core/infra/objets.ts: no S3 client in this bundle.
export const handler = creer(dependancesAvec({ ddb: documentDepuisEnv, objets: objetsDepuisEnv }));
