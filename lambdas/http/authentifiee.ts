/**
 * Routes that need `Authorization: Bearer <key>`: the key is checked against the hashed keys and
 * every such call counts against its rate (DynamoDB), then the handler runs. Apart from
 * adaptateur.ts so that the public routes do not bundle what this needs.
 */
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { compterRequete } from '../core/domaine/cadence';
import { authentifier, type Appelant, type ExigencesAuthentification } from '../core/domaine/comptes';
import type { AvecTable, Reglages } from '../core/infra/dependances';
import { entete, erreursEnReponses, type HandlerHttp } from './adaptateur';

/** What checking a caller needs: the table (keys, users, rate windows), the clock, the user pool's verifier where there is one. */
export type DepsAuthentification = AvecTable & Pick<Reglages, 'sessions'>;

/** A route's dependencies, built once per container: what its handler uses, and at least what authenticates. */
export type FournisseurDeps<D extends DepsAuthentification = DepsAuthentification> = () => Promise<D>;

export interface AppelAuthentifie<D extends DepsAuthentification = DepsAuthentification> {
  event: APIGatewayProxyEvent;
  contexte: Context;
  d: D;
  appelant: Appelant;
}

/**
 * A route that needs `Authorization: Bearer <API key or web session>` (`exigences`: the web site's
 * own routes take a session only); every such call counts against the key's (or user's) rate.
 */
export const routeAuthentifiee = <D extends DepsAuthentification>(
  deps: FournisseurDeps<D>,
  fn: (appel: AppelAuthentifie<D>) => Promise<APIGatewayProxyResult>,
  exigences: ExigencesAuthentification = {},
): HandlerHttp =>
  middy<APIGatewayProxyEvent, APIGatewayProxyResult>()
    .use(erreursEnReponses())
    .handler(async (event, contexte) => {
      const d = await deps();
      const appelant = await authentifier(d, entete(event, 'authorization'), exigences);
      await compterRequete(d, appelant.empreinte, appelant.source === 'api');
      return fn({ event, contexte, d, appelant });
    });
