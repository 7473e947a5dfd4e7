/**
 * How long things are kept, in one place: the S3 lifecycle rules (lib/stockage.ts) and the DynamoDB
 * TTLs (core/depots/table.ts) are derived from these, so a job's record never outlives its files or the
 * other way round.
 */

/** Results and batch ZIPs: 90 days (spec). Job and batch records live as long. */
export const RETENTION_RESULTATS_JOURS = 90;

const JOUR_MS = 24 * 3600_000;

/**
 * Results and ZIPs never outlive their job's (or batch's) 90 days, even when written later (a ZIP
 * written again after an erasure on day 89 would otherwise live to day 179). Each is written with the
 * tag ETIQUETTE_RETENTION = the whole days it may still live, and the bucket has one lifecycle rule
 * per value (lib/stockage.ts). S3 counts a rule's days from the write and rounds up to the next
 * midnight UTC, so the tag is the number of whole days from that midnight to the 90th day after
 * `cree_le`. Below 1, there is no day left: the file is not written (core/domaine/lots.ts).
 */
export const ETIQUETTE_RETENTION = 'retention-jours';
export const joursRestants = (cree_le: string, maintenant: Date): number => {
  const fin = Date.parse(cree_le) + RETENTION_RESULTATS_JOURS * JOUR_MS;
  const minuitSuivant = (Math.floor(maintenant.getTime() / JOUR_MS) + 1) * JOUR_MS;
  return Math.floor((fin - minuitSuivant) / JOUR_MS);
};
/** The `Tagging` of a result or ZIP written now, for work created at `cree_le`. */
export const etiquetteRetention = (cree_le: string, maintenant: Date): string => `${ETIQUETTE_RETENTION}=${joursRestants(cree_le, maintenant)}`;

/**
 * Inputs are only needed while the job runs (minutes; retries are capped well under a day). A week
 * leaves time to look into a support request, then the customer's photo is gone.
 */
export const RETENTION_ENTREES_JOURS = 7;

/** Interrupted multipart uploads (large ZIPs) are cleaned up after a day. */
export const NETTOYAGE_ENVOIS_INCOMPLETS_JOURS = 1;

/**
 * Direct uploads (POST /televersements): the signed PUT URL lives 15 minutes, and an upload can start
 * a job for 30 minutes after it was announced (the URL's 15, then 15 to send POST /travaux). An
 * unused upload is then deleted by the sweeper within a few minutes (core/domaine/televersements.ts), not
 * kept as free storage. A used one is its job's input: the bucket's rule deletes it after a day, the
 * lifecycle's shortest period (a job started within the 30 minutes ends within about an hour,
 * core/domaine/balayage.ts).
 */
export const VALIDITE_URL_TELEVERSEMENT_SECONDES = 15 * 60;
export const UTILISATION_TELEVERSEMENT_MINUTES = 30;
export const RETENTION_TELEVERSEMENTS_JOURS = 1;

/** An `Idempotency-Key` and the answer it replays (core/domaine/idempotence.ts). */
export const CONSERVATION_IDEMPOTENCE_HEURES = 24;

/** A key's request counter for one minute (core/domaine/cadence.ts): kept a minute past its own. */
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
