/**
 * The template's REST API in its local run (local/pile-template.ts): the local gateway, started
 * before the functions (the API's URL is in their environment, the links' base), then each route of
 * routes.ts given to the function the template's API method integrates, and the links route
 * (`-c liens=api`), a proxy resource the gateway does not list, given its events here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { BASE_CHEMIN, ROUTES } from '../lambdas/http/routes';
import type { FonctionWorker } from './fonction-worker';
import { demarrerPasserelle } from './passerelle';
import { parType, routesDuTemplate, type Template } from './template-synthese';

type Autres = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;

export interface ApiLocale {
  /** Filled by brancherRoutes, once the functions are loaded. */
  handlers: Record<string, (e: APIGatewayProxyEvent, c: Context) => Promise<APIGatewayProxyResult>>;
  /** The API's stage, as the template names it. */
  etape: string;
  /** The gateway's origin: what the API's invoke URL becomes. */
  origine: string;
  /** What the gateway does with a request of no listed route (the links route, when there is one). */
  autres: { fichiers?: Autres };
}

export const demarrerApi = async (t: Template, arrets: (() => Promise<void>)[]): Promise<ApiLocale> => {
  const handlers: ApiLocale['handlers'] = {};
  const autres: ApiLocale['autres'] = {};
  const etape = (parType(t, 'AWS::ApiGateway::Stage')[0]?.[1].Properties?.StageName as string | undefined) ?? 'v1';
  const passerelle = await demarrerPasserelle({
    port: 0,
    handlers,
    etape,
    autres: (req, res) => (autres.fichiers ? autres.fichiers(req, res) : Promise.resolve(false)),
  });
  arrets.push(passerelle.arreter);
  return { handlers, etape, origine: `http://127.0.0.1:${passerelle.port}`, autres };
};

/** The links route: the event API Gateway gives a proxy resource's integration, and its answer back. */
const routeLiens =
  (api: ApiLocale, prefixe: string, workers: Record<string, FonctionWorker>, id: string): Autres =>
  async (req, res) => {
    const url = new URL(req.url ?? '/', api.origine);
    if (req.method !== 'GET' || !url.pathname.startsWith(prefixe)) return false;
    const multiples: Record<string, string[]> = {};
    for (const [k, v] of url.searchParams) (multiples[k] ??= []).push(v);
    const evenement = {
      resource: `${prefixe}{proxy+}`,
      path: url.pathname,
      httpMethod: 'GET',
      headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
      multiValueHeaders: {},
      queryStringParameters: url.searchParams.size ? Object.fromEntries(url.searchParams) : null,
      multiValueQueryStringParameters: url.searchParams.size ? multiples : null,
      pathParameters: { proxy: url.pathname.slice(prefixe.length) },
      stageVariables: null,
      body: null,
      isBase64Encoded: false,
      requestContext: {
        stage: api.etape,
        requestId: randomUUID(),
        httpMethod: 'GET',
        path: `/${api.etape}${url.pathname}`,
        resourcePath: `${prefixe}{proxy+}`,
        identity: { sourceIp: '127.0.0.1' },
      },
    };
    const r = (await workers[id]!.invoquer(evenement, { getRemainingTimeInMillis: () => 29_000 })) as APIGatewayProxyResult;
    const corps = Buffer.from(r.body ?? '', r.isBase64Encoded ? 'base64' : 'utf8');
    res.writeHead(r.statusCode, { ...(r.headers as Record<string, string>), 'Content-Length': String(corps.length) }).end(corps);
    return true;
  };

/** Routes, from the template's API methods: route `fonction` (routes.ts) → logical id of its function. */
export const brancherRoutes = (t: Template, api: ApiLocale, workers: Record<string, FonctionWorker>): Record<string, string> => {
  const methodes = routesDuTemplate(t);
  const routes: Record<string, string> = {};
  for (const route of ROUTES) {
    const id = methodes.get(`${route.methode} ${BASE_CHEMIN}${route.chemin}`);
    if (!id) throw new Error(`the template's API has no ${route.methode} ${BASE_CHEMIN}${route.chemin}`);
    routes[route.fonction] = id;
  }
  const introuvable = methodes.get('ANY /{proxy+}');
  if (!introuvable) throw new Error("the template's API has no ANY /{proxy+}");
  routes.introuvable = introuvable;
  for (const [fonction, id] of Object.entries(routes)) api.handlers[fonction] = (e, c) => workers[id]!.invoquer(e, c) as Promise<APIGatewayProxyResult>;
  const idFichier = methodes.get(`GET ${BASE_CHEMIN}/fichiers/{proxy+}`);
  // `-c liens=api`: the links route, a proxy resource the local gateway does not list (routes.ts).
  if (idFichier) api.autres.fichiers = routeLiens(api, `${BASE_CHEMIN}/fichiers/`, workers, idFichier);
  return routes;
};
