/**
 * The jobs in the OpenAPI document: GET and POST /travaux, GET and DELETE /travaux/{id}. POST /travaux
 * is the API's heart and its longest operation; its headers, bodies and answers are built apart so each
 * reads on its own.
 */
import { ErreurApi } from '../../../modele/erreurs';
import { CATALOGUE, OUTILS } from '../../../modele/outils';
import { erreur, idChemin, json, limite, nonAutorise, retryAfter } from '../commun';
import {
  annonceTerminee,
  effacementTravail,
  exemple422,
  exempleErreur,
  EXEMPLES_ERREUR,
  EXEMPLES_REQUETE_TRAVAUX,
  ID_TRAVAIL,
  lancementLot,
  lancementSimple,
  travailEchec,
  travailEnCours,
  travailTermine,
} from '../exemples';
import type { Json } from '../schemas';

const listerTravaux = () => ({
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

const entetesCreation = () => [
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
];

const corpsCreation = () => ({
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
});

const reponsesCreation = () => ({
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
});

const creerTravaux = () => ({
  operationId: 'creerTravaux',
  summary: 'Start a job or a batch',
  description:
    'Images come inline (base64, or multipart files), by https url, or as uploads made with POST /televersements. On the deployed API a request body is at most 10 MB (API Gateway) and a Lambda receives at most 6 MB, about 4.4 MB of image once base64-encoded: send small photos inline, anything larger through /televersements (up to 15 MB each). Beyond 10 MB API Gateway answers 413 itself.',
  parameters: entetesCreation(),
  requestBody: corpsCreation(),
  responses: reponsesCreation(),
});

export const cheminTravaux = () => ({ get: listerTravaux(), post: creerTravaux() });

export const cheminTravail = () => ({
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
});
