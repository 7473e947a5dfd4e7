/** POST /travaux — starts a job or a batch (JSON or multipart). */
import { dependancesDepuisEnv } from '../core/dependances';
import { lancer } from '../core/lancement';
import { entete, reponseJson, routeAuthentifiee, type FournisseurDeps } from './adaptateur';

export const creer = (deps: FournisseurDeps) =>
  routeAuthentifiee(deps, async ({ event, d, appelant }) => {
    const lancement = await lancer(d, {
      compte: appelant.compte,
      contentType: entete(event, 'content-type'),
      corps: Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8'),
      cleIdempotence: entete(event, 'idempotency-key'),
    });
    return reponseJson(202, lancement);
  });
export const handler = creer(() => dependancesDepuisEnv());
