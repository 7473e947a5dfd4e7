/**
 * The OpenAPI 3.1 document of `GET /openapi.json`. Request bodies come from the very schemas that
 * validate `POST /travaux` and `POST /televersements` (schemas.ts); answers are described here with
 * valibot too, and the integration tests check real answers against them, so the document stays true.
 *
 * It is written for client generators run with their default options (test/integration/contrat.test.ts
 * generates with openapi-typescript and @hey-api/openapi-ts and compiles requests against the result):
 * what a request may leave out is optional, what an answer always carries is `required`, every
 * operation has an `operationId`, and every example validates against its schema.
 *
 * Each path is built in chemins/, one module per resource; this module puts them in the order a reader
 * meets them, so the document's shape can be read here at a glance. The web site's own routes (/compte…)
 * come last, under their own security scheme: a client with an API key cannot call them, but the site's
 * types are generated from them.
 */
import { NouvelleCle } from '../compte';
import { RequeteTeleversements, RequeteTravaux } from '../schemas';
import { RequeteWebhook } from '../webhooks';
import { cheminCle, cheminCles } from './chemins/cles';
import { cheminCompte, cheminMouvements } from './chemins/compte';
import { cheminLot } from './chemins/lots';
import { cheminOpenApi, cheminOutils, cheminSolde } from './chemins/publics';
import { cheminTeleversements } from './chemins/televersements';
import { cheminTravail, cheminTravaux } from './chemins/travaux';
import { cheminLivraisons, cheminRenvoiLivraison, cheminSecretWebhook, cheminTestWebhook, cheminWebhook, cheminWebhooks } from './chemins/webhooks';
import { composants, requete } from './commun';
import { evenementsWebhook } from './evenements';
import { REPONSES } from './schemas';
import { REPONSES_COMPTE } from './schemas-compte';

/**
 * The document, as `GET /openapi.json` serves it. operationIds are French camelCase verbs on the
 * spec's nouns (`creerTravaux` for POST /travaux, `lireTravail`): the paths, schemas and members are in
 * the spec's French, so the SDK functions a generator names after them read as the API does. They are
 * part of the contract: renaming one renames a function in every generated client.
 */
export const documentOpenApi = () => ({
  openapi: '3.1.0',
  info: {
    title: 'Retouche',
    version: '1.0.0',
    description: 'Property photo retouching and listing text, as asynchronous jobs paid in credits.',
    license: { name: 'Proprietary' },
  },
  servers: [{ url: '/api/v1', description: 'The version is part of the path.' }],
  security: [{ cle: [] }],
  components: {
    securitySchemes: {
      cle: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API key>' },
      session: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description:
          "Authorization: Bearer <ID token of the web site's signed-in user> (Amazon Cognito). The web site's own routes (/compte…) take only this; the other routes take it as they take a key, and the jobs it starts say source: web.",
      },
    },
    schemas: {
      ...composants(REPONSES),
      RequeteTravaux: requete(RequeteTravaux),
      RequeteTeleversements: requete(RequeteTeleversements),
      RequeteWebhook: requete(RequeteWebhook),
      ...composants(REPONSES_COMPTE, REPONSES),
      RequeteCle: requete(NouvelleCle),
    },
  },
  webhooks: evenementsWebhook(),
  paths: {
    '/outils': cheminOutils(),
    '/solde': cheminSolde(),
    '/travaux': cheminTravaux(),
    '/televersements': cheminTeleversements(),
    '/travaux/{id}': cheminTravail(),
    '/lots/{id}': cheminLot(),
    '/webhooks': cheminWebhooks(),
    '/webhooks/{id}': cheminWebhook(),
    '/webhooks/{id}/secret': cheminSecretWebhook(),
    '/webhooks/{id}/test': cheminTestWebhook(),
    '/webhooks/{id}/livraisons': cheminLivraisons(),
    '/webhooks/{id}/livraisons/{livraison}/renvoyer': cheminRenvoiLivraison(),
    '/openapi.json': cheminOpenApi(),
    // The web site's own routes, last: a session only, for the site's account and API pages.
    '/compte': cheminCompte(),
    '/compte/cles': cheminCles(),
    '/compte/cles/{id}': cheminCle(),
    '/compte/mouvements': cheminMouvements(),
  },
});
