/**
 * Bedrock failures as job errors. The state machine retries `moteur_indisponible` with a long,
 * jittered backoff (statemachines/travail.asl.json); every other code ends the job, refunded. So the
 * one question here is: can waiting fix it?
 */
import { ErreurTravail, type CodeTravail } from '../../core/modele/erreurs';
import { compterAccesRefuse } from '../../core/infra/mesures';

/** Capacity or a passing fault on AWS's side: the same request will succeed later. */
const INDISPONIBLE = new Set([
  'ThrottlingException',
  'ServiceUnavailableException',
  'InternalServerException',
  'ModelTimeoutException',
  'ModelNotReadyException',
  // An account quota the Bedrock API reference tells the caller to "resubmit later": a wait, as for throttling.
  'ServiceQuotaExceededException',
  // Rekognition's (the furniture detector, rekognition.ts).
  'ProvisionedThroughputExceededException',
  'InternalServerError',
]);

/**
 * The request itself is wrong, or the account is not allowed: retrying would spend the retry budget
 * and fail the same way. `ModelErrorException` is the model failing on this input.
 */
const EN_ECHEC = new Set([
  'ValidationException',
  'AccessDeniedException',
  'ResourceNotFoundException',
  'ModelErrorException',
  'ConflictException',
  // Rekognition's: an image it cannot read or a request it refuses.
  'InvalidImageFormatException',
  'ImageTooLargeException',
  'InvalidParameterException',
]);

interface ErreurSdk {
  name?: unknown;
  $fault?: unknown;
  $metadata?: { httpStatusCode?: unknown };
}

const avecCause = (code: CodeTravail, cause: unknown): ErreurTravail =>
  // The job's message stays the catalogue's (it is shown to the caller); the SDK's is for the logs.
  Object.assign(new ErreurTravail(code), { cause });

/**
 * A content filter may also answer as a ValidationException whose message names what it filtered
 * (the prompt, the input or the output image) rather than as a 200 with a finish reason: the same
 * verdict, a refusal of the content, not a malformed request.
 */
const FILTRE = /\bfilter(ed|s)?\b|content moderation|flagged|blocked by|safety system/i;

/** Maps what the Bedrock runtime (or the Rekognition) client threw to the job error the state machine acts on. */
export const erreurDeBedrock = (erreur: unknown): ErreurTravail => {
  if (erreur instanceof ErreurTravail) return erreur;
  const e = (typeof erreur === 'object' && erreur !== null ? erreur : {}) as ErreurSdk & { message?: unknown };
  const nom = typeof e.name === 'string' ? e.name : '';
  if (nom === 'ValidationException' && typeof e.message === 'string' && FILTRE.test(e.message)) return avecCause('contenu_refuse', erreur);
  // Every job fails the same way until an operator enables the model: counted, and the stage alarms.
  if (nom === 'AccessDeniedException') compterAccesRefuse();
  if (INDISPONIBLE.has(nom)) return avecCause('moteur_indisponible', erreur);
  if (EN_ECHEC.has(nom)) return avecCause('moteur_en_echec', erreur);
  const statut = typeof e.$metadata?.httpStatusCode === 'number' ? e.$metadata.httpStatusCode : undefined;
  // An exception this build does not know yet: trust the service's own fault classification.
  if (e.$fault === 'server' || statut === 429 || (statut !== undefined && statut >= 500)) return avecCause('moteur_indisponible', erreur);
  if (e.$fault === 'client' || (statut !== undefined && statut >= 400)) return avecCause('moteur_en_echec', erreur);
  // No answer at all (socket reset, DNS, timeout after the SDK's own retries): the network, not the request.
  return avecCause('moteur_indisponible', erreur);
};

/**
 * Stability answers a filtered or failed generation with a 200 and a non-null finish reason:
 * "Filter reason: prompt", "Filter reason: input image", "Filter reason: output image" (content
 * filter: retrying gives the same verdict) or "Inference error" (the model failed).
 */
export const erreurDeFinStability = (raison: unknown): ErreurTravail | null => {
  if (raison === null || raison === undefined) return null;
  const texte = String(raison);
  return /filter/i.test(texte)
    ? Object.assign(new ErreurTravail('contenu_refuse'), { cause: texte })
    : Object.assign(new ErreurTravail('moteur_en_echec'), { cause: texte });
};

/** Converse's stop reasons: only a complete answer is a listing; a filter is a refusal. */
export const erreurDeFinConverse = (raison: string | undefined): ErreurTravail | null => {
  switch (raison) {
    case 'end_turn':
    case 'stop_sequence':
      return null;
    case 'content_filtered':
    case 'guardrail_intervened':
      return Object.assign(new ErreurTravail('contenu_refuse'), { cause: raison });
    default:
      // max_tokens (a listing cut mid-sentence), malformed output, tool use we never asked for.
      return Object.assign(new ErreurTravail('moteur_en_echec'), { cause: raison ?? 'no stop reason' });
  }
};
