/**
 * POST /mcp — Retouche's MCP server on the stage, which an assistant adds by URL
 * (`https://…/api/v1/mcp`, the API key as its bearer token). Streamable HTTP, stateless, JSON answers:
 * each POST is one JSON-RPC message answered whole, so a Lambda behind the gateway serves it and no
 * session outlives the request (no GET stream; GET and DELETE are 405s like any method a route lacks).
 *
 * The tools (clients/mcp/src/serveur.ts) call the public API with the caller's own key, through the
 * TypeScript SDK, saying `Retouche-Source: mcp`: the same checks, debits, refunds and rate limit as any
 * client, and this function needs no right of its own beyond reading the key it authenticates.
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { Retouche } from '../../clients/sdk/src/index';
import { creerServeurMcp } from '../../clients/mcp/src/serveur';
import { jetonPorteur } from '../core/domaine/comptes';
import { documentDepuisEnv } from '../core/infra/client-dynamodb';
import { dependancesAvec } from '../core/infra/dependances';
import { ErreurApi } from '../core/modele/erreurs';
import { entete } from './adaptateur';
import { routeAuthentifiee, type FournisseurDeps } from './authentifiee';
import { BASE_CHEMIN } from './routes';

/**
 * One `attendre` call waits at most this long: the answer must leave before API Gateway's 29 s, with
 * the API calls around the wait (each bounded by DELAI_APPEL_MS below).
 */
export const ATTENTE_MAX_DISTANTE_S = 15;
const DELAI_APPEL_MS = 5_000;

/**
 * The API the tools call: the stage's own URL (RETOUCHE_API_URL, set by the stack); locally, the
 * gateway the request came through (the local stack sets no environment per function).
 */
const apiDe = (event: APIGatewayProxyEvent): string => process.env['RETOUCHE_API_URL'] ?? `http://${entete(event, 'host') ?? 'localhost'}${BASE_CHEMIN}`;

export const creer = (deps: FournisseurDeps) =>
  routeAuthentifiee(deps, async ({ event, appelant }) => {
    if (appelant.source !== 'api') {
      throw new ErreurApi('forbidden', 'The MCP endpoint takes an API key as its bearer token (Authorization: Bearer rtch_…), not a web site session.');
    }
    // The key routeAuthentifiee has just checked, read the same way.
    const cle = jetonPorteur(entete(event, 'authorization'))!;
    // A 429 is not waited out here (its Retry-After may pass the gateway's 29 s): the assistant gets its message.
    const retouche = new Retouche({ base: apiDe(event), cle, source: 'mcp', reessais: 1, attentes429: 0, delaiRequeteMs: DELAI_APPEL_MS });
    const serveur = creerServeurMcp({ retouche, fichiersLocaux: false, attenteMaxS: ATTENTE_MAX_DISTANTE_S });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await serveur.connect(transport);
    try {
      const reponse = await transport.handleRequest(requeteWeb(event));
      return versReponseGateway(reponse);
    } finally {
      await serveur.close();
    }
  });

/** The gateway's event as the web Request the MCP transport reads. */
const requeteWeb = (event: APIGatewayProxyEvent): Request => {
  const entetes = new Headers();
  for (const [nom, valeur] of Object.entries(event.headers ?? {})) if (valeur !== undefined) entetes.set(nom, valeur);
  const corps = event.body === null ? undefined : Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
  return new Request(`https://mcp.invalid${event.path}`, { method: event.httpMethod, headers: entetes, ...(corps ? { body: corps } : {}) });
};

const versReponseGateway = async (reponse: Response): Promise<APIGatewayProxyResult> => ({
  statusCode: reponse.status,
  headers: { ...Object.fromEntries(reponse.headers), 'Cache-Control': 'no-store' },
  body: await reponse.text(),
});

// DynamoDB only, to check the key and count the call; the tools go through the public API.
export const handler = creer(dependancesAvec({ ddb: documentDepuisEnv }));
