/**
 * The webhooks an account manages (our extension) in the OpenAPI document: /webhooks, one endpoint,
 * its secret, its test event and its delivery log. What an endpoint receives is evenements.ts.
 */
import { ErreurApi } from '../../../modele/erreurs';
import { erreur, json, limite, nonAutorise } from '../commun';
import { exempleErreur, ID_WEBHOOK, livraisonExemple, SECRET_EXEMPLE, webhookExemple } from '../exemples';

const idWebhook = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'Id of the webhook (wh_…).',
  schema: { type: 'string', pattern: '^wh_[0-9a-f]{24}$' },
};
const webhookIntrouvable = erreur("Not found (or another account's).", { introuvable: exempleErreur(new ErreurApi('not_found', `No webhook ${ID_WEBHOOK}.`)) });

const creerWebhook = () => ({
  operationId: 'creerWebhook',
  summary: 'Add a webhook (extension)',
  description:
    'An https URL (a host name, not an address; checked again at each delivery with the same SSRF guard as image URLs) and the events it receives. The answer carries its signing secret, shown this once. At most 10 per account; with a test key, a test endpoint (`test: true`), at most 3, which receives only the events of test work and which only test keys manage. Deliveries are POSTed by the pipeline when a job or batch ends, signed the Standard Webhooks way (see `webhooks` in this document).',
  requestBody: {
    required: true,
    content: {
      'application/json': {
        schema: { $ref: '#/components/schemas/RequeteWebhook' },
        examples: { tout: { value: { url: 'https://example.com/retouche', evenements: ['travail.fini', 'lot.fini'] } } },
      },
    },
  },
  responses: {
    201: json('Webhook', 'Added: its secret is in this answer and nowhere else.', { webhook: { value: { ...webhookExemple, secret: SECRET_EXEMPLE } } }),
    400: erreur('A bad url or event: error.details says which.', {
      url: exempleErreur(new ErreurApi('invalid_body', 'url must use https.', { details: [{ chemin: 'url', message: 'url must use https.' }] })),
    }),
    401: nonAutorise,
    409: erreur('The account has 10 webhooks already, or 3 test webhooks for a test key (too_many_webhooks).'),
    415: erreur('Content-Type is not application/json.'),
    429: limite,
  },
});

export const cheminWebhooks = () => ({
  get: {
    operationId: 'listerWebhooks',
    summary: "The account's webhooks (extension)",
    description: 'Never a secret. A test key lists the test endpoints only; a live key or a web session, the live ones only.',
    responses: {
      200: json('ListeWebhooks', 'Webhooks, oldest first.', { webhooks: { value: { webhooks: [webhookExemple] } } }),
      401: nonAutorise,
      429: limite,
    },
  },
  post: creerWebhook(),
});

export const cheminWebhook = () => ({
  delete: {
    operationId: 'supprimerWebhook',
    summary: 'Remove a webhook (extension)',
    description: 'Its deliveries go with it, made or not, and their log.',
    parameters: [idWebhook],
    responses: { 204: { description: 'Removed.' }, 401: nonAutorise, 404: webhookIntrouvable, 429: limite },
  },
});

export const cheminSecretWebhook = () => ({
  post: {
    operationId: 'tournerSecretWebhook',
    summary: "Rotate a webhook's secret (extension)",
    description:
      'A new secret, shown this once. For 24 hours deliveries are signed with both the new and the previous secret (two signatures in webhook-signature), so a receiver can switch without losing one.',
    parameters: [idWebhook],
    responses: {
      200: json('Webhook', 'The webhook with its new secret.', { webhook: { value: { ...webhookExemple, secret: SECRET_EXEMPLE } } }),
      401: nonAutorise,
      404: webhookIntrouvable,
      429: limite,
    },
  },
});

export const cheminTestWebhook = () => ({
  post: {
    operationId: 'testerWebhook',
    summary: 'Send a test event (extension)',
    description:
      'A webhook.test event to this webhook, whatever it subscribes to: signed, retried and logged like any delivery. At most 5 a minute per webhook (then 429 with Retry-After).',
    parameters: [idWebhook],
    responses: {
      202: json('Livraison', 'The delivery, due now.', { test: { value: livraisonExemple } }),
      401: nonAutorise,
      404: webhookIntrouvable,
      429: limite,
    },
  },
});

export const cheminLivraisons = () => ({
  get: {
    operationId: 'listerLivraisons',
    summary: "A webhook's delivery log (extension)",
    description: 'Its 50 newest deliveries, newest first (kept 30 days): event, status, attempts, the last attempt and the next one.',
    parameters: [idWebhook],
    responses: {
      200: json('ListeLivraisons', 'Deliveries.', { livraisons: { value: { livraisons: [livraisonExemple] } } }),
      401: nonAutorise,
      404: webhookIntrouvable,
      429: limite,
    },
  },
});

export const cheminRenvoiLivraison = () => ({
  post: {
    operationId: 'renvoyerLivraison',
    summary: 'Resend a failed delivery (extension)',
    description: 'A delivery en_echec is due again now, with the same webhook-id; its attempts start over.',
    parameters: [
      idWebhook,
      {
        name: 'livraison',
        in: 'path',
        required: true,
        description: 'Id of the delivery (msg_…).',
        schema: { type: 'string', pattern: '^msg_[a-z2-7]{26}$' },
      },
    ],
    responses: {
      202: json('Livraison', 'Due again.', { renvoi: { value: { ...livraisonExemple, statut: 'en_attente', tentatives: 0 } } }),
      401: nonAutorise,
      404: erreur('No such webhook or delivery.'),
      409: erreur('The delivery has not failed: answered 2xx, or still being attempted (delivery_not_failed).'),
      429: limite,
    },
  },
});
