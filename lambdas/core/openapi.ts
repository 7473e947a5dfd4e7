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
import * as v from 'valibot';
import { validerRequete } from './messages';
import { RequeteTeleversements, RequeteTravaux } from './schemas';
import { CATALOGUE, OUTILS } from './outils';
import { CODES_API, ErreurApi } from './erreurs';
import type { Lancement, Lien, Lot, Travail } from './modele';

const dateHeure = v.pipe(v.string(), v.isoTimestamp());
const entier = v.pipe(v.number(), v.integer());
const outil = v.picklist(OUTILS);
const lien = v.strictObject({ url: v.pipe(v.string(), v.url()), expire_le: dateHeure });

/** One problem of a refused request: where (`chemin`) and what (`message`). */
export const SchemaDetailErreur = v.strictObject({
  chemin: v.pipe(
    v.string(),
    v.description('Where the problem is, as the client wrote it: valeurs.style, images[2].url, or in a form the field name; empty for the body as a whole.'),
  ),
  message: v.string(),
});

export const SchemaEchecImage = v.strictObject({
  index: v.pipe(entier, v.description('Position of the image in the request (0-based).')),
  code: v.string(),
  message: v.string(),
});

const extra = <S extends v.GenericSchema>(schema: S, description: string) => v.optional(v.pipe(schema, v.description(description)));

/**
 * `error` keeps the spec's open shape (other members are allowed), and names the extra members the
 * service sends so that generated clients can read them: each is optional, present with the errors its
 * description names.
 */
export const SchemaErreur = v.object({
  error: v.looseObject({
    code: v.picklist(Object.keys(CODES_API) as (keyof typeof CODES_API)[]),
    message: v.string(),
    details: extra(v.array(SchemaDetailErreur), 'Validation errors (400, 422): every problem of the request, each with its place (chemin) and its message.'),
    echecs: extra(v.array(SchemaEchecImage), '422 invalid_image when no image of the request could be read: why each one was refused.'),
    index: extra(entier, 'Position (0-based) of the image the error is about.'),
    televersement: extra(v.string(), 'Id of the upload the error is about (POST /televersements).'),
    raison: extra(
      v.picklist(['inconnu', 'non_recu', 'expire', 'deja_utilise']),
      "Why an upload was refused: unknown or another account's, file not yet PUT, past its 30 minutes, already used.",
    ),
    taille: extra(entier, 'Size announced for the file, in bytes (413 on POST /televersements).'),
    max_octets: extra(entier, 'Largest image accepted, in bytes (413 image_too_large).'),
    largeur: extra(entier, 'Width of the image in pixels (413 image_too_large over the megapixel limit).'),
    hauteur: extra(entier, 'Height of the image in pixels (413 image_too_large over the megapixel limit).'),
    max_pixels: extra(entier, 'Most pixels an image may have (413 image_too_large).'),
    max: extra(
      entier,
      'The limit that was passed: images per batch (413 too_many_images), pending jobs (429 too_many_pending_jobs) or uploads waiting to be used (429 too_many_pending_uploads).',
    ),
    televersements_ouverts: extra(entier, 'Uploads of the account announced and not yet used (429 too_many_pending_uploads).'),
    efface_le: extra(v.nullable(dateHeure), 'When the work an Idempotency-Key started was erased (409 work_erased).'),
    credits: extra(entier, 'Balance of the account (402 insufficient_credits).'),
    requis: extra(entier, 'Credits the request costs (402 insufficient_credits).'),
    en_attente: extra(entier, 'Jobs of the account not yet ended (429 too_many_pending_jobs).'),
    retry_after: extra(entier, 'Seconds to wait before retrying (429, 503), as in the Retry-After header.'),
    parametre: extra(v.string(), 'The parameter or header that is invalid (400 invalid_parameter).'),
    allow: extra(v.array(v.string()), 'Methods the path accepts (405 method_not_allowed), as in the Allow header.'),
    effacement: extra(v.literal('programme'), '409 still_running on DELETE: the erasure is recorded and done as soon as the job or batch has ended.'),
    partie: extra(v.string(), 'Name of the multipart part holding a file that is too large.'),
    nom_fichier: extra(v.nullable(v.string()), 'File name of that part, if it had one.'),
    profondeur_max: extra(entier, 'Deepest nesting a JSON body may have (400 invalid_body).'),
    valeurs_max: extra(entier, 'Most members and elements a JSON body may hold (400 invalid_body).'),
    type: extra(v.string(), 'On the deployed API, answers made by API Gateway itself (throttling, too large a body) name its response type here.'),
  }),
});

export const SchemaTravail = v.strictObject({
  id: v.pipe(v.string(), v.uuid()),
  outil,
  statut: v.picklist(['en_attente', 'en_cours', 'termine', 'echec']),
  cout: entier,
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
  structure: v.pipe(
    v.nullable(
      v.strictObject({
        score: v.pipe(v.number(), v.minValue(0), v.maxValue(1)),
        seuil: v.pipe(v.number(), v.minValue(0), v.maxValue(1)),
        essais: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(2)),
      }),
    ),
    v.description(
      'Extension: for an image result, the structure check it passed: how well the fixed lines of the room or building (walls, windows, doors, outline) were kept, from 0 to 1 (1 = unchanged); the threshold below which a result is not delivered; the runs it took (a result under the threshold is run once more, then the job fails with structure_modifiee and is refunded). Null for a listing text and until the job is done.',
    ),
  ),
});

export const SchemaLot = v.strictObject({
  id: v.pipe(v.string(), v.uuid()),
  outil,
  statut: v.picklist(['en_cours', 'termine', 'partiel', 'echec']),
  total: entier,
  termines: entier,
  echecs: entier,
  en_cours: entier,
  zip: v.nullable(lien),
  travaux: v.array(SchemaTravail),
});

const SchemaTeleversement = v.strictObject({
  id: v.pipe(v.string(), v.uuid(), v.description('Give it as {"televersement": "<id>"} in the images of POST /travaux.')),
  url: v.pipe(v.string(), v.url(), v.description('Where to PUT the file: signed for this key, Content-Type and size only.')),
  methode: v.literal('PUT'),
  entetes: v.pipe(v.strictObject({ 'Content-Type': v.string() }), v.description('Headers the PUT must carry, exactly.')),
  expire_le: v.pipe(dateHeure, v.description('The URL works until then (15 minutes).')),
  utilisable_jusqua: v.pipe(
    dateHeure,
    v.description(
      'A POST /travaux can name the upload until then (30 minutes after the announcement); an upload still unused is then deleted, object and record.',
    ),
  ),
});

export const SchemaTeleversements = v.strictObject({ televersements: v.array(SchemaTeleversement) });

const ids = v.array(v.pipe(v.string(), v.uuid()));
/** What DELETE /travaux/{id} and DELETE /lots/{id} erased (core/effacement.ts). */
export const SchemaEffacement = v.strictObject({
  efface_le: dateHeure,
  travaux: v.pipe(ids, v.description('Jobs erased: their inputs, uploads, results and records, and the stored answer of the request that started them.')),
  lots: v.pipe(ids, v.description('Batches erased whole: their record and ZIP (a batch goes with its last job).')),
  zips_refaits: v.pipe(
    ids,
    v.description(
      'Batches that keep other jobs: their ZIP was deleted and is written again without the erased job, within about 3 minutes (zip is null meanwhile).',
    ),
  ),
  fichiers: v.pipe(entier, v.description('Stored files deleted: inputs, uploads, results, ZIPs.')),
});

export const SchemaLancement = v.strictObject({
  lot: v.nullable(v.pipe(v.string(), v.uuid())),
  outil,
  cout_total: entier,
  travaux: v.array(SchemaTravail),
  echecs: v.array(SchemaEchecImage),
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

const SchemaOutil = v.strictObject({
  id: outil,
  nom: v.string(),
  resume: v.string(),
  cout: entier,
  images: v.strictObject({ min: v.number(), max: v.number(), par_lot: v.boolean() }),
  champs: v.array(SchemaChamp),
});

export const SchemaOutils = v.strictObject({ outils: v.array(SchemaOutil) });
export const SchemaSolde = v.strictObject({ credits: entier });
export const SchemaListeTravaux = v.strictObject({ travaux: v.array(SchemaTravail) });

/**
 * Answers, each a named component: a schema used inside another is a `$ref` to it, so generators
 * make one `Travail` type, not one copy per place it appears.
 */
const REPONSES = {
  Erreur: SchemaErreur,
  DetailErreur: SchemaDetailErreur,
  EchecImage: SchemaEchecImage,
  IdOutil: outil,
  Lien: lien,
  Travail: SchemaTravail,
  Lot: SchemaLot,
  Lancement: SchemaLancement,
  Outil: SchemaOutil,
  Champ: SchemaChamp,
  Outils: SchemaOutils,
  Solde: SchemaSolde,
  ListeTravaux: SchemaListeTravaux,
  Televersement: SchemaTeleversement,
  Televersements: SchemaTeleversements,
  Effacement: SchemaEffacement,
} satisfies Record<string, v.GenericSchema>;

type Json = Record<string, unknown>;

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

// ——— Examples. Typed with the service's own types, and checked against the schemas by the tests. ———

const ID_TRAVAIL = '3f6d2a0e-8b1c-4c9e-9a57-1d2e3f4a5b6c';
const ID_LOT = '7c1e9b42-5d3a-4f86-b0e1-2a3b4c5d6e7f';
const ID_TELEVERSEMENT = '5f0c8d21-6e4b-4a93-8c7d-0e1f2a3b4c5d';
const lienExemple = (fichier: string, expire: string): Lien => ({
  url: `https://fichiers.example.com/resultats/${fichier}?Expires=1767312000&Signature=c2lnbmF0dXJl&Key-Pair-Id=K2EXEMPLE`,
  expire_le: expire,
});

const travailEnAttente: Travail = {
  id: ID_TRAVAIL,
  outil: 'ciel',
  statut: 'en_attente',
  cout: 2,
  valeurs: {},
  lot: null,
  nom: 'jardin.jpg',
  source: 'api',
  cree_le: '2026-01-01T10:00:00.000Z',
  commence_le: null,
  termine_le: null,
  resultats: [],
  texte: null,
  erreur: null,
  rembourse: false,
  redaction: null,
  structure: null,
};
const travailEnCours: Travail = { ...travailEnAttente, statut: 'en_cours', commence_le: '2026-01-01T10:00:00.412Z' };
const travailTermine: Travail = {
  ...travailEnCours,
  statut: 'termine',
  termine_le: '2026-01-01T10:00:07.950Z',
  resultats: [lienExemple(`${ID_TRAVAIL}/jardin.jpg`, '2026-01-02T10:05:00.000Z')],
  structure: { score: 0.962, seuil: 0.6, essais: 1 },
};
const travailEchec: Travail = {
  ...travailEnCours,
  id: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
  nom: 'cave.jpg',
  statut: 'echec',
  termine_le: '2026-01-01T10:00:02.100Z',
  erreur: { code: 'telechargement_echoue', message: 'The image could not be downloaded.' },
  rembourse: true,
};
const annonceTerminee: Travail = {
  ...travailTermine,
  id: '1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e',
  outil: 'annonce',
  cout: 3,
  valeurs: { lieu: 'Gent, Patershol', langue: 'French', infos: '3 chambres, 128 m²' },
  nom: null,
  resultats: [],
  texte: '# Maison de caractère au cœur du Patershol\n\nÀ deux pas des quais, cette maison de 128 m² offre trois chambres…',
  redaction: { automatique: true, intelligence_artificielle: true, modele: 'us.anthropic.claude-haiku-4-5-20251001-v1:0' },
  structure: null,
};
const travauxLot: Travail[] = ['chambre-1.jpg', 'chambre-2.jpg'].map((nom, i) => ({
  ...travailTermine,
  id: `7c1e9b42-5d3a-4f86-b0e1-2a3b4c5d6e8${i}`,
  outil: 'staging',
  cout: 5,
  valeurs: { piece: 'bedroom', style: 'japandi', mention: 'none' },
  lot: ID_LOT,
  nom,
  resultats: [lienExemple(`7c1e9b42-5d3a-4f86-b0e1-2a3b4c5d6e8${i}/${nom}`, '2026-01-02T10:05:00.000Z')],
}));
const lotTermine: Lot = {
  id: ID_LOT,
  outil: 'staging',
  statut: 'termine',
  total: 2,
  termines: 2,
  echecs: 0,
  en_cours: 0,
  zip: lienExemple(`lot-${ID_LOT}.zip`, '2026-01-02T10:05:00.000Z'),
  travaux: travauxLot,
};
const lancementSimple: Lancement = { lot: null, outil: 'ciel', cout_total: 2, travaux: [travailEnAttente], echecs: [] };
const lancementLot: Lancement = {
  lot: ID_LOT,
  outil: 'staging',
  cout_total: 10,
  travaux: travauxLot.map((t) => ({ ...t, statut: 'en_attente', commence_le: null, termine_le: null, resultats: [] })),
  echecs: [{ index: 2, code: 'invalid_image', message: 'The image is not a JPEG, PNG or WebP file.' }],
};

const URL_PHOTO = 'https://photos.example.com/biens/42/salon.jpg';

/** One request per tool for POST /travaux: what each needs at least, and the image forms. */
export const EXEMPLES_REQUETE_TRAVAUX = {
  vider: { summary: 'vider: one photo by URL (a job)', value: { outil: 'vider', images: [{ url: URL_PHOTO, nom: 'salon.jpg' }] } },
  staging: {
    summary: 'staging: a batch of two uploaded photos, only the style set (piece and mention take their defaults)',
    value: { outil: 'staging', valeurs: { style: 'japandi' }, images: [{ televersement: ID_TELEVERSEMENT, nom: 'chambre-1.jpg' }, { url: URL_PHOTO }] },
  },
  renovation: {
    summary: 'renovation: an interior, refreshed',
    value: { outil: 'renovation', valeurs: { zone: 'interieur', niveau: 'rafraichissement' }, images: [{ url: URL_PHOTO }] },
  },
  saison: {
    summary: 'saison: a photo inline, as a data URL (small photos only: larger ones go through POST /televersements)',
    value: {
      outil: 'saison',
      images: [{ base64: 'data:image/jpeg;base64,/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8U', nom: 'hiver.jpg' }],
    },
  },
  ciel: { summary: 'ciel: no settings, so no valeurs', value: { outil: 'ciel', images: [{ url: URL_PHOTO }] } },
  annonce: {
    summary: 'annonce: a listing text, lieu is the one required setting; photos are optional',
    value: { outil: 'annonce', valeurs: { lieu: 'Gent, Patershol', langue: 'French', infos: '3 chambres, 128 m²', atouts: 'jardin, calme' } },
  },
} as const;

/**
 * Error examples are made by the code that makes the errors: the 422 is the one `validerRequete`
 * throws for that body, so its message and `details` are the service's own.
 */
const exempleErreur = (erreur: ErreurApi) => ({ value: erreur.corps() });
const exemple422 = (): Json => {
  try {
    validerRequete('staging', { outil: 'staging', valeurs: { style: 'baroque' }, images: [{ url: URL_PHOTO }] });
  } catch (erreur) {
    if (erreur instanceof ErreurApi) return { summary: 'A setting value that is not allowed', ...exempleErreur(erreur) };
  }
  throw new Error('the 422 example body was accepted');
};

const effacementTravail = { efface_le: '2026-01-03T09:00:00.000Z', travaux: [ID_TRAVAIL], lots: [], zips_refaits: [ID_LOT], fichiers: 3 };

const EXEMPLES_ERREUR = {
  401: { cle: exempleErreur(new ErreurApi('unauthorized', 'Invalid or revoked API key.')) },
  404: { introuvable: exempleErreur(new ErreurApi('not_found', `No job ${ID_TRAVAIL}.`)) },
  402: { credits: exempleErreur(new ErreurApi('insufficient_credits', 'This request costs 10 credits; the balance is 4.', { credits: 4, requis: 10 })) },
  409: {
    efface: exempleErreur(
      new ErreurApi(
        'work_erased',
        'The work this Idempotency-Key started was erased on 2026-01-03T09:00:00.000Z: nothing was started or charged. To start it again, send the request with a new Idempotency-Key.',
        { efface_le: '2026-01-03T09:00:00.000Z' },
      ),
    ),
  },
  429: {
    cadence: exempleErreur(new ErreurApi('rate_limited', 'More than 120 requests per minute on this key: retry in 17 s.', { retry_after: 17 })),
  },
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
    },
  },
  paths: {
    '/outils': {
      get: {
        operationId: 'listerOutils',
        security: [],
        summary: 'The tools',
        responses: {
          200: json('Outils', 'The tool catalogue.', { catalogue: { value: { outils: OUTILS.map((id) => CATALOGUE[id]) } } }),
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
        ],
        responses: {
          200: json('ListeTravaux', 'Jobs', { travaux: { value: { travaux: [annonceTerminee, travailTermine, travailEchec] } } }),
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
