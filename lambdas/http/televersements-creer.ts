/**
 * POST /televersements (our extension) — signed PUT URLs for full-size photos, which then go to S3
 * directly; an image of POST /travaux names one by its id. Free, but counted by the rate limit.
 */
import { dependancesDepuisEnv } from '../core/dependances';
import { creerTeleversements } from '../core/televersements';
import { entete, reponseJson, routeAuthentifiee, type FournisseurDeps } from './adaptateur';

export const creer = (deps: FournisseurDeps) =>
  routeAuthentifiee(deps, async ({ event, d, appelant }) => {
    const corps = Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');
    return reponseJson(201, await creerTeleversements(d, appelant.compte, entete(event, 'content-type'), corps));
  });
export const handler = creer(() => dependancesDepuisEnv());
