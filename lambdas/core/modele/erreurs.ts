/**
 * Errors of the HTTP interface (body `Erreur`) and of a job (`Travail.erreur`).
 *
 * API error codes are English snake_case because the spec names one of them (`insufficient_credits`);
 * job error codes are French snake_case, like the rest of the job's vocabulary. Both lists are in the
 * interface (docs/api.md) and nowhere else is a code invented: add it here first.
 */

export const CODES_API = {
  invalid_body: 400,
  invalid_parameter: 400,
  /** A webhook call whose signature does not check (POST /paiements/stripe). */
  invalid_signature: 400,
  unauthorized: 401,
  insufficient_credits: 402,
  /** A result link that is tampered with or expired (local file server; CloudFront answers the same). */
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  image_too_large: 413,
  too_many_images: 413,
  unsupported_media_type: 415,
  invalid_tool: 422,
  invalid_settings: 422,
  invalid_image: 422,
  idempotency_key_reused: 422,
  /** An erasure asked while its job runs or its batch's ZIP is written: recorded, done when that ends. */
  still_running: 409,
  /** A sixth API key asked on the web site's API page (an account has at most 5). */
  too_many_keys: 409,
  /** An eleventh webhook endpoint (an account has at most 10: core/modele/webhooks.ts). */
  too_many_webhooks: 409,
  /** A resend of a webhook delivery that has not failed (delivered, or still being attempted). */
  delivery_not_failed: 409,
  /** A replay of an Idempotency-Key whose work was erased meanwhile: nothing is started again (core/domaine/idempotence.ts). */
  work_erased: 409,
  rate_limited: 429,
  too_many_pending_jobs: 429,
  /** More uploads announced and not yet used than an account may have (core/domaine/televersements.ts). */
  too_many_pending_uploads: 429,
  internal_error: 500,
  /** The request could not be finished in time; says whether anything may have been recorded. */
  service_unavailable: 503,
} as const;

export type CodeApi = keyof typeof CODES_API;

/** An error answered to the HTTP caller with the spec's `Erreur` body. */
/**
 * A balance below zero, and why it starts nothing (credits taken back after a refund, a dispute or an
 * operator's correction): said by the 402 of a job and of an upload alike, as "the balance is …", since it
 * is not a matter of their price.
 */
export const soldeNegatif = (credits: number): string =>
  `${credits} credits, below zero: credits were taken back (a purchase refunded or disputed, or an operator's correction) ` +
  'after they were spent. No job starts, test jobs included, until credits bring the balance back to zero or above.';

export class ErreurApi extends Error {
  override readonly name = 'ErreurApi';
  readonly statut: number;

  constructor(
    readonly code: CodeApi,
    message: string,
    /** Extra members of `error` (allowed by the spec), e.g. `details` or `index`. */
    readonly details: Record<string, unknown> = {},
    /** Extra response headers, e.g. `Retry-After` on a 429. */
    readonly entetes: Record<string, string> = {},
  ) {
    super(message);
    this.statut = CODES_API[code];
  }

  corps(): { error: Record<string, unknown> } {
    return { error: { code: this.code, message: this.message, ...this.details } };
  }
}

/**
 * Codes a failed job can carry in `erreur.code`. A pipeline step throws an `ErreurTravail` whose
 * `name` is the code: Step Functions reports it as the error name, the state machine's Retry lists
 * match on it, and the refund step turns it back into `erreur`.
 */
export const CODES_TRAVAIL = {
  /** The input could not be read as an image (bytes are not JPEG, PNG or WebP, or are corrupt). */
  image_illisible: 'The image could not be read as JPEG, PNG or WebP.',
  /** The image URL was refused (not https, private or internal address, too many redirects). */
  url_refusee: 'The image URL was refused.',
  /** Fetching the image URL failed (HTTP error, timeout, connection refused). */
  telechargement_echoue: 'The image could not be downloaded.',
  /** The image is larger than 15 MB (downloaded) or 50 megapixels (any input, read from its header or refused by the decoder). */
  image_trop_grande: 'The image is larger than 15 MB or 50 megapixels.',
  /** The model refused the content (content filter). */
  contenu_refuse: 'The content was refused by the model.',
  /** The model stayed unavailable or throttled after every retry. Transient: retried first. */
  moteur_indisponible: 'The model is temporarily unavailable.',
  /** The model answered with an error that retrying cannot fix. */
  moteur_en_echec: 'The model could not process this image.',
  /** vider: nothing to remove was found in the photo (no furniture or clutter); refunded rather than repainting the room. */
  rien_a_retirer: 'No furniture or clutter was found in this photo: there is nothing to remove.',
  /** vider, preview engine: the area to rebuild is too large, or its fill would be a blur rather than the floor and walls continued (local/qualite-remplissage.ts); the message says which. */
  remplissage_insuffisant:
    'The preview engine could not rebuild the area behind the furniture with the floor and walls around it, so no blurred result was delivered.',
  /** staging: no free floor was found to place furniture on (no floor in view, an exterior, or a room already furnished); the message says which. */
  sol_introuvable: 'No free floor was found in this photo to place furniture on.',
  /** saison, preview engine: nothing wintry was found to turn to summer (no snow on the ground, no grey sky, or a photo taken inside); the message says which. */
  hiver_introuvable: 'No snow and no grey winter sky were found in this photo: there is nothing to turn to summer.',
  /** The result moved the room's fixed elements (walls, windows, doors, outline) beyond the threshold, twice. */
  structure_modifiee: 'The result changed the structure of the room or building (walls, windows, doors), so it was not delivered.',
  /** fusion: the photos are not of one view (different sizes, or one could not be aligned with the others); the message says which. */
  vues_differentes: 'The photos are not of the same view, so they could not be merged.',
  /** fusion: the photos have the same exposure (no bracket): there is nothing to merge. */
  expositions_identiques: 'The photos have the same exposure: there is nothing to merge.',
  /** The execution of the job could not be started. */
  demarrage_impossible: 'The job could not be started.',
  /** Anything else: details stay in the logs, never in the answer. */
  erreur_interne: 'An internal error occurred.',
} as const;

export type CodeTravail = keyof typeof CODES_TRAVAIL;

export class ErreurTravail extends Error {
  constructor(
    readonly code: CodeTravail,
    message: string = CODES_TRAVAIL[code],
  ) {
    super(message);
    // The name is what Step Functions sees as the error (Lambda's errorType).
    this.name = code;
  }
}

export const estCodeTravail = (valeur: unknown): valeur is CodeTravail => typeof valeur === 'string' && Object.hasOwn(CODES_TRAVAIL, valeur);
