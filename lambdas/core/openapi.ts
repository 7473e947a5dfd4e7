/**
 * The OpenAPI 3.1 document of `GET /openapi.json`. Request bodies come from the very schemas that
 * validate `POST /travaux` (schemas.ts); answers are described here with valibot too, and the
 * integration tests check real answers against them, so the document stays true.
 */
import { toJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import { RequeteTeleversements, RequeteTravaux } from './schemas';
import { OUTILS } from './outils';
import { CODES_API } from './erreurs';

const dateHeure = v.pipe(v.string(), v.isoTimestamp());
const outil = v.picklist(OUTILS);
const lien = v.strictObject({ url: v.pipe(v.string(), v.url()), expire_le: dateHeure });

export const SchemaErreur = v.object({
  error: v.looseObject({ code: v.picklist(Object.keys(CODES_API) as (keyof typeof CODES_API)[]), message: v.string() }),
});

export const SchemaTravail = v.strictObject({
  id: v.pipe(v.string(), v.uuid()),
  outil,
  statut: v.picklist(['en_attente', 'en_cours', 'termine', 'echec']),
  cout: v.pipe(v.number(), v.integer()),
  valeurs: v.record(v.string(), v.string()),
  lot: v.nullable(v.pipe(v.string(), v.uuid())),
  nom: v.nullable(v.string()),
  source: v.picklist(['web', 'api', 'mcp']),
  cree_le: dateHeure,
  commence_le: v.nullable(dateHeure),
  termine_le: v.nullable(dateHeure),
  resultats: v.array(lien),
  texte: v.nullable(v.string()),
  erreur: v.nullable(v.strictObject({ code: v.string(), message: v.string() })),
  rembourse: v.boolean(),
  redaction: v.pipe(
    v.nullable(v.strictObject({ automatique: v.literal(true), intelligence_artificielle: v.boolean(), modele: v.string() })),
    v.description(
      'Extension: for a listing text (annonce), that it was machine-written, whether by a generative AI model, and which; null for images and before the text exists.',
    ),
  ),
});

export const SchemaLot = v.strictObject({
  id: v.pipe(v.string(), v.uuid()),
  outil,
  statut: v.picklist(['en_cours', 'termine', 'partiel', 'echec']),
  total: v.pipe(v.number(), v.integer()),
  termines: v.pipe(v.number(), v.integer()),
  echecs: v.pipe(v.number(), v.integer()),
  en_cours: v.pipe(v.number(), v.integer()),
  zip: v.nullable(lien),
  travaux: v.array(SchemaTravail),
});

export const SchemaTeleversements = v.strictObject({
  televersements: v.array(
    v.strictObject({
      id: v.pipe(v.string(), v.uuid(), v.description('Give it as {"televersement": "<id>"} in the images of POST /travaux.')),
      url: v.pipe(v.string(), v.url(), v.description('Where to PUT the file: signed for this key, Content-Type and size only.')),
      methode: v.literal('PUT'),
      entetes: v.pipe(v.strictObject({ 'Content-Type': v.string() }), v.description('Headers the PUT must carry, exactly.')),
      expire_le: v.pipe(dateHeure, v.description('The URL works until then (15 minutes).')),
    }),
  ),
});

export const SchemaLancement = v.strictObject({
  lot: v.nullable(v.pipe(v.string(), v.uuid())),
  outil,
  cout_total: v.pipe(v.number(), v.integer()),
  travaux: v.array(SchemaTravail),
  echecs: v.array(v.strictObject({ index: v.pipe(v.number(), v.integer()), code: v.string(), message: v.string() })),
});

const SchemaChamp = v.looseObject({
  nom: v.string(),
  type: v.literal('string'),
  requis: v.boolean(),
  description: v.string(),
  valeurs: v.optional(v.array(v.string())),
  defaut: v.optional(v.string()),
  longueur_max: v.optional(v.number()),
});

export const SchemaOutils = v.strictObject({
  outils: v.array(
    v.strictObject({
      id: outil,
      nom: v.string(),
      resume: v.string(),
      cout: v.pipe(v.number(), v.integer()),
      images: v.strictObject({ min: v.number(), max: v.number(), par_lot: v.boolean() }),
      champs: v.array(SchemaChamp),
    }),
  ),
});

const schema = (s: v.GenericSchema) => {
  const { $schema: _ignore, ...reste } = toJsonSchema(s, { target: 'draft-2020-12', errorMode: 'ignore' }) as Record<string, unknown>;
  return reste;
};

const erreur = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Erreur' } } },
});
const limite = {
  description: 'Rate limited (120 requests per minute per key) or too many pending jobs (50 per account).',
  headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'Seconds to wait.' } },
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Erreur' } } },
};
const json = (ref: string, description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: `#/components/schemas/${ref}` } } },
});
const idChemin = { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };

export const documentOpenApi = () => ({
  openapi: '3.1.0',
  info: {
    title: 'Retouche',
    version: '1.0.0',
    description: 'Property photo retouching and listing text, as asynchronous jobs paid in credits.',
  },
  servers: [{ url: '/api/v1' }],
  security: [{ cle: [] }],
  components: {
    securitySchemes: { cle: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API key>' } },
    schemas: {
      Erreur: schema(SchemaErreur),
      Travail: schema(SchemaTravail),
      Lot: schema(SchemaLot),
      Lancement: schema(SchemaLancement),
      Outils: schema(SchemaOutils),
      RequeteTravaux: schema(RequeteTravaux),
      RequeteTeleversements: schema(RequeteTeleversements),
      Televersements: schema(SchemaTeleversements),
    },
  },
  paths: {
    '/outils': {
      get: { security: [], summary: 'The tools', responses: { 200: json('Outils', 'The tool catalogue.'), 429: limite } },
    },
    '/solde': {
      get: {
        summary: 'Credit balance',
        responses: {
          200: {
            description: 'Balance',
            content: { 'application/json': { schema: { type: 'object', required: ['credits'], properties: { credits: { type: 'integer' } } } } },
          },
          401: erreur('Missing or invalid API key.'),
          429: limite,
        },
      },
    },
    '/travaux': {
      get: {
        summary: 'Recent jobs, newest first',
        parameters: [
          { name: 'limite', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
          { name: 'outil', in: 'query', schema: { type: 'string', enum: [...OUTILS] } },
        ],
        responses: {
          200: {
            description: 'Jobs',
            content: { 'application/json': { schema: { type: 'object', properties: { travaux: { type: 'array', items: { $ref: '#/components/schemas/Travail' } } } } } },
          },
          400: erreur('Invalid query parameter.'),
          401: erreur('Missing or invalid API key.'),
          429: limite,
        },
      },
      post: {
        summary: 'Start a job or a batch',
        description:
          'Images come inline (base64, or multipart files), by https url, or as uploads made with POST /televersements. On the deployed API a request body is at most 10 MB (API Gateway) and a Lambda receives at most 6 MB, about 4.4 MB of image once base64-encoded: send small photos inline, anything larger through /televersements (up to 15 MB each). Beyond 10 MB API Gateway answers 413 itself.',
        parameters: [
          {
            name: 'Idempotency-Key',
            in: 'header',
            schema: { type: 'string', maxLength: 255 },
            description: 'Extension: a retried request with the same key returns the first answer and is not charged again (24 h).',
          },
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: { $ref: '#/components/schemas/RequeteTravaux' } },
            'multipart/form-data': {
              schema: {
                type: 'object',
                required: ['outil'],
                properties: {
                  outil: { type: 'string', enum: [...OUTILS] },
                  fichiers: { type: 'array', items: { type: 'string', format: 'binary' } },
                  image_url: { type: 'array', items: { type: 'string', format: 'uri' } },
                  televersement: { type: 'array', items: { type: 'string', format: 'uuid' }, description: 'Ids of uploads (POST /televersements).' },
                },
                additionalProperties: { type: 'string' },
              },
            },
          },
        },
        responses: {
          202: json('Lancement', 'Started.'),
          400: erreur('Malformed body.'),
          401: erreur('Missing or invalid API key.'),
          402: erreur('Not enough credits (insufficient_credits).'),
          413: erreur(
            'Too large: 100 MB per request, 15 MB or 50 megapixels per image, 50 images per batch. On the deployed API, API Gateway itself refuses bodies over 10 MB (its own body), and bodies over about 6 MB cannot reach the function: use POST /televersements for large photos.',
          ),
          415: erreur('Unsupported content type.'),
          422: erreur('Invalid tool, settings or image.'),
          429: limite,
          503: erreur(
            'service_unavailable: the request could not be finished in time (Retry-After). Nothing was charged, unless the message says the request may have been recorded: then retry with the same Idempotency-Key to get its first answer.',
          ),
        },
      },
    },
    '/televersements': {
      post: {
        summary: 'Upload full-size photos directly to storage (extension)',
        description:
          'Announce 1 to 50 files (type and exact size); each answer entry is a URL valid 15 minutes that accepts one PUT of exactly that file, with the given Content-Type. Then name the upload in POST /travaux as {"televersement": "<id>"} (or a multipart part televersement=<id>) within 24 hours; an upload starts one job. Free; counted by the rate limit.',
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/RequeteTeleversements' } } } },
        responses: {
          201: json('Televersements', 'One signed PUT URL per announced file, in order.'),
          400: erreur('Malformed body.'),
          401: erreur('Missing or invalid API key.'),
          413: erreur('A file is over 15 MB (image_too_large).'),
          415: erreur('Content-Type is not application/json.'),
          422: erreur('A bad entry (type, size) or not 1 to 50 files.'),
          429: limite,
        },
      },
    },
    '/travaux/{id}': {
      get: {
        summary: 'One job',
        parameters: [idChemin],
        responses: { 200: json('Travail', 'The job.'), 401: erreur('Missing or invalid API key.'), 404: erreur('Not found.'), 429: limite },
      },
    },
    '/lots/{id}': {
      get: {
        summary: 'One batch',
        parameters: [idChemin],
        responses: { 200: json('Lot', 'The batch.'), 401: erreur('Missing or invalid API key.'), 404: erreur('Not found.'), 429: limite },
      },
    },
    '/openapi.json': {
      get: { security: [], summary: 'This document', responses: { 200: { description: 'OpenAPI 3.1 document' } } },
    },
  },
});
