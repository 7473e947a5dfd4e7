/**
 * How long things are kept, in one place: the S3 lifecycle rules (lib/stockage.ts) and the DynamoDB
 * TTLs (core/table.ts) are derived from these, so a job's record never outlives its files or the
 * other way round.
 */

/** Results and batch ZIPs: 90 days (spec). Job and batch records live as long. */
export const RETENTION_RESULTATS_JOURS = 90;

/**
 * Inputs are only needed while the job runs (minutes; retries are capped well under a day). A week
 * leaves time to look into a support request, then the customer's photo is gone.
 */
export const RETENTION_ENTREES_JOURS = 7;

/** Interrupted multipart uploads (large ZIPs) are cleaned up after a day. */
export const NETTOYAGE_ENVOIS_INCOMPLETS_JOURS = 1;

/**
 * Direct uploads (POST /televersements): the signed PUT URL lives 15 minutes, an upload can be used by a
 * job for 24 hours, and the objects are deleted after 2 days — used or not. A job started within the
 * 24 hours ends within about an hour (core/balayage.ts), long before its input goes.
 */
export const VALIDITE_URL_TELEVERSEMENT_SECONDES = 15 * 60;
export const UTILISATION_TELEVERSEMENT_HEURES = 24;
export const RETENTION_TELEVERSEMENTS_JOURS = 2;

/** An `Idempotency-Key` and the answer it replays (core/idempotence.ts). */
export const CONSERVATION_IDEMPOTENCE_HEURES = 24;

/** A key's request counter for one minute (core/cadence.ts): kept a minute past its own. */
export const CONSERVATION_FENETRE_CADENCE_SECONDES = 120;

/** DynamoDB point-in-time recovery: the table's history, for restoring after an operator's mistake (lib/donnees.ts). */
export const SAUVEGARDES_TABLE_JOURS = 35;

/** CloudWatch Logs of every function and of the state machine (lib/configuration.ts). */
export const CONSERVATION_JOURNAUX_JOURS = { production: 90, autres: 14 } as const;

/**
 * Step Functions keeps a standard workflow's history (every state's input and output) this long after it
 * ends, and offers no way to delete it: AWS's figure, not ours. Hence no customer content in the state
 * (pipeline/etape.ts).
 */
export const HISTORIQUE_EXECUTIONS_JOURS = 90;

/** Key prefixes of the bucket, one per lifecycle. */
export const PREFIXES = { entrees: 'entrees/', resultats: 'resultats/', zips: 'zips/', televersements: 'televersements/' } as const;
