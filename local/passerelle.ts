/**
 * The local API Gateway: each HTTP request under `/api/v1` becomes the REST API proxy event (v1) the
 * deployed API sends, handed to the same handler module; the handler's result becomes the HTTP answer.
 * Routing comes from lambdas/http/routes.ts, like the deployed API's resources, and whatever matches
 * no route goes to the `introuvable` handler, like `ANY /{proxy+}` on AWS.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { HandlerHttp } from '../lambdas/http/adaptateur';
import { BASE_CHEMIN, ROUTES, TYPES_BINAIRES, type Route } from '../lambdas/http/routes';
import { ErreurApi } from '../lambdas/core/erreurs';
import { journal } from '../lambdas/core/journal';

/** Above the spec's 100 MB request limit plus multipart overhead; the handler answers the precise 413. */
export const MAX_OCTETS_CORPS = 110 * 1024 * 1024;

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

const trouverRoute = (methode: string, chemin: string): { route: Route; parametres: Record<string, string> } | undefined => {
  for (const { route, motif } of motifs) {
    const correspondance = motif.exec(chemin);
    if (correspondance && route.methode === methode) {
      const parametres = Object.fromEntries(Object.entries(correspondance.groups ?? {}).map(([k, v]) => [k, decodeURIComponent(v)]));
      return { route, parametres };
    }
  }
  return undefined;
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

const versEvenement = (requete: IncomingMessage, url: URL, corps: Buffer, route: Route | undefined, parametres: Record<string, string>, etape: string): APIGatewayProxyEvent => {
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
      authorizer: null,
      protocol: `HTTP/${requete.httpVersion}`,
      httpMethod: requete.method ?? 'GET',
      identity: { sourceIp: requete.socket.remoteAddress ?? '127.0.0.1', userAgent: requete.headers['user-agent'] ?? null } as APIGatewayProxyEvent['requestContext']['identity'],
      path: `/${etape}${url.pathname}`,
      stage: etape,
      requestId: randomUUID(),
      requestTimeEpoch: Date.now(),
      resourceId: 'local',
      resourcePath: ressource,
    },
  };
};

const contexteLambda = (fonction: string): Context =>
  ({
    awsRequestId: randomUUID(),
    functionName: fonction,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${fonction}`,
    memoryLimitInMB: '512',
    logGroupName: `/aws/lambda/${fonction}`,
    logStreamName: 'local',
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => 29_000,
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

export const demarrerPasserelle = async (options: OptionsPasserelle): Promise<{ port: number; serveur: Server; arreter(): Promise<void> }> => {
  const etape = options.etape ?? 'local';
  const serveur = createServer(async (requete, reponse) => {
    try {
      if (options.autres && (await options.autres(requete, reponse))) return;
      const url = new URL(requete.url ?? '/', 'http://localhost');
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
      ecrire(reponse, await handler(evenement, contexteLambda(fonction)));
    } catch (erreur) {
      journal.error('local gateway: handler failed', { erreur });
      if (!reponse.headersSent) ecrire(reponse, erreurHttp(new ErreurApi('internal_error', 'Internal error; please retry later.')));
    }
  });
  serveur.requestTimeout = 300_000;
  await new Promise<void>((r) => serveur.listen(options.port, '127.0.0.1', r));
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
