/**
 * What every HTTP handler shares: middy with one error middleware (any failure becomes the spec's
 * `Erreur` body), JSON answers; authentication and the per-key rate limit for authenticated routes
 * are in authentifiee.ts, so the public routes' bundles carry no DynamoDB client. Handlers stay a
 * few lines over the domain core.
 *
 * The error middleware is ours, not @middy/http-error-handler: that one answers `{ message }` (or the
 * error's own text) for http-errors, while the spec wants every refusal as its `Erreur` body with our
 * code, details and headers (Retry-After), and anything unexpected logged without customer data.
 */
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { ErreurApi } from '../core/modele/erreurs';
import { estUuid } from '../core/modele/uuid';
import { signaler } from '../core/infra/signalement';

export type HandlerHttp = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

const ENTETES_COMMUNES = { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' };

export const reponseJson = (statusCode: number, corps: unknown, entetes: Record<string, string> = {}): APIGatewayProxyResult => ({
  statusCode,
  headers: { ...ENTETES_COMMUNES, ...entetes },
  body: JSON.stringify(corps),
});

export const reponseErreur = (erreur: ErreurApi): APIGatewayProxyResult => reponseJson(erreur.statut, erreur.corps(), erreur.entetes);

/**
 * Header lookup: API Gateway passes headers with the client's own case. Not @middy/http-header-normalizer:
 * it would rewrite every event to read two headers, for 2.3 KB more in each HTTP bundle
 * (measured on the esbuild bundle, with and without it); a case-insensitive lookup is all the handlers need.
 */
export const entete = (event: Pick<APIGatewayProxyEvent, 'headers'>, nom: string): string | undefined => {
  const cherche = nom.toLowerCase();
  for (const [recu, valeur] of Object.entries(event.headers ?? {})) {
    if (recu.toLowerCase() === cherche && valeur !== undefined) return valeur;
  }
  return undefined;
};

export const erreursEnReponses = (): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> => ({
  onError: async (requete) => {
    const erreur = requete.error;
    if (erreur instanceof ErreurApi) {
      requete.response = reponseErreur(erreur);
      return;
    }
    // The logger (Powertools) is loaded at the first line logged, not at every cold start (core/infra/signalement.ts).
    await signaler('error', 'unexpected error', { erreur, chemin: requete.event.path, requestId: requete.context.awsRequestId });
    requete.response = reponseErreur(new ErreurApi('internal_error', 'Internal error; please retry later.'));
  },
});

/** A public route (no key): `GET /outils`, `GET /openapi.json`, unknown routes. */
export const routePublique = (fn: (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>): HandlerHttp =>
  middy<APIGatewayProxyEvent, APIGatewayProxyResult>().use(erreursEnReponses()).handler(fn);

/** The path parameter `id` when it is a UUID; anything else cannot name a job or batch: 404. */
export const idDuChemin = (event: APIGatewayProxyEvent, quoi: 'job' | 'batch'): string => {
  const id = event.pathParameters?.id ?? '';
  if (!estUuid(id)) {
    throw new ErreurApi('not_found', `No ${quoi} ${id}.`);
  }
  return id.toLowerCase();
};
