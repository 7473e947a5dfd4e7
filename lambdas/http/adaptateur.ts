/**
 * What every HTTP handler shares: middy with one error middleware (any failure becomes the spec's
 * `Erreur` body), authentication and the per-key rate limit for authenticated routes, JSON answers.
 * Handlers stay a few lines over the domain core.
 */
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { authentifier, type Appelant } from '../core/comptes';
import { compterRequete } from '../core/cadence';
import type { Dependances } from '../core/dependances';
import { ErreurApi } from '../core/erreurs';
import { journal } from '../core/journal';

export type HandlerHttp = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
export type FournisseurDeps = () => Promise<Dependances>;

const ENTETES_COMMUNES = { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' };

export const reponseJson = (statusCode: number, corps: unknown, entetes: Record<string, string> = {}): APIGatewayProxyResult => ({
  statusCode,
  headers: { ...ENTETES_COMMUNES, ...entetes },
  body: JSON.stringify(corps),
});

export const reponseErreur = (erreur: ErreurApi): APIGatewayProxyResult =>
  reponseJson(erreur.statut, erreur.corps(), erreur.entetes);

/** Header lookup: API Gateway passes headers with the client's own case. */
export const entete = (event: Pick<APIGatewayProxyEvent, 'headers'>, nom: string): string | undefined => {
  const cherche = nom.toLowerCase();
  for (const [cle, valeur] of Object.entries(event.headers ?? {})) {
    if (cle.toLowerCase() === cherche && valeur !== undefined) return valeur;
  }
  return undefined;
};

const erreursEnReponses = (): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> => ({
  onError: (requete) => {
    const erreur = requete.error;
    if (erreur instanceof ErreurApi) {
      requete.response = reponseErreur(erreur);
      return;
    }
    journal.error('unexpected error', { erreur, chemin: requete.event.path, requestId: requete.context.awsRequestId });
    requete.response = reponseErreur(new ErreurApi('internal_error', 'Internal error; please retry later.'));
  },
});

/** A public route (no key): `GET /outils`, `GET /openapi.json`, unknown routes. */
export const routePublique = (fn: (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>): HandlerHttp =>
  middy<APIGatewayProxyEvent, APIGatewayProxyResult>().use(erreursEnReponses()).handler(fn);

export interface AppelAuthentifie {
  event: APIGatewayProxyEvent;
  contexte: Context;
  d: Dependances;
  appelant: Appelant;
}

/** A route that needs `Authorization: Bearer <key>`; every such call counts against the key's rate. */
export const routeAuthentifiee = (
  deps: FournisseurDeps,
  fn: (appel: AppelAuthentifie) => Promise<APIGatewayProxyResult>,
): HandlerHttp =>
  middy<APIGatewayProxyEvent, APIGatewayProxyResult>()
    .use(erreursEnReponses())
    .handler(async (event, contexte) => {
      const d = await deps();
      const appelant = await authentifier(d, entete(event, 'authorization'));
      await compterRequete(d, appelant.empreinte);
      return fn({ event, contexte, d, appelant });
    });

/** The path parameter `id` when it is a UUID; anything else cannot name a job or batch: 404. */
export const idDuChemin = (event: APIGatewayProxyEvent, quoi: 'job' | 'batch'): string => {
  const id = event.pathParameters?.id ?? '';
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) {
    throw new ErreurApi('not_found', `No ${quoi} ${id}.`);
  }
  return id.toLowerCase();
};
