/**
 * Webhooks (our extension, issue 27): an account's endpoints, the events they receive, and the
 * deliveries the pipeline makes to them, signed the Standard Webhooks way (core/domaine/webhooks/).
 * What the API answers is built here from the records; the records are depots/webhooks.ts's.
 */

/** Events an endpoint can subscribe to: a job ended (`termine` or `echec`), a batch ended. */
export const EVENEMENTS = ['travail.fini', 'lot.fini'] as const;
export type Evenement = (typeof EVENEMENTS)[number];
/** The event `POST /webhooks/{id}/test` sends, whatever the endpoint subscribes to. */
export const EVENEMENT_TEST = 'webhook.test';
export type TypeLivraison = Evenement | typeof EVENEMENT_TEST;

export const estEvenement = (x: string): x is Evenement => (EVENEMENTS as readonly string[]).includes(x);

/** An account has at most this many endpoints (a platform needs one or two; each job end reads them all). */
export const MAX_WEBHOOKS = 10;
/**
 * And at most this many test endpoints, apart (a test key fills neither the live ones' places nor the
 * queue: its jobs are free, so each test endpoint is a delivery no one paid for).
 */
export const MAX_WEBHOOKS_TEST = 3;

/**
 * Who manages endpoints, and which: an account, and whether with a test key. Test endpoints are made,
 * listed and managed with test keys only and receive only test work's events; live endpoints, with a
 * live key, a web session or the operator, and only live events. The other kind answers as if it did
 * not exist, as jobs do (core/domaine/consultation.ts).
 */
export interface Portee {
  compte: string;
  test: boolean;
}

/**
 * Seconds between attempts, after the first (sent at once): Standard Webhooks' own schedule (5 s,
 * 5 min, 30 min, 2 h, 5 h, 10 h, 10 h), about 27.6 hours in all, so a receiver down for a day still
 * gets every event. After the last, the delivery is `en_echec` and its endpoint is marked failing.
 */
export const CALENDRIER_REESSAIS_SECONDES = [5, 300, 1800, 7200, 18_000, 36_000, 36_000] as const;

/** A receiver has this long to answer (Standard Webhooks suggests seconds, not minutes). */
export const DELAI_REPONSE_MS = 15_000;

/**
 * Attempts in flight at once, per endpoint and per account (issue 38): a receiver that never answers
 * holds a delivery worker for DELAI_REPONSE_MS, so one account with a dead endpoint could otherwise fill
 * every worker of the shared queue (its event source runs 20 batches at most: CONCURRENCE_MAX_LIVREUR)
 * and delay every other tenant's deliveries. An attempt that finds no free place waits in the queue,
 * a little longer each time (ATTENTE_PLACE_MAX_S at most), without holding a worker.
 */
export const EN_VOL_PAR_WEBHOOK = 2;
export const EN_VOL_PAR_COMPTE = 4;
export const ATTENTE_PLACE_MAX_S = 60;

/** Test events (`POST /webhooks/{id}/test`) an endpoint may be sent per minute: a 429 with Retry-After beyond. */
export const TESTS_PAR_MINUTE = 5;

/** Delivery records are kept this long for the log (`GET /webhooks/{id}/livraisons`), then expire. */
export const RETENTION_LIVRAISONS_JOURS = 30;

/** How many deliveries the log shows, newest first. */
export const LIMITE_JOURNAL = 50;

/** An endpoint: `actif`, or `en_echec` once a delivery has used all its attempts (a 2xx brings it back). */
export type EtatWebhook = 'actif' | 'en_echec';

export interface EnregistrementWebhook {
  id: string;
  compte: string;
  url: string;
  evenements: Evenement[];
  etat: EtatWebhook;
  cree_le: string;
  /** The signing secret `whsec_…`, encrypted (secrets.ts): it must be read back to sign, so it cannot be a hash. */
  secret_chiffre: string;
  /** After a rotation, the previous secret keeps signing too until `ancien_expire_le` (receivers switch without a gap). */
  ancien_secret_chiffre?: string;
  ancien_expire_le?: string;
  /** Made with a test key: receives only test jobs' and batches' events. Absent on a live endpoint. */
  test?: true;
}

export type StatutLivraison = 'en_attente' | 'reussie' | 'en_echec';

export interface EnregistrementLivraison {
  /** The delivery's `webhook-id` (`msg_…`): the same across its attempts, and the same for every endpoint of one event. */
  id: string;
  webhook: string;
  compte: string;
  type: TypeLivraison;
  /** The job or batch the event is about (none for a test event). */
  sujet: { travail: string } | { lot: string } | null;
  /** When the event happened: the body's `timestamp`. */
  evenement_le: string;
  statut: StatutLivraison;
  tentatives: number;
  /** When the next attempt is due, while `en_attente`. */
  prochaine_tentative: string | null;
  derniere_tentative: { le: string; statut_http: number | null; erreur: string | null } | null;
  cree_le: string;
  /** Times this attempt waited for a place in flight (EN_VOL_PAR_WEBHOOK, EN_VOL_PAR_COMPTE): each wait is longer. */
  attentes_place?: number;
}

/** What the API answers for an endpoint; `secret` only in the answers that create or rotate it. */
export interface Webhook {
  id: string;
  url: string;
  evenements: Evenement[];
  etat: EtatWebhook;
  cree_le: string;
  /** True for a test key's endpoint (test events only), false for a live one. */
  test: boolean;
  secret?: string;
}

export const versWebhook = (w: EnregistrementWebhook, secret?: string): Webhook => ({
  id: w.id,
  url: w.url,
  evenements: w.evenements,
  etat: w.etat,
  cree_le: w.cree_le,
  test: w.test === true,
  ...(secret ? { secret } : {}),
});

export interface Livraison {
  id: string;
  webhook: string;
  type: TypeLivraison;
  travail: string | null;
  lot: string | null;
  statut: StatutLivraison;
  tentatives: number;
  prochaine_tentative: string | null;
  derniere_tentative: EnregistrementLivraison['derniere_tentative'];
  cree_le: string;
}

export const versLivraison = (l: EnregistrementLivraison): Livraison => ({
  id: l.id,
  webhook: l.webhook,
  type: l.type,
  travail: l.sujet && 'travail' in l.sujet ? l.sujet.travail : null,
  lot: l.sujet && 'lot' in l.sujet ? l.sujet.lot : null,
  statut: l.statut,
  tentatives: l.tentatives,
  prochaine_tentative: l.statut === 'en_attente' ? l.prochaine_tentative : null,
  derniere_tentative: l.derniere_tentative,
  cree_le: l.cree_le,
});
