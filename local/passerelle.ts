/**
 * The local API Gateway: each HTTP request under `/api/v1` becomes the REST API proxy event (v1) the
 * deployed API sends, handed to the same handler module; the handler's result becomes the HTTP answer.
 * Routing comes from lambdas/http/routes.ts, like the deployed API's resources, and whatever matches
 * no route goes to the `introuvable` handler, like `ANY /{proxy+}` on AWS.
 */
import { createServer, maxHeaderSize, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { HandlerHttp } from '../lambdas/http/adaptateur';
import { BASE_CHEMIN, ROUTES, TYPES_BINAIRES, type Route } from '../lambdas/http/routes';
import { ErreurApi } from '../lambdas/core/modele/erreurs';
import { journal } from '../lambdas/core/infra/journal';

/** Above the spec's 100 MB request limit plus multipart overhead; the handler answers the precise 413. */
export const MAX_OCTETS_CORPS = 110 * 1024 * 1024;

/** API Gateway's integration timeout: what a handler has left is counted down from it. */
export const DELAI_INTEGRATION_MS = 29_000;

export interface OptionsPasserelle {
  port: number;
  /** Handler per route `fonction` (routes.ts), plus `introuvable`. */
  handlers: Readonly<Record<string, HandlerHttp>>;
  /** Other paths served by the local stack (the signed-link file server). */
  autres?: (requete: IncomingMessage, reponse: ServerResponse) => Promise<boolean>;
  etape?: string;
}

const motifs = ROUTES.map((route) => ({
  route,
  motif: new RegExp(`^${BASE_CHEMIN}${route.chemin.replace(/\{(\w+)\}/g, '(?<$1>[^/]+)')}$`),
}));

/**
 * A path parameter as the handler receives it: percent-decoded, or as sent when its escapes are
 * malformed (`%E0%A4%A`, `%`). Such a value names nothing, and the handler answers 404 like for any
 * other unknown id, instead of the gateway failing on it.
 */
const decoderParametre = (valeur: string): string => {
  try {
    return decodeURIComponent(valeur);
  } catch {
    return valeur;
  }
};

const trouverRoute = (methode: string, chemin: string): { route: Route; parametres: Record<string, string> } | undefined => {
  for (const { route, motif } of motifs) {
    const correspondance = motif.exec(chemin);
    if (correspondance && route.methode === methode) {
      const parametres = Object.fromEntries(Object.entries(correspondance.groups ?? {}).map(([k, v]) => [k, decoderParametre(v)]));
      return { route, parametres };
    }
  }
  return undefined;
};

/**
 * The request target as a URL. An origin-form target ("/…") is always a path here, even when it
 * begins with "//" (which `new URL(target, base)` would read as another host, or refuse); an
 * absolute-form target ("http://host/…") is taken as sent. Null when it cannot be parsed.
 */
const urlDeRequete = (cible: string): URL | null => {
  try {
    return cible.startsWith('/') ? new URL(`http://localhost${cible}`) : new URL(cible);
  } catch {
    return null;
  }
};

const estBinaire = (contentType: string | undefined): boolean => {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return TYPES_BINAIRES.some((motif) => (motif.endsWith('/*') ? type.startsWith(motif.slice(0, -1)) : type === motif));
};

const lireCorps = async (requete: IncomingMessage): Promise<Buffer> => {
  const annonce = Number(requete.headers['content-length']);
  if (Number.isFinite(annonce) && annonce > MAX_OCTETS_CORPS) throw new ErreurApi('payload_too_large', 'The request is larger than 100 MB.');
  const morceaux: Buffer[] = [];
  let total = 0;
  for await (const morceau of requete) {
    total += (morceau as Buffer).length;
    if (total > MAX_OCTETS_CORPS) throw new ErreurApi('payload_too_large', 'The request is larger than 100 MB.');
    morceaux.push(morceau as Buffer);
  }
  return Buffer.concat(morceaux);
};

const versEvenement = (
  requete: IncomingMessage,
  url: URL,
  corps: Buffer,
  route: Route | undefined,
  parametres: Record<string, string>,
  etape: string,
): APIGatewayProxyEvent => {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  for (let i = 0; i < requete.rawHeaders.length; i += 2) {
    const nom = requete.rawHeaders[i]!;
    const valeur = requete.rawHeaders[i + 1]!;
    headers[nom] = valeur;
    (multiValueHeaders[nom] ??= []).push(valeur);
  }
  const requetes: Record<string, string> = {};
  const requetesMultiples: Record<string, string[]> = {};
  for (const [nom, valeur] of url.searchParams) {
    requetes[nom] = valeur;
    (requetesMultiples[nom] ??= []).push(valeur);
  }
  const binaire = estBinaire(requete.headers['content-type']);
  const ressource = route ? `${BASE_CHEMIN}${route.chemin}` : '/{proxy+}';
  return {
    resource: ressource,
    path: url.pathname,
    httpMethod: requete.method ?? 'GET',
    headers,
    multiValueHeaders,
    queryStringParameters: url.searchParams.size ? requetes : null,
    multiValueQueryStringParameters: url.searchParams.size ? requetesMultiples : null,
    pathParameters: route ? (Object.keys(parametres).length ? parametres : null) : { proxy: url.pathname.slice(1) },
    stageVariables: null,
    body: corps.length ? corps.toString(binaire ? 'base64' : 'utf8') : null,
    isBase64Encoded: binaire && corps.length > 0,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      // As API Gateway gives its own domain: where this gateway listens, never the request's Host (clients/mcp/src/lambda.ts calls it).
      domainName: `${requete.socket.localAddress}:${requete.socket.localPort}`,
      authorizer: null,
      protocol: `HTTP/${requete.httpVersion}`,
      httpMethod: requete.method ?? 'GET',
      identity: {
        sourceIp: requete.socket.remoteAddress ?? '127.0.0.1',
        userAgent: requete.headers['user-agent'] ?? null,
      } as APIGatewayProxyEvent['requestContext']['identity'],
      path: `/${etape}${url.pathname}`,
      stage: etape,
      requestId: randomUUID(),
      requestTimeEpoch: Date.now(),
      resourceId: 'local',
      resourcePath: ressource,
    },
  };
};

/**
 * `arrivee`: when the request arrived (its headers). On AWS the 29 s start when the gateway calls the
 * integration, once the body is in: counting from the headers errs on the cautious side, by the time
 * the upload took, so a handler that watches the clock stops before the gateway would.
 */
const contexteLambda = (fonction: string, arrivee: number): Context =>
  ({
    awsRequestId: randomUUID(),
    functionName: fonction,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${fonction}`,
    memoryLimitInMB: '512',
    logGroupName: `/aws/lambda/${fonction}`,
    logStreamName: 'local',
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => Math.max(0, arrivee + DELAI_INTEGRATION_MS - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  }) as Context;

const ecrire = (reponse: ServerResponse, resultat: APIGatewayProxyResult) => {
  const entetes: Record<string, string | string[]> = {};
  for (const [nom, valeur] of Object.entries(resultat.headers ?? {})) entetes[nom] = String(valeur);
  for (const [nom, valeurs] of Object.entries(resultat.multiValueHeaders ?? {})) entetes[nom] = valeurs.map(String);
  const corps = Buffer.from(resultat.body ?? '', resultat.isBase64Encoded ? 'base64' : 'utf8');
  reponse.writeHead(resultat.statusCode, { ...entetes, 'Content-Length': String(corps.length) });
  reponse.end(corps);
};

const erreurHttp = (erreur: ErreurApi): APIGatewayProxyResult => ({
  statusCode: erreur.statut,
  headers: { 'Content-Type': 'application/json; charset=utf-8', ...erreur.entetes },
  body: JSON.stringify(erreur.corps()),
});

/**
 * Requests Node's HTTP parser refuses before any handler runs (headers over its limit, a malformed
 * request line or Content-Length) get an `Erreur` body too, instead of Node's bare status line. Too
 * large headers are a 413 `payload_too_large`, as API Gateway's REQUEST_TOO_LARGE response says.
 */
const erreurClient = (erreur: NodeJS.ErrnoException, socket: Duplex): void => {
  if (erreur.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  if (erreur.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    // Not bad input: a client too slow to send its request gets Node's usual answer.
    socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
    return;
  }
  const api =
    erreur.code === 'HPE_HEADER_OVERFLOW'
      ? new ErreurApi('payload_too_large', `The request line and headers are larger than ${Math.floor(maxHeaderSize / 1024)} KB.`)
      : new ErreurApi('invalid_parameter', 'The HTTP request is malformed.');
  const corps = JSON.stringify(api.corps());
  socket.end(
    `HTTP/1.1 ${api.statut} ${STATUS_CODES[api.statut]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(corps)}\r\n` +
      'Connection: close\r\n\r\n' +
      corps,
  );
};

export const demarrerPasserelle = async (options: OptionsPasserelle): Promise<{ port: number; serveur: Server; arreter(): Promise<void> }> => {
  const etape = options.etape ?? 'local';
  const serveur = createServer(async (requete, reponse) => {
    const arrivee = Date.now();
    try {
      if (options.autres && (await options.autres(requete, reponse))) return;
      const url = urlDeRequete(requete.url ?? '/');
      if (!url) {
        ecrire(reponse, erreurHttp(new ErreurApi('not_found', 'No route for this request target.')));
        requete.resume();
        return;
      }
      const methode = requete.method ?? 'GET';
      const trouvee = trouverRoute(methode, url.pathname);
      const fonction = trouvee?.route.fonction ?? 'introuvable';
      const handler = options.handlers[fonction];
      if (!handler) throw new Error(`no local handler for ${fonction}`);
      let corps: Buffer;
      try {
        corps = await lireCorps(requete);
      } catch (erreur) {
        if (erreur instanceof ErreurApi) {
          ecrire(reponse, erreurHttp(erreur));
          requete.resume();
          return;
        }
        throw erreur;
      }
      const evenement = versEvenement(requete, url, corps, trouvee?.route, trouvee?.parametres ?? {}, etape);
      ecrire(reponse, await handler(evenement, contexteLambda(fonction, arrivee)));
    } catch (erreur) {
      journal.error('local gateway: handler failed', { erreur });
      if (!reponse.headersSent) ecrire(reponse, erreurHttp(new ErreurApi('internal_error', 'Internal error; please retry later.')));
    }
  });
  serveur.requestTimeout = 300_000;
  serveur.on('clientError', erreurClient);
  // A busy port must come back as an error (npm start turns it into one line), not an uncaught event.
  await new Promise<void>((resoudre, rejeter) => {
    serveur.once('error', rejeter);
    serveur.listen(options.port, '127.0.0.1', () => {
      serveur.off('error', rejeter);
      resoudre();
    });
  });
  const adresse = serveur.address();
  const port = typeof adresse === 'object' && adresse ? adresse.port : options.port;
  return {
    port,
    serveur,
    arreter: () =>
      new Promise<void>((r) => {
        serveur.closeAllConnections();
        serveur.close(() => r());
      }),
  };
};
