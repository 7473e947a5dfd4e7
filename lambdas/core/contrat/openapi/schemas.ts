/**
 * The answers of the API, described with valibot: each a named component of the OpenAPI document
 * (document.ts), and what the integration tests check real answers against, so the document stays true.
 */
import * as v from 'valibot';

/** A JSON object of the document, as generators read it. */
export type Json = Record<string, unknown>;
import { CODES_API } from '../../modele/erreurs';
import { OUTILS, VALEURS_FLOUTAGE } from '../../modele/outils';
import { EVENEMENT_TEST, EVENEMENTS } from '../../modele/webhooks';

const dateHeure = v.pipe(v.string(), v.isoTimestamp());
const entier = v.pipe(v.number(), v.integer());
const outil = v.picklist(OUTILS);
const urlTelechargement = v.pipe(
  v.string(),
  v.url(),
  v.description(
    "Signed link that downloads the file: its answer carries Content-Disposition: attachment with the file's name (RFC 6266, with a UTF-8 filename*), so a browser saves it. Use it exactly as given: any change to it makes it invalid (403).",
  ),
);
const expireLe = v.pipe(dateHeure, v.description('The link works until then (24 hours); fetch the job or batch again for a fresh one.'));
const lien = v.strictObject({ url: urlTelechargement, expire_le: expireLe });
const lienResultat = v.strictObject({
  url: urlTelechargement,
  url_affichage: v.pipe(
    v.string(),
    v.url(),
    v.description(
      'Extension: the same file by a signed link without Content-Disposition, to show it (an <img>, a browser tab) rather than save it. Valid as long as url.',
    ),
  ),
  avant_affichage: v.pipe(
    v.nullable(v.pipe(v.string(), v.url())),
    v.description(
      'Extension: the photo this result was made from, by a display link valid as long as url, while it is kept (7 days; 1 day when it was uploaded with POST /televersements); null after, and for a job of several photos.',
    ),
  ),
  expire_le: expireLe,
});

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
  resultats: v.array(lienResultat),
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
  floutage: v.pipe(
    v.nullable(
      v.strictObject({
        reglage: v.picklist(VALEURS_FLOUTAGE),
        visages: v.pipe(v.number(), v.integer(), v.minValue(0)),
        plaques: v.pipe(v.number(), v.integer(), v.minValue(0)),
      }),
    ),
    v.description(
      "Extension: for an image result whose job asked to blur faces or number plates (valeurs.floutage), the setting and how many faces and plates were found, each blurred beyond recognition. 0 means none was found and nothing was blurred: the result's C2PA manifest then claims no blur. Null when no blur was asked, for a listing text, and until the job is done.",
    ),
  ),
  test: v.pipe(
    v.boolean(),
    v.description(
      'Extension: true on a job started with a test key (rtch_test_…): it cost nothing, ran the local preview engine, and only test keys list or read it. False on a live job (always present, webhook events included, so a receiver can branch on it).',
    ),
  ),
  apercu: v.pipe(
    v.boolean(),
    v.description(
      'Extension: true when the job runs (or ran) on the preview engine: a stand-in without a trained generative model, which marks every result image visibly ("Preview" in a lower corner, in the request\'s Accept-Language among the six languages of annonce, else English) and whose listing text is a fixed template. Test keys\' jobs always, and every job of a stage deployed with the preview engine (GET /outils says which). False on the production engine. Always present.',
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
  test: v.pipe(v.boolean(), v.description('Extension: true on a batch started with a test key, false on a live one, as on its jobs.')),
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
/** What DELETE /travaux/{id} and DELETE /lots/{id} erased (core/domaine/effacement/). */
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

export const SchemaOutils = v.strictObject({
  outils: v.array(SchemaOutil),
  apercu: v.pipe(
    v.boolean(),
    v.description(
      'Extension: true when this stage runs its live jobs on the preview engine (no trained generative model; every result image marked "Preview", jobs apercu: true); false when it runs the production engine. A test key\'s jobs run the preview on every stage.',
    ),
  ),
});
export const SchemaSolde = v.strictObject({ credits: entier });
export const SchemaListeTravaux = v.strictObject({
  travaux: v.array(SchemaTravail),
  suivant: v.pipe(
    v.nullable(v.string()),
    v.description('Extension: when more jobs follow this page, the cursor that reads them (give it back as ?apres=); null on the last page.'),
  ),
});

// ——— Webhooks (extension: core/domaine/webhooks/) ———

const evenement = v.pipe(v.picklist(EVENEMENTS), v.description('travail.fini: a job ended (termine or echec). lot.fini: a batch ended.'));
const idWebhook = v.pipe(v.string(), v.regex(/^wh_[0-9a-f]{24}$/));
const idLivraison = v.pipe(v.string(), v.regex(/^msg_[a-z2-7]{26}$/), v.description("The delivery's webhook-id header: the same across its attempts."));

export const SchemaWebhook = v.strictObject({
  id: idWebhook,
  url: v.string(),
  evenements: v.array(evenement),
  etat: v.pipe(
    v.picklist(['actif', 'en_echec']),
    v.description('en_echec once a delivery used all its attempts; a delivery answered 2xx makes it actif again.'),
  ),
  cree_le: dateHeure,
  test: v.pipe(
    v.boolean(),
    v.description(
      "Extension: true for an endpoint made with a test key: it receives only test jobs' and batches' events, and only test keys manage it. False for a live endpoint, which never receives test work.",
    ),
  ),
  secret: v.optional(
    v.pipe(
      v.pipe(v.string(), v.startsWith('whsec_')),
      v.description('The signing secret (Standard Webhooks): only in the answers of POST /webhooks and POST /webhooks/{id}/secret, never again.'),
    ),
  ),
});
export const SchemaListeWebhooks = v.strictObject({ webhooks: v.array(SchemaWebhook) });

const SchemaTentative = v.strictObject({
  le: dateHeure,
  statut_http: v.pipe(v.nullable(entier), v.description("The endpoint's HTTP status; null when it did not answer.")),
  erreur: v.pipe(v.nullable(v.string()), v.description('Why there was no answer (timeout, connection, an address refused); null when it answered.')),
});
export const SchemaLivraison = v.strictObject({
  id: idLivraison,
  webhook: idWebhook,
  type: v.picklist([...EVENEMENTS, EVENEMENT_TEST]),
  travail: v.nullable(v.pipe(v.string(), v.uuid())),
  lot: v.nullable(v.pipe(v.string(), v.uuid())),
  statut: v.pipe(
    v.picklist(['en_attente', 'reussie', 'en_echec']),
    v.description(
      'reussie: answered 2xx. en_attente: an attempt is due (prochaine_tentative). en_echec: every attempt failed (about 27 hours of them); it can be resent.',
    ),
  ),
  tentatives: entier,
  prochaine_tentative: v.nullable(dateHeure),
  derniere_tentative: v.nullable(SchemaTentative),
  cree_le: dateHeure,
});
export const SchemaListeLivraisons = v.strictObject({ livraisons: v.array(SchemaLivraison) });

/** What an endpoint receives (POST, signed): the job or batch as GET answers it at delivery time. */
export const SchemaEvenementWebhook = v.strictObject({
  type: v.picklist([...EVENEMENTS, EVENEMENT_TEST]),
  timestamp: v.pipe(dateHeure, v.description('When the event happened: the job or batch ended, or the test was asked.')),
  data: v.pipe(
    v.union([SchemaTravail, SchemaLot, v.strictObject({ webhook: idWebhook, test: v.boolean(), message: v.string() })]),
    v.description(
      "travail.fini: a Travail; lot.fini: a Lot; webhook.test: the endpoint, whether it is a test key's, and a message. `test` is always there: true only on a test key's work, delivered only to the test keys' endpoints.",
    ),
  ),
});

/**
 * Answers, each a named component: a schema used inside another is a `$ref` to it, so generators
 * make one `Travail` type, not one copy per place it appears.
 */
export const REPONSES = {
  Erreur: SchemaErreur,
  DetailErreur: SchemaDetailErreur,
  EchecImage: SchemaEchecImage,
  IdOutil: outil,
  Lien: lien,
  LienResultat: lienResultat,
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
  Webhook: SchemaWebhook,
  ListeWebhooks: SchemaListeWebhooks,
  Tentative: SchemaTentative,
  Livraison: SchemaLivraison,
  ListeLivraisons: SchemaListeLivraisons,
  EvenementWebhook: SchemaEvenementWebhook,
} satisfies Record<string, v.GenericSchema>;
