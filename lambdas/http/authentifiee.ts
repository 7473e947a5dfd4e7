/**
 * Routes that need `Authorization: Bearer <key>`: the key is checked against the hashed keys and
 * every such call counts against its rate (DynamoDB), then the handler runs. Apart from
 * adaptateur.ts so that the public routes do not bundle what this needs.
 */
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { compterRequete } from '../core/domaine/cadence';
import { authentifier, type Appelant, type ExigencesAuthentification } from '../core/domaine/comptes';
import type { Dependances } from '../core/infra/dependances';
import { entete, erreursEnReponses, type HandlerHttp } from './adaptateur';

export type FournisseurDeps = () => Promise<Dependances>;

export interface AppelAuthentifie {
  event: APIGatewayProxyEvent;
  contexte: Context;
  d: Dependances;
  appelant: Appelant;
}

/**
 * A route that needs `Authorization: Bearer <API key or web session>` (`exigences`: the web site's
 * own routes take a session only); every such call counts against the key's (or user's) rate.
 */
export const routeAuthentifiee = (
  deps: FournisseurDeps,
  fn: (appel: AppelAuthentifie) => Promise<APIGatewayProxyResult>,
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
