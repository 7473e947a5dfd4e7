/**
 * The OpenAPI 3.1 document of `GET /openapi.json`. Request bodies come from the very schemas that
 * validate `POST /travaux` and `POST /televersements` (schemas.ts); answers are described here with
 * valibot too, and the integration tests check real answers against them, so the document stays true.
 *
 * It is written for client generators run with their default options (test/integration/contrat.test.ts
 * generates with openapi-typescript and @hey-api/openapi-ts and compiles requests against the result):
 * what a request may leave out is optional, what an answer always carries is `required`, every
 * operation has an `operationId`, and every example validates against its schema.
 */
import { toJsonSchema, toJsonSchemaDefs } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { RequeteTeleversements, RequeteTravaux } from '../schemas';
import { RequeteWebhook } from '../webhooks';
import { CATALOGUE, OUTILS } from '../../modele/outils';
import { ErreurApi } from '../../modele/erreurs';
import { REPONSES, type Json } from './schemas';
import {
  annonceTerminee,
  effacementTravail,
  exemple422,
  exempleErreur,
  EXEMPLES_ERREUR,
  EXEMPLES_REQUETE_TRAVAUX,
  ID_LOT,
  ID_TELEVERSEMENT,
  ID_TRAVAIL,
  lancementLot,
  lancementSimple,
  lotTermine,
  travailEchec,
  travailEnCours,
  travailTermine,
} from './exemples';

const ID_WEBHOOK = 'wh_3f9a1c0d5e7b2a4c6d8e0f12';
const SECRET_EXEMPLE = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const webhookExemple = {
  id: ID_WEBHOOK,
  url: 'https://example.com/retouche',
  evenements: ['travail.fini', 'lot.fini'],
  etat: 'actif',
  cree_le: '2026-01-01T09:00:00.000Z',
  test: false,
};
const livraisonExemple = {
  id: 'msg_fvyrmqvxe2yeialcpsu7xlbs6x',
  webhook: ID_WEBHOOK,
  type: 'travail.fini',
  travail: ID_TRAVAIL,
  lot: null,
  statut: 'reussie',
  tentatives: 1,
  prochaine_tentative: null,
  derniere_tentative: { le: '2026-01-01T10:00:05.000Z', statut_http: 200, erreur: null },
  cree_le: '2026-01-01T10:00:05.000Z',
};

const composants = (): Json => {
  const schemas = toJsonSchemaDefs(REPONSES, {
    target: 'draft-2020-12',
    errorMode: 'ignore',
    overrideRef: ({ referenceId }) => `#/components/schemas/${referenceId}`,
  });
  return schemas as Json;
};

/**
 * A request schema for generators. `default` says what the service applies to a member left out, but
 * openapi-typescript (option defaultNonNullable, on by default) reads a member with a `default` in a
 * component schema as always present and makes it required: `{"outil":"ciel","images":[…]}` would not
 * compile for want of `valeurs`. So defaults are moved into the description, where a reader still
 * finds them (and `GET /outils` gives them as `defaut`); the member stays optional, as it is.
 */
const requete = (s: v.GenericSchema): Json => {
  const { $schema: _ignore, ...reste } = toJsonSchema(s, { target: 'draft-2020-12', errorMode: 'ignore' }) as Json;
  const sansDefauts = (noeud: unknown): void => {
    if (Array.isArray(noeud)) return noeud.forEach(sansDefauts);
    if (!noeud || typeof noeud !== 'object') return;
    const objet = noeud as Json;
    if ('default' in objet) {
      const defaut = objet.default;
      delete objet.default;
      if (typeof defaut === 'string') {
        const description = typeof objet.description === 'string' ? `${objet.description} ` : '';
        objet.description = `${description}Default: ${JSON.stringify(defaut)}.`;
      }
    }
    Object.values(objet).forEach(sansDefauts);
  };
  sansDefauts(reste);
  return reste;
};

// ——— Responses ———

const corpsJson = (ref: string, exemples?: Record<string, unknown>) => ({
  'application/json': { schema: { $ref: `#/components/schemas/${ref}` }, ...(exemples ? { examples: exemples } : {}) },
});
const erreur = (description: string, exemples?: Record<string, unknown>) => ({ description, content: corpsJson('Erreur', exemples) });
const json = (ref: string, description: string, exemples?: Record<string, unknown>) => ({ description, content: corpsJson(ref, exemples) });
const retryAfter = { 'Retry-After': { schema: { type: 'integer' }, description: 'Seconds to wait.' } };
const limite = {
  description: 'Rate limited (120 requests per minute per key) or too many pending jobs (50 per account).',
  headers: retryAfter,
  content: corpsJson('Erreur', EXEMPLES_ERREUR[429]),
};
const nonAutorise = {
  description: 'Missing or invalid API key.',
  headers: { 'WWW-Authenticate': { schema: { type: 'string' }, description: 'Bearer, as RFC 6750 asks.' } },
  content: corpsJson('Erreur', EXEMPLES_ERREUR[401]),
};
const idChemin = (quoi: string) => ({ name: 'id', in: 'path', required: true, description: `Id of the ${quoi}.`, schema: { type: 'string', format: 'uuid' } });
const idWebhook = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'Id of the webhook (wh_…).',
  schema: { type: 'string', pattern: '^wh_[0-9a-f]{24}$' },
};
const webhookIntrouvable = erreur("Not found (or another account's).", { introuvable: exempleErreur(new ErreurApi('not_found', `No webhook ${ID_WEBHOOK}.`)) });

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

/** The multipart body of POST /travaux: each setting of any tool may be a part (a string). */
const reglagesMultipart = (): Json => {
  const parNom = new Map<string, { outils: string[]; valeurs: Set<string> | null }>();
  for (const id of OUTILS) {
    for (const champ of CATALOGUE[id].champs) {
      const deja = parNom.get(champ.nom) ?? { outils: [], valeurs: new Set<string>() };
      deja.outils.push(id);
      deja.valeurs = deja.valeurs && champ.valeurs ? new Set([...deja.valeurs, ...champ.valeurs]) : null;
      parNom.set(champ.nom, deja);
    }
  }
  return Object.fromEntries(
    [...parNom].map(([nom, { outils, valeurs }]) => [
      nom,
      { type: 'string', ...(valeurs ? { enum: [...valeurs] } : {}), description: `Setting of ${outils.join(', ')} (see the JSON body).` },
    ]),
  );
};

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
    securitySchemes: { cle: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API key>' } },
    schemas: {
      ...composants(),
      RequeteTravaux: requete(RequeteTravaux),
      RequeteTeleversements: requete(RequeteTeleversements),
      RequeteWebhook: requete(RequeteWebhook),
    },
  },
  webhooks: {
    'travail.fini': livraisonRecue('recevoirTravailFini', 'Job ended', { type: 'travail.fini', timestamp: travailTermine.termine_le, data: travailTermine }),
    'lot.fini': livraisonRecue('recevoirLotFini', 'Batch ended', { type: 'lot.fini', timestamp: travailTermine.termine_le, data: lotTermine }),
    'webhook.test': livraisonRecue('recevoirTest', 'Test event (POST /webhooks/{id}/test)', {
      type: 'webhook.test',
      timestamp: '2026-01-01T09:00:05.000Z',
      data: { webhook: ID_WEBHOOK, test: false, message: 'A test event from Retouche: this endpoint receives and verifies deliveries.' },
    }),
  },
  paths: {
    '/outils': {
      get: {
        operationId: 'listerOutils',
        security: [],
        summary: 'The tools',
        responses: {
          200: json('Outils', 'The tool catalogue, and whether this stage runs the preview engine.', {
            catalogue: { value: { outils: OUTILS.map((id) => CATALOGUE[id]), apercu: false } },
          }),
          429: limite,
        },
      },
    },
    '/solde': {
      get: {
        operationId: 'lireSolde',
        summary: 'Credit balance',
        responses: { 200: json('Solde', 'Balance', { solde: { value: { credits: 100 } } }), 401: nonAutorise, 429: limite },
      },
    },
    '/travaux': {
      get: {
        operationId: 'listerTravaux',
        summary: 'Recent jobs, newest first',
        parameters: [
          { name: 'limite', in: 'query', description: 'How many jobs, at most.', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
          { name: 'outil', in: 'query', description: 'Only the jobs of this tool.', schema: { $ref: '#/components/schemas/IdOutil' } },
          {
            name: 'apres',
            in: 'query',
            description:
              "Extension: the `suivant` of the page before, as it was given: the next page, in the same order and filter (outil may be repeated, not changed). A cursor altered or another account's is a 400 invalid_parameter.",
            schema: { type: 'string', minLength: 1, maxLength: 512 },
          },
        ],
        responses: {
          200: json('ListeTravaux', 'Jobs', { travaux: { value: { travaux: [annonceTerminee, travailTermine, travailEchec], suivant: null } } }),
          400: erreur('Invalid query parameter.', {
            limite: exempleErreur(new ErreurApi('invalid_parameter', 'limite must be a whole number from 1 to 100.', { parametre: 'limite' })),
          }),
          401: nonAutorise,
          429: limite,
        },
      },
      post: {
        operationId: 'creerTravaux',
        summary: 'Start a job or a batch',
        description:
          'Images come inline (base64, or multipart files), by https url, or as uploads made with POST /televersements. On the deployed API a request body is at most 10 MB (API Gateway) and a Lambda receives at most 6 MB, about 4.4 MB of image once base64-encoded: send small photos inline, anything larger through /televersements (up to 15 MB each). Beyond 10 MB API Gateway answers 413 itself.',
        parameters: [
          {
            name: 'Idempotency-Key',
            in: 'header',
            schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7E]+$' },
            description:
              'Extension: a retried request with the same key returns the first answer and is not charged again (24 h). 1 to 255 visible ASCII characters, e.g. a UUID.',
          },
          {
            name: 'Retouche-Source',
            in: 'header',
            schema: { type: 'string', enum: ['api', 'mcp'], default: 'api' },
            description:
              "Extension: where the jobs come from, as their `source` says. `mcp` for a client acting for an AI assistant (Retouche's own MCP servers send it). With an API key only: a web site session's jobs are `web`, and `web` cannot be claimed (400 invalid_parameter).",
          },
          {
            name: 'Accept-Language',
            in: 'header',
            schema: { type: 'string', maxLength: 512 },
            description:
              'Extension: the language of the mark a preview engine draws on its results ("Aperçu", "Preview"…; jobs with apercu: true), the first of French, English, Dutch, German, Spanish and Italian the header prefers; English otherwise.',
          },
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: { $ref: '#/components/schemas/RequeteTravaux' }, examples: EXEMPLES_REQUETE_TRAVAUX },
            'multipart/form-data': {
              schema: {
                type: 'object',
                description:
                  'Files may come under any part name (fichiers is the usual one), each starting a job; the other parts are the tool, image URLs, uploads and settings.',
                required: ['outil'],
                properties: {
                  outil: { $ref: '#/components/schemas/IdOutil' },
                  fichiers: { type: 'array', items: { type: 'string', format: 'binary' } },
                  image_url: { type: 'array', items: { type: 'string', format: 'uri' } },
                  televersement: { type: 'array', items: { type: 'string', format: 'uuid' }, description: 'Ids of uploads (POST /televersements).' },
                  ...reglagesMultipart(),
                },
              },
            },
          },
        },
        responses: {
          202: json('Lancement', 'Started.', {
            travail: { summary: 'One image: one job, no batch', value: lancementSimple },
            lot: { summary: 'Several images: a batch; an image that could not be read is in echecs and costs nothing', value: lancementLot },
          }),
          400: erreur('Malformed body.'),
          401: nonAutorise,
          402: erreur('Not enough credits (insufficient_credits).', EXEMPLES_ERREUR[402]),
          409: erreur('A replay of an Idempotency-Key whose work was erased since (work_erased): nothing is started or charged.', EXEMPLES_ERREUR[409]),
          413: erreur(
            'Too large: 100 MB per request, 15 MB or 50 megapixels per image, 50 images per batch. On the deployed API, API Gateway itself refuses bodies over 10 MB (its own body), and bodies over about 6 MB cannot reach the function: use POST /televersements for large photos.',
          ),
          415: erreur('Unsupported content type.'),
          422: erreur('Invalid tool, settings or image: error.details lists every problem.', { reglage: exemple422() }),
          429: limite,
          503: {
            ...erreur(
              'service_unavailable: the request could not be finished in time (Retry-After). Nothing was charged, unless the message says the request may have been recorded: then retry with the same Idempotency-Key to get its first answer.',
            ),
            headers: retryAfter,
          },
        },
      },
    },
    '/televersements': {
      post: {
        operationId: 'creerTeleversements',
        summary: 'Upload full-size photos directly to storage (extension)',
        description:
          'Announce 1 to 50 files (type and exact size); each answer entry is a URL valid 15 minutes that accepts one PUT of exactly that file, with the given Content-Type. Then name the upload in POST /travaux as {"televersement": "<id>"} (or a multipart part televersement=<id>) within 30 minutes of the announcement (utilisable_jusqua); an upload starts one job, and an unused one is then deleted. Free, but the balance must pay for a job, and an account has at most 100 uploads announced and not yet used; counted by the rate limit.',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/RequeteTeleversements' },
              examples: { photo: { value: { fichiers: [{ nom: 'salon.jpg', type: 'image/jpeg', taille: 13_107_200 }] } } },
            },
          },
        },
        responses: {
          201: json('Televersements', 'One signed PUT URL per announced file, in order.', {
            televersement: {
              value: {
                televersements: [
                  {
                    id: ID_TELEVERSEMENT,
                    url: `https://retouche-entrees.s3.eu-west-1.amazonaws.com/televersements/${ID_TELEVERSEMENT}?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=0123abcd`,
                    methode: 'PUT',
                    entetes: { 'Content-Type': 'image/jpeg' },
                    expire_le: '2026-01-01T10:15:00.000Z',
                    utilisable_jusqua: '2026-01-01T10:30:00.000Z',
                  },
                ],
              },
            },
          }),
          400: erreur('Malformed body.'),
          401: nonAutorise,
          402: erreur('The balance pays for no job (insufficient_credits): uploads are for jobs.', {
            credits: exempleErreur(
              new ErreurApi(
                'insufficient_credits',
                'Uploads are for jobs, and the balance is 0 credits: the cheapest job costs 2. Buy credits before uploading.',
                { credits: 0, requis: 2 },
              ),
            ),
          }),
          413: erreur('A file is over 15 MB (image_too_large).'),
          415: erreur('Content-Type is not application/json.'),
          422: erreur('A bad entry (type, size) or not 1 to 50 files: error.details lists every problem.'),
          429: {
            description: 'Rate limited (120 requests per minute per key), or 100 uploads of the account already wait to be used (too_many_pending_uploads).',
            headers: retryAfter,
            content: corpsJson('Erreur', {
              ...EXEMPLES_ERREUR[429],
              televersements: exempleErreur(
                new ErreurApi(
                  'too_many_pending_uploads',
                  'At most 100 uploads may wait to be used per account; 95 are waiting and this request announces 10. Start jobs with them, or let unused ones expire (30 minutes after they were announced).',
                  { televersements_ouverts: 95, max: 100, retry_after: 60 },
                ),
              ),
            }),
          },
        },
      },
    },
    '/travaux/{id}': {
      get: {
        operationId: 'lireTravail',
        summary: 'One job',
        parameters: [idChemin('job')],
        responses: {
          200: json('Travail', 'The job.', {
            en_cours: { value: travailEnCours },
            termine: { summary: 'Done: signed links valid 24 h', value: travailTermine },
            echec: { summary: 'Failed, and refunded', value: travailEchec },
            annonce: { summary: 'A listing text', value: annonceTerminee },
          }),
          401: nonAutorise,
          404: erreur('Not found.', EXEMPLES_ERREUR[404]),
          429: limite,
        },
      },
      delete: {
        operationId: 'effacerTravail',
        summary: 'Erase an ended job (extension)',
        description:
          "Erases the job's inputs, uploads, results and record, and the stored answer of its request (Idempotency-Key); a job of a batch leaves it and the batch's ZIP is written again without it. Credits do not change. A job not yet ended answers 409 and is erased as soon as it ends.",
        parameters: [idChemin('job')],
        responses: {
          200: json('Effacement', 'What was erased.', { efface: { value: effacementTravail } }),
          401: nonAutorise,
          404: erreur('Not found (or already erased).', EXEMPLES_ERREUR[404]),
          409: erreur('Not ended yet: erased as soon as it ends.', {
            programme: exempleErreur(
              new ErreurApi(
                'still_running',
                `The job ${ID_TRAVAIL} cannot be erased yet (it has not ended); its erasure is recorded and done as soon as it has ended, within a few minutes of its end. Poll it until it answers 404.`,
                { effacement: 'programme' },
              ),
            ),
          }),
          429: limite,
        },
      },
    },
    '/lots/{id}': {
      get: {
        operationId: 'lireLot',
        summary: 'One batch',
        parameters: [idChemin('batch')],
        responses: {
          200: json('Lot', 'The batch.', { termine: { value: lotTermine } }),
          401: nonAutorise,
          404: erreur('Not found.', { introuvable: exempleErreur(new ErreurApi('not_found', `No batch ${ID_LOT}.`)) }),
          429: limite,
        },
      },
      delete: {
        operationId: 'effacerLot',
        summary: 'Erase an ended batch (extension)',
        description:
          'Erases every job of the batch (inputs, uploads, results, records), its ZIP and its record. Credits do not change. A batch not yet ended answers 409 and is erased as soon as it ends.',
        parameters: [idChemin('batch')],
        responses: {
          200: json('Effacement', 'What was erased.', {
            efface: { value: { ...effacementTravail, travaux: [ID_TRAVAIL], lots: [ID_LOT], zips_refaits: [], fichiers: 3 } },
          }),
          401: nonAutorise,
          404: erreur('Not found (or already erased).', { introuvable: exempleErreur(new ErreurApi('not_found', `No batch ${ID_LOT}.`)) }),
          409: erreur('Not ended yet: erased as soon as it ends.', {
            programme: exempleErreur(
              new ErreurApi(
                'still_running',
                `The batch ${ID_LOT} cannot be erased yet (some of its jobs have not ended); its erasure is recorded and done as soon as it has ended, within a few minutes of its end. Poll it until it answers 404.`,
                { effacement: 'programme' },
              ),
            ),
          }),
          429: limite,
        },
      },
    },
    '/webhooks': {
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
      post: {
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
      },
    },
    '/webhooks/{id}': {
      delete: {
        operationId: 'supprimerWebhook',
        summary: 'Remove a webhook (extension)',
        description: 'Its deliveries go with it, made or not, and their log.',
        parameters: [idWebhook],
        responses: { 204: { description: 'Removed.' }, 401: nonAutorise, 404: webhookIntrouvable, 429: limite },
      },
    },
    '/webhooks/{id}/secret': {
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
    },
    '/webhooks/{id}/test': {
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
    },
    '/webhooks/{id}/livraisons': {
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
    },
    '/webhooks/{id}/livraisons/{livraison}/renvoyer': {
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
    },
    '/openapi.json': {
      get: {
        operationId: 'lireOpenApi',
        security: [],
        summary: 'This document',
        responses: {
          200: { description: 'OpenAPI 3.1 document', content: { 'application/json': { schema: { type: 'object' } } } },
          429: limite,
        },
      },
    },
  },
});
