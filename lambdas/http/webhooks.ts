/**
 * The webhook routes (our extension, issue 27), one function: an endpoint's management and its
 * delivery log write the same few items. The rules are core/domaine/webhooks/points.ts's.
 *
 *   POST   /webhooks                                       add an endpoint (201, its secret this once)
 *   GET    /webhooks                                       the account's endpoints (never a secret)
 *   DELETE /webhooks/{id}                                  remove one (204)
 *   POST   /webhooks/{id}/secret                           rotate its secret (the old one signs 24 h more)
 *   POST   /webhooks/{id}/test                             send it a `webhook.test` event (202)
 *   GET    /webhooks/{id}/livraisons                       its newest deliveries
 *   POST   /webhooks/{id}/livraisons/{livraison}/renvoyer  resend a failed delivery (202)
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
import { routeAuthentifiee, type AppelAuthentifie, type FournisseurDeps } from './authentifiee';
import { BASE_CHEMIN } from './routes';

type Action = (appel: AppelAuthentifie, id: string) => Promise<APIGatewayProxyResult>;

/** The caller's account, and its kind of work: a test key manages only test endpoints (core/domaine/webhooks/points.ts). */
const portee = (a: AppelAuthentifie) => ({ compte: a.appelant.compte, test: a.appelant.test === true });

const corps = (a: AppelAuthentifie) => Buffer.from(a.event.body ?? '', a.event.isBase64Encoded ? 'base64' : 'utf8');

/** By the route's resource path (routes.ts), as API Gateway and the local gateway give it. */
const ACTIONS: Record<string, Action> = {
  'POST /webhooks': async (a) => reponseJson(201, await points.creerWebhook(a.d, portee(a), lireNouveauWebhook(entete(a.event, 'content-type'), corps(a)))),
  'GET /webhooks': async (a) => reponseJson(200, { webhooks: await points.listerWebhooks(a.d, portee(a)) }),
  'DELETE /webhooks/{id}': async (a, id) => {
    await points.supprimerWebhook(a.d, portee(a), id);
    return { statusCode: 204, headers: { 'Cache-Control': 'no-store' }, body: '' };
  },
  'POST /webhooks/{id}/secret': async (a, id) => reponseJson(200, await points.tournerSecret(a.d, portee(a), id)),
  'POST /webhooks/{id}/test': async (a, id) => reponseJson(202, await points.envoyerTest(a.d, portee(a), id)),
  'GET /webhooks/{id}/livraisons': async (a, id) => reponseJson(200, { livraisons: await points.journalLivraisons(a.d, portee(a), id) }),
  'POST /webhooks/{id}/livraisons/{livraison}/renvoyer': async (a, id) =>
    reponseJson(202, await points.renvoyer(a.d, portee(a), id, a.event.pathParameters?.livraison ?? '')),
};

export const creer = (deps: FournisseurDeps) =>
  routeAuthentifiee(deps, async (appel) => {
    const ressource = appel.event.resource.startsWith(BASE_CHEMIN) ? appel.event.resource.slice(BASE_CHEMIN.length) : appel.event.resource;
    const action = ACTIONS[`${appel.event.httpMethod} ${ressource}`];
    if (!action) throw new ErreurApi('not_found', `No route ${appel.event.httpMethod} ${appel.event.path}.`);
    return action(appel, appel.event.pathParameters?.id ?? '');
  });
// DynamoDB, the link secret (the webhook secrets' key derives from it) and the delivery queue.
export const handler = creer(dependancesAvec({ ddb: documentDepuisEnv, lireSecret: lireSecretLiens, sqs: () => new SQSClient({}) }));
