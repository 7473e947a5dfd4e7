/**
 * The document's `webhooks` section: not paths of the API but the POSTs an account's endpoint receives,
 * described so that a generator types the receiving side too.
 */
import { corpsJson } from './commun';
import { ID_WEBHOOK, lotTermine, travailTermine } from './exemples';

/** The Standard Webhooks headers of every delivery (how a receiver verifies it: README, "Webhooks"). */
const ENTETES_LIVRAISON = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    schema: { type: 'string' },
    description: 'The delivery (msg_…): the same on every attempt; deduplicate on it.',
  },
  { name: 'webhook-timestamp', in: 'header', required: true, schema: { type: 'string' }, description: 'Seconds since the epoch when this attempt was signed.' },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    schema: { type: 'string' },
    description:
      'v1,<base64 HMAC-SHA256 of "id.timestamp.body" with the secret>, space-separated when several secrets sign (24 h after a rotation). Verify it with a Standard Webhooks library.',
  },
];

const livraisonRecue = (operationId: string, resume: string, exemple: unknown) => ({
  post: {
    operationId,
    summary: resume,
    parameters: ENTETES_LIVRAISON,
    requestBody: { required: true, content: corpsJson('EvenementWebhook', { evenement: { value: exemple } }) },
    responses: {
      '2XX': { description: 'Received: not sent again.' },
      default: {
        description: 'Anything else, or no answer within 15 s: tried again after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, with the same webhook-id.',
      },
    },
  },
});

export const evenementsWebhook = () => ({
  'travail.fini': livraisonRecue('recevoirTravailFini', 'Job ended', { type: 'travail.fini', timestamp: travailTermine.termine_le, data: travailTermine }),
  'lot.fini': livraisonRecue('recevoirLotFini', 'Batch ended', { type: 'lot.fini', timestamp: travailTermine.termine_le, data: lotTermine }),
  'webhook.test': livraisonRecue('recevoirTest', 'Test event (POST /webhooks/{id}/test)', {
    type: 'webhook.test',
    timestamp: '2026-01-01T09:00:05.000Z',
    data: { webhook: ID_WEBHOOK, test: false, message: 'A test event from Retouche: this endpoint receives and verifies deliveries.' },
  }),
});
