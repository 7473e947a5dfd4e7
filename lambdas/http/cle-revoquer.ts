/** DELETE /compte/cles/{id} — revokes one of the account's keys at once: its next request is a 401. */
import { revoquerCleDuCompte } from '../core/domaine/comptes';
import { documentDepuisEnv } from '../core/infra/client-dynamodb';
import { dependancesAvec } from '../core/infra/dependances';
import { routeAuthentifiee, type FournisseurDeps } from './authentifiee';

export const creer = (deps: FournisseurDeps) =>
  routeAuthentifiee(
    deps,
    async ({ event, d, appelant }) => {
      await revoquerCleDuCompte(d, appelant.compte, event.pathParameters?.id ?? '');
      return { statusCode: 204, headers: { 'Cache-Control': 'no-store' }, body: '' };
    },
    { sessionSeule: true },
  );
// DynamoDB only.
export const handler = creer(dependancesAvec({ ddb: documentDepuisEnv }));
