/**
 * The webhook routes (our extension, issue 27), one function: an endpoint's management and its
 * delivery log write the same few items. The routes are routes.ts's (ROUTES_WEBHOOKS), each run here
 * by the action of its name; the rules are core/domaine/webhooks/points.ts's.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { SQSClient } from '@aws-sdk/client-sqs';
import { lireNouveauWebhook } from '../core/contrat/webhooks';
import * as points from '../core/domaine/webhooks/points';
import { documentDepuisEnv } from '../core/infra/client-dynamodb';
import { dependancesAvec } from '../core/infra/dependances';
import { lireSecretLiens } from '../core/infra/secret-liens';
import { ErreurApi } from '../core/modele/erreurs';
import { entete, reponseJson } from './adaptateur';
import { routeAuthentifiee, type AppelAuthentifie, type DepsAuthentification, type FournisseurDeps } from './authentifiee';
import { BASE_CHEMIN, ROUTES_WEBHOOKS, type RouteWebhook } from './routes';

type DepsWebhooks = DepsAuthentification & points.DepsPoints;
type Appel = AppelAuthentifie<DepsWebhooks>;
type Action = (appel: Appel, id: string) => Promise<APIGatewayProxyResult>;

/** The caller's account, and its kind of work: a test key manages only test endpoints (core/domaine/webhooks/points.ts). */
const portee = (a: Appel) => ({ compte: a.appelant.compte, test: a.appelant.test === true });

const corps = (a: Appel) => Buffer.from(a.event.body ?? '', a.event.isBase64Encoded ? 'base64' : 'utf8');

/** One per route of ROUTES_WEBHOOKS, by its name. */
const ACTIONS: Record<RouteWebhook, Action> = {
  creer: async (a) => reponseJson(201, await points.creerWebhook(a.d, portee(a), lireNouveauWebhook(entete(a.event, 'content-type'), corps(a)))),
  lister: async (a) => reponseJson(200, { webhooks: await points.listerWebhooks(a.d, portee(a)) }),
  supprimer: async (a, id) => {
    await points.supprimerWebhook(a.d, portee(a), id);
    return { statusCode: 204, headers: { 'Cache-Control': 'no-store' }, body: '' };
  },
  tournerSecret: async (a, id) => reponseJson(200, await points.tournerSecret(a.d, portee(a), id)),
  tester: async (a, id) => reponseJson(202, await points.envoyerTest(a.d, portee(a), id)),
  livraisons: async (a, id) => reponseJson(200, { livraisons: await points.journalLivraisons(a.d, portee(a), id) }),
  renvoyer: async (a, id) => reponseJson(202, await points.renvoyer(a.d, portee(a), id, a.event.pathParameters?.livraison ?? '')),
};

/** By the route's method and resource path, as API Gateway and the local gateway give them. */
const PAR_RESSOURCE = new Map(
  (Object.keys(ROUTES_WEBHOOKS) as RouteWebhook[]).map((nom) => [`${ROUTES_WEBHOOKS[nom].methode} ${ROUTES_WEBHOOKS[nom].chemin}`, ACTIONS[nom]]),
);

export const creer = (deps: FournisseurDeps<DepsWebhooks>) =>
  routeAuthentifiee(deps, async (appel) => {
    const ressource = appel.event.resource.startsWith(BASE_CHEMIN) ? appel.event.resource.slice(BASE_CHEMIN.length) : appel.event.resource;
    const action = PAR_RESSOURCE.get(`${appel.event.httpMethod} ${ressource}`);
    if (!action) throw new ErreurApi('not_found', `No route ${appel.event.httpMethod} ${appel.event.path}.`);
    return action(appel, appel.event.pathParameters?.id ?? '');
  });
// DynamoDB, the link secret (the webhook secrets' key derives from it) and the delivery queue.
export const handler = creer(dependancesAvec({ ddb: documentDepuisEnv, lireSecret: lireSecretLiens, sqs: () => new SQSClient({}) }));
