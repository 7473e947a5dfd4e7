/**
 * POST /mcp — Retouche's MCP server on the stage, which an assistant adds by URL
 * (`https://…/api/v1/mcp`, the API key as its bearer token): the Lambda entry of the server's second
 * transport, beside stdio.ts, over the same tools (serveur.ts). It lives with the MCP server, not under
 * lambdas/, because the dependency goes one way: the clients build on the server's contract, and nothing
 * under lambdas/ imports from clients/ (eslint.config.js). It takes from lambdas/ what any route takes:
 * the key's check, the rate count, the route list. CDK bundles it as the route's function `http/mcp`
 * (lib/fonction.ts), and the local stack loads it for that route (local/pile.ts).
 *
 * Streamable HTTP, stateless, JSON answers: each POST is one JSON-RPC message answered whole, so a Lambda
 * behind the gateway serves it and no session outlives the request (no GET stream; GET and DELETE are 405s
 * like any method a route lacks).
 *
 * The usual messages are answered without loading the official MCP SDK, and the others by the SDK
 * (http.ts): a cold start reads about 320 KB of JS instead of 960 KB (issue 40).
 *
 * The tools call the public API with the caller's own key, through the TypeScript SDK, saying
 * `Retouche-Source: mcp`: the same checks, debits, refunds and rate limit as any client, and this function
 * needs no right of its own beyond reading the key it authenticates and counting its calls.
 *
 * An assistant's request is bounded as a client's is (issue 38): one POST is one message (a JSON-RPC
 * batch is refused, so a POST cannot fan out into a hundred tool calls), and every API call a tool makes
 * counts against the key, the public ones too, so N POSTs do at most the key's rate of API work.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { compterRequete } from '../../../lambdas/core/domaine/cadence';
import { jetonPorteur } from '../../../lambdas/core/domaine/comptes';
import { documentDepuisEnv } from '../../../lambdas/core/infra/client-dynamodb';
import { dependancesAvec, type AvecTable } from '../../../lambdas/core/infra/dependances';
import { ErreurApi } from '../../../lambdas/core/modele/erreurs';
import { entete } from '../../../lambdas/http/adaptateur';
import { routeAuthentifiee, type FournisseurDeps } from '../../../lambdas/http/authentifiee';
import { BASE_CHEMIN, motifChemin, ROUTES } from '../../../lambdas/http/routes';
import { Retouche } from '../../sdk/src/index';
import { repondreHttp, type ReponseHttpMcp } from './http';
import { lecteurImages } from './serveur';

/**
 * One `attendre` call waits at most this long: the answer must leave before API Gateway's 29 s, with
 * the API calls around the wait (each bounded by DELAI_APPEL_MS below).
 */
export const ATTENTE_MAX_DISTANTE_S = 15;
const DELAI_APPEL_MS = 5_000;

/**
 * The API the tools call with the caller's key: the stage's own URL (RETOUCHE_API_URL, set by the stack);
 * locally, where no function has an environment of its own, the address the local gateway listens on,
 * which it gives as API Gateway gives its domain. Never the request's Host: the caller writes it, and the
 * key would go wherever it names.
 */
const apiDe = (event: APIGatewayProxyEvent): string => {
  const configuree = process.env['RETOUCHE_API_URL'];
  if (configuree) return configuree;
  const { apiId, domainName } = event.requestContext;
  if (apiId === 'local' && domainName) return `http://${domainName}${BASE_CHEMIN}`;
  throw new Error('RETOUCHE_API_URL is not set: the MCP function has no API to call');
};

/** The routes that count each call against the key themselves (routeAuthentifiee); the tools' other calls are counted here. */
const COMPTEES = ROUTES.filter((r) => r.authentifiee).map((r) => ({ methode: r.methode, motif: motifChemin(r.chemin) }));

/**
 * The SDK's fetch, counting against the caller's key each call its route would not count (GET /outils,
 * public, which `outils` and `lancer` read): a refused one gets the 429 the API gives, so the tool
 * answers `rate_limited` as for any other call.
 */
const fetchCompte = (d: AvecTable, empreinte: string, base: string): typeof fetch => {
  const racine = new URL(base);
  return async (entree, init) => {
    const url = new URL(entree instanceof Request ? entree.url : entree);
    const methode = (init?.method ?? (entree instanceof Request ? entree.method : 'GET')).toUpperCase();
    const chemin = url.pathname.slice(racine.pathname.length);
    const compteeParSaRoute =
      url.origin === racine.origin && url.pathname.startsWith(racine.pathname) && COMPTEES.some((r) => r.methode === methode && r.motif.test(chemin));
    if (!compteeParSaRoute) {
      try {
        await compterRequete(d, empreinte, true);
      } catch (e) {
        if (!(e instanceof ErreurApi)) throw e;
        return new Response(JSON.stringify(e.corps()), { status: e.statut, headers: { 'Content-Type': 'application/json; charset=utf-8', ...e.entetes } });
      }
    }
    return fetch(entree, init);
  };
};

/**
 * A JSON-RPC batch, a JSON array: MCP 2025-06-18 dropped them, and here one POST runs one message, so
 * that a request is one tool call's worth of API calls. A body that is not JSON is the transport's to refuse.
 */
const estUnLot = (corps: Buffer | undefined): boolean => {
  if (corps === undefined) return false;
  try {
    return Array.isArray(JSON.parse(corps.toString('utf8')));
  } catch {
    return false;
  }
};

/** What the transport answers an invalid request, in the same form: JSON-RPC's -32600, with a 400. */
const LOT_REFUSE: APIGatewayProxyResult = {
  statusCode: 400,
  headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' },
  body: JSON.stringify({
    jsonrpc: '2.0',
    error: { code: -32600, message: 'Invalid Request: a JSON-RPC batch (an array) is not accepted; send one message per POST.' },
    id: null,
  }),
};

export const creer = (deps: FournisseurDeps) =>
  routeAuthentifiee(deps, async ({ event, d, appelant }) => {
    if (appelant.source !== 'api') {
      throw new ErreurApi('forbidden', 'The MCP endpoint takes an API key as its bearer token (Authorization: Bearer rtch_…), not a web site session.');
    }
    const corps = corpsDe(event);
    if (estUnLot(corps)) return LOT_REFUSE;
    // The key routeAuthentifiee has just checked, read the same way.
    const cle = jetonPorteur(entete(event, 'authorization'))!;
    const base = apiDe(event);
    // A 429 is not waited out here (its Retry-After may pass the gateway's 29 s): the assistant gets its message.
    const retouche = new Retouche({
      base,
      cle,
      source: 'mcp',
      reessais: 1,
      attentes429: 0,
      delaiRequeteMs: DELAI_APPEL_MS,
      fetch: fetchCompte(d, appelant.empreinte, base),
    });
    const entetes = new Headers();
    for (const [nom, valeur] of Object.entries(event.headers ?? {})) if (valeur !== undefined) entetes.set(nom, valeur);
    const reponse = await repondreHttp(
      { methode: event.httpMethod, url: `https://mcp.invalid${event.path}`, entetes, corps },
      // Result images (files, not API calls: not counted) read within the answer's bounds (serveur.ts).
      { retouche, fichiersLocaux: false, attenteMaxS: ATTENTE_MAX_DISTANTE_S, lireImage: lecteurImages() },
    );
    return versReponseGateway(reponse);
  });

const corpsDe = (event: APIGatewayProxyEvent): Buffer | undefined =>
  event.body === null ? undefined : Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');

const versReponseGateway = (reponse: ReponseHttpMcp): APIGatewayProxyResult => ({
  statusCode: reponse.statut,
  headers: { ...reponse.entetes, 'Cache-Control': 'no-store' },
  body: reponse.corps,
});

// DynamoDB only, to check the key and count the calls; the tools go through the public API.
export const handler = creer(dependancesAvec({ ddb: documentDepuisEnv }));
