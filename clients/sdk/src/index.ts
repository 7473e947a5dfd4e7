/**
 * @retouche/sdk: a typed client of the Retouche API (docs/api.md) for Node.js 20 or newer, on Node's own
 * fetch, with one dependency (standardwebhooks, to verify webhook deliveries: webhooks.ts). The types come
 * from the OpenAPI document (schema.ts, generated); this layer adds what every integration otherwise
 * writes for itself: retries that never charge twice, uploads of local photos with their progress, polite
 * polling, downloads, and the verification of what a webhook receives.
 *
 * ```ts
 * const retouche = new Retouche({ base: 'http://localhost:3000/api/v1', cle: process.env.RETOUCHE_CLE! });
 * const lancement = await retouche.lancer({ outil: 'ciel', images: ['facade.jpg'] });
 * const travail = await retouche.attendreTravail(lancement.travaux[0]!.id);
 * await retouche.telechargerResultat(travail, { vers: 'facade-ciel.jpg' });
 * ```
 */
import { randomUUID } from 'node:crypto';
import { ErreurRetouche } from './erreurs.js';
import { classer, televerser, type Image, type OptionsTeleversement, type Progression, type SourceLocale } from './images.js';
import { telechargerOctets, telechargerVers, type OptionsTelechargement } from './telechargement.js';
import { envoyer, envoyerJson, pause, type ReglagesTransport, type Requete } from './transport.js';
import { verifierCredits, verifierDemande } from './verification.js';
import type {
  Catalogue,
  Effacement,
  FichierAnnonce,
  ImageApi,
  Lancement,
  Lien,
  ListeTravaux,
  Livraison,
  Lot,
  Outil,
  ParametresListe,
  RequeteTravaux,
  RequeteWebhook,
  Solde,
  SourceClient,
  Televersement,
  Travail,
  Webhook,
  WebhookAvecSecret,
} from './types.js';

export { ErreurRetouche, type CodeErreur, type CodeErreurSdk } from './erreurs.js';
export type { DetailProgression, Image, OptionsTeleversement, Progression, ProgressionFichier, SourceLocale } from './images.js';
export type { OptionsTelechargement } from './telechargement.js';
export { verifierWebhook, WebhookVerificationError, type EntetesWebhook } from './webhooks.js';
export type * from './types.js';
export { OUTILS } from './outils.js';
export type { components, operations, paths } from './schema.js';

export interface OptionsRetouche {
  /** The API's base URL, ending with the version: `http://localhost:3000/api/v1`, or a stage's `ApiUrl` output. */
  base: string;
  /** An API key, `rtch_…`. */
  cle: string;
  /** The fetch to call instead of Node's global one (a proxy's, or a test's that drops answers). */
  fetch?: typeof fetch;
  /** Retries of one call after a transient failure (500, 502, 503, 504, no answer): default 4. */
  reessais?: number;
  /** 429 answers one call waits out (each for its Retry-After) before it gives up: default 10. */
  attentes429?: number;
  /** First pause after a transient failure, doubled at each retry (with jitter): default 500 ms. */
  delaiInitialMs?: number;
  /** Longest pause between two retries: default 20 s. */
  delaiMaxMs?: number;
  /** An API call with no answer after this long is abandoned and retried: default 60 s. */
  delaiRequeteMs?: number;
  /** Uploads PUT at the same time: default 4. */
  televersementsSimultanes?: number;
  /** What the jobs this client starts say as `source`: `api` (default), or `mcp` for a client acting for an AI assistant. */
  source?: SourceClient;
}

export interface OptionsAppel {
  signal?: AbortSignal;
}

interface OptionsRequeteApi {
  corps?: unknown;
  entetes?: Record<string, string>;
  signal?: AbortSignal | undefined;
  idempotente?: boolean;
  avantReessai?: () => void;
}

/** POST /travaux's body, but images as `Image` (a path, bytes, a URL…): one shape per tool, typed from the document. */
export type DemandeLancement = AvecImages<RequeteTravaux>;
type AvecImages<R> = R extends { images: unknown }
  ? Omit<R, 'images'> & { images: Image[] }
  : R extends { images?: unknown }
    ? Omit<R, 'images'> & { images?: Image[] }
    : R;

export interface OptionsLancement extends OptionsAppel {
  /**
   * The request's Idempotency-Key. By default a new UUID per call, sent again with each of its retries.
   * Give your own to make a request of yours idempotent across your own retries or restarts; then name
   * images by URL or `{televersement}`, since a local file is uploaded again by each call, which makes
   * another body (`idempotency_key_reused`).
   */
  cleIdempotence?: string;
  /** Progress of the uploads of local files and bytes: all of them together, and each file (`Progression`). */
  progression?: Progression;
}

export interface OptionsAttente extends OptionsAppel {
  /** The first pause between two reads: default 1 s; each pause is a quarter longer than the last. */
  intervalleMs?: number;
  /** Give up after this long (`wait_timeout`): default beyond the service's own bound (62 min a job, 88 min a batch). */
  delaiMaxMs?: number;
  /** Each state read, e.g. to show a batch's progress. */
  surEtat?: (etat: Travail | Lot) => void;
}

export interface OptionsAttenteLot extends OptionsAttente {
  /** Wait for the batch's ZIP link too (default true): it may be null a few seconds after the batch ends. */
  zip?: boolean;
}

/** What a download gives: the bytes, or with `vers` the file written there (its path). */
export type OptionsResultat = OptionsTelechargement & { index?: number };

/** A job ends `termine` or `echec`; a batch ends when it is no longer `en_cours`. */
export const TERMINAUX_TRAVAIL: readonly Travail['statut'][] = ['termine', 'echec'];

export const estLot = (etat: Travail | Lot): etat is Lot => 'total' in etat && 'travaux' in etat;

/** How long a client trusts the catalogue it read (GET /outils) to check a request before uploading its photos. */
const DUREE_CATALOGUE_MS = 10 * 60_000;
/** A test key's prefix (docs/api.md, Test keys): its jobs are free, which the check of the balance knows. */
const PREFIXE_CLE_TEST = 'rtch_test_';

/** Beyond the service's bounds (docs/api.md, A job's life): every job ends within 62 min, every batch within 88. */
const ATTENTE_MAX_TRAVAIL_MS = 65 * 60_000;
const ATTENTE_MAX_LOT_MS = 95 * 60_000;
/** Polls: a pause a quarter longer each time, up to 5 s for a job and 10 s for a batch, then 15 s after a minute. */
const CROISSANCE_INTERVALLE = 1.25;
/** A link that expires within this is read again before use. */
const MARGE_LIEN_MS = 60_000;

export class Retouche {
  readonly base: string;
  readonly #cle: string;
  readonly #reglages: ReglagesTransport;
  readonly #delaiRequeteMs: number;
  readonly #simultanes: number;
  readonly #source: SourceClient | undefined;
  #catalogue: { outils: Promise<Outil[]>; lu: number } | undefined;

  constructor(options: OptionsRetouche) {
    // Checked here: a base that is not a URL would otherwise fail as a "network" error, after retries.
    this.base = new URL(options.base).href.replace(/\/+$/, '');
    this.#cle = options.cle;
    this.#reglages = {
      fetch: options.fetch ?? ((entree, init) => fetch(entree, init)),
      reessais: options.reessais ?? 4,
      attentes429: options.attentes429 ?? 10,
      delaiInitialMs: options.delaiInitialMs ?? 500,
      delaiMaxMs: options.delaiMaxMs ?? 20_000,
    };
    this.#delaiRequeteMs = options.delaiRequeteMs ?? 60_000;
    this.#simultanes = Math.max(1, options.televersementsSimultanes ?? 4);
    this.#source = options.source;
  }

  #api<T>(methode: Requete['methode'], chemin: string, options: OptionsRequeteApi = {}) {
    return envoyerJson<T>(this.#reglages, this.#requete(methode, chemin, options));
  }

  /** A call answered 204, with no body to read. */
  async #apiSansCorps(methode: Requete['methode'], chemin: string, options: OptionsRequeteApi = {}): Promise<void> {
    await envoyer(this.#reglages, this.#requete(methode, chemin, options), async (reponse) => void (await reponse.arrayBuffer()));
  }

  #requete(methode: Requete['methode'], chemin: string, options: OptionsRequeteApi): Requete {
    const entetes: Record<string, string> = { Accept: 'application/json', Authorization: `Bearer ${this.#cle}`, ...options.entetes };
    // The body is serialised once: every retry sends the very same bytes, as an Idempotency-Key needs.
    const corps = options.corps === undefined ? undefined : JSON.stringify(options.corps);
    if (corps !== undefined) entetes['Content-Type'] = 'application/json';
    return {
      methode,
      url: `${this.base}${chemin}`,
      entetes,
      ...(corps === undefined ? {} : { corps: () => corps }),
      delaiMs: this.#delaiRequeteMs,
      signal: options.signal,
      ...(options.idempotente === false ? { idempotente: false } : {}),
      ...(options.avantReessai ? { avantReessai: options.avantReessai } : {}),
    };
  }

  // ——— The endpoints ———

  /** GET /outils: the tools this stage offers, their costs and settings. */
  async outils(options: OptionsAppel = {}): Promise<Outil[]> {
    return (await this.catalogue(options)).outils;
  }

  /** GET /outils as a whole: the tools, and whether this stage runs the preview engine (`apercu`). */
  catalogue(options: OptionsAppel = {}): Promise<Catalogue> {
    return this.#api<Catalogue>('GET', '/outils', options);
  }

  /** GET /solde: the account's balance, `{credits}`. */
  solde(options: OptionsAppel = {}): Promise<Solde> {
    return this.#api<Solde>('GET', '/solde', options);
  }

  /** GET /travaux: the account's latest jobs, newest first (`limite` 1 to 100, default 20; `outil`): one page's jobs. */
  async travaux(parametres: ParametresListe = {}, options: OptionsAppel = {}): Promise<Travail[]> {
    return (await this.pageTravaux(parametres, options)).travaux;
  }

  /** GET /travaux: a page, and `suivant`, the cursor of the next one (give it as `apres`), or null on the last. */
  pageTravaux(parametres: ParametresListe = {}, options: OptionsAppel = {}): Promise<ListeTravaux> {
    const requete = new URLSearchParams();
    if (parametres.limite !== undefined) requete.set('limite', String(parametres.limite));
    if (parametres.outil !== undefined) requete.set('outil', parametres.outil);
    if (parametres.apres !== undefined) requete.set('apres', parametres.apres);
    const suite = requete.toString() ? `?${requete.toString()}` : '';
    return this.#api<ListeTravaux>('GET', `/travaux${suite}`, options);
  }

  /**
   * Every job of the account (of one tool with `outil`), newest first, page after page (`limite` a page,
   * default 100): `for await (const travail of retouche.parcourirTravaux()) …`.
   */
  async *parcourirTravaux(parametres: Omit<ParametresListe, 'apres'> = {}, options: OptionsAppel = {}): AsyncGenerator<Travail> {
    let apres: string | null | undefined;
    do {
      const page = await this.pageTravaux({ limite: 100, ...parametres, ...(apres ? { apres } : {}) }, options);
      yield* page.travaux;
      apres = page.suivant;
    } while (apres);
  }

  /** GET /travaux/{id}: one job, with result links valid 24 hours. */
  travail(id: string, options: OptionsAppel = {}): Promise<Travail> {
    return this.#api<Travail>('GET', `/travaux/${encodeURIComponent(id)}`, options);
  }

  /** GET /lots/{id}: one batch, its counters, its jobs and its ZIP link. */
  lot(id: string, options: OptionsAppel = {}): Promise<Lot> {
    return this.#api<Lot>('GET', `/lots/${encodeURIComponent(id)}`, options);
  }

  /** A job or a batch by its id, whichever it names (GET /travaux/{id}, then GET /lots/{id}): they share no id. */
  async lire(id: string, options: OptionsAppel = {}): Promise<Travail | Lot> {
    try {
      return await this.travail(id, options);
    } catch (erreur) {
      if (erreur instanceof ErreurRetouche && erreur.code === 'not_found') return this.lot(id, options);
      throw erreur;
    }
  }

  /**
   * POST /travaux: starts a job, or a batch for several images. Local files and bytes are uploaded first
   * (POST /televersements, then a PUT each); the request is sent with an Idempotency-Key that its
   * retries reuse, so a retry after a lost answer returns the first answer and is not charged again.
   */
  async lancer(demande: DemandeLancement, options: OptionsLancement = {}): Promise<Lancement> {
    const cleIdempotence = options.cleIdempotence ?? randomUUID();
    const { images, ...reste } = demande as { images?: Image[] };
    if (images?.some((image) => 'locale' in classer(image))) await this.#verifierAvantTeleversement(demande, images.length, options);
    const corps = images === undefined ? reste : { ...reste, images: await this.#imagesApi(images, options) };
    const entetes: Record<string, string> = { 'Idempotency-Key': cleIdempotence, ...(this.#source ? { 'Retouche-Source': this.#source } : {}) };
    return this.#api<Lancement>('POST', '/travaux', { corps, entetes, signal: options.signal });
  }

  /**
   * Photos to upload: the tool and its settings are checked against the catalogue first, then the balance
   * (GET /solde) against the tool's cost, so that a typo or too few credits is refused before the photos go
   * up rather than after. A catalogue older than a few minutes, or one the request fails against, is read
   * again before the request is refused.
   */
  async #verifierAvantTeleversement(demande: DemandeLancement, nombreImages: number, options: OptionsAppel): Promise<void> {
    const { outil, valeurs } = demande as { outil: string; valeurs?: Record<string, unknown> };
    const lire = () => (this.#catalogue = { outils: this.outils(options), lu: Date.now() }).outils;
    let frais = !this.#catalogue || Date.now() - this.#catalogue.lu > DUREE_CATALOGUE_MS;
    let outils = await (frais ? lire() : this.#catalogue!.outils).catch((erreur: unknown) => {
      this.#catalogue = undefined;
      throw erreur;
    });
    const verifier = (catalogue: Outil[]) => verifierDemande(catalogue, { outil, ...(valeurs ? { valeurs } : {}), nombreImages });
    try {
      verifier(outils);
    } catch (erreur) {
      if (frais) throw erreur;
      outils = await lire();
      frais = true;
      verifier(outils);
    }
    const { credits } = await this.solde(options);
    const cout = (catalogue: Outil[]) =>
      verifierCredits(
        catalogue.find((o) => o.id === outil)!,
        { nombreImages, credits, test: this.#cle.startsWith(PREFIXE_CLE_TEST) },
      );
    try {
      cout(outils);
    } catch (erreur) {
      // A cost read earlier may have changed: refused only on a fresh catalogue.
      if (frais) throw erreur;
      const recent = await lire();
      verifier(recent);
      cout(recent);
    }
  }

  /** POST /televersements alone: announces files (type and exact size), and gives one signed PUT URL each. */
  async televersements(fichiers: FichierAnnonce[], options: OptionsAppel = {}): Promise<Televersement[]> {
    return (await this.#api<{ televersements: Televersement[] }>('POST', '/televersements', { corps: { fichiers }, signal: options.signal })).televersements;
  }

  /**
   * Uploads local files or bytes (a path, a Buffer…): announced, then PUT to storage. Each upload's `id`
   * names it in `lancer` as `{televersement: id}` within 30 minutes; `lancer` does all this by itself.
   */
  async televerser(images: (string | URL | Uint8Array | SourceLocale)[], options: OptionsTeleversement = {}): Promise<Televersement[]> {
    const sources = images.map((image) => {
      const classe = classer(image);
      if ('api' in classe) throw new ErreurRetouche({ statut: 0, code: 'unsupported_image', message: `Not a local file or bytes: ${String(image)}` });
      return classe.locale;
    });
    return televerser({ reglages: this.#reglages, annoncer: (f, signal) => this.televersements(f, { signal }), parallele: this.#simultanes }, sources, options);
  }

  /** DELETE /travaux/{id}: erases an ended job, its photos, results and record (`still_running` while it runs). */
  effacerTravail(id: string, options: OptionsAppel = {}): Promise<Effacement> {
    return this.#api<Effacement>('DELETE', `/travaux/${encodeURIComponent(id)}`, options);
  }

  /** DELETE /lots/{id}: erases an ended batch, every job of it and its ZIP. */
  effacerLot(id: string, options: OptionsAppel = {}): Promise<Effacement> {
    return this.#api<Effacement>('DELETE', `/lots/${encodeURIComponent(id)}`, options);
  }

  // ——— Webhooks (our extension) ———
  // Adding one, rotating its secret and resending a delivery are not retried after a 5xx or a lost
  // answer (only after a 429): doing them twice is not the same (transport.ts). `webhooks()` and
  // `livraisons(id)` tell what happened.

  /** GET /webhooks: the account's endpoints, oldest first (never a secret). */
  async webhooks(options: OptionsAppel = {}): Promise<Webhook[]> {
    return (await this.#api<{ webhooks: Webhook[] }>('GET', '/webhooks', options)).webhooks;
  }

  /**
   * POST /webhooks: adds an endpoint (an https URL, a host name; at most 10 per account) for the events
   * `evenements` (`travail.fini`, `lot.fini`). The answer carries its signing secret `whsec_…`, shown this
   * once: keep it where the receiver reads it (`verifierWebhook`).
   */
  creerWebhook(demande: RequeteWebhook, options: OptionsAppel = {}): Promise<WebhookAvecSecret> {
    return this.#api<WebhookAvecSecret>('POST', '/webhooks', { corps: demande, signal: options.signal, idempotente: false });
  }

  /** DELETE /webhooks/{id}: removes an endpoint and drops its pending deliveries. */
  async supprimerWebhook(id: string, options: OptionsAppel = {}): Promise<void> {
    let reessai = false;
    try {
      await this.#apiSansCorps('DELETE', `/webhooks/${encodeURIComponent(id)}`, { signal: options.signal, avantReessai: () => (reessai = true) });
    } catch (erreur) {
      // Sent again after a lost answer, and not found: the first attempt removed it.
      if (!(reessai && erreur instanceof ErreurRetouche && erreur.code === 'not_found')) throw erreur;
    }
  }

  /**
   * POST /webhooks/{id}/secret: a new secret, shown this once. For 24 hours deliveries are signed with both
   * the new and the previous one, so the receiver can switch to the new one without losing a delivery.
   */
  tournerSecretWebhook(id: string, options: OptionsAppel = {}): Promise<WebhookAvecSecret> {
    return this.#api<WebhookAvecSecret>('POST', `/webhooks/${encodeURIComponent(id)}/secret`, { signal: options.signal, idempotente: false });
  }

  /** POST /webhooks/{id}/test: sends the endpoint a `webhook.test` event (signed, retried and logged as any delivery): the delivery. */
  testerWebhook(id: string, options: OptionsAppel = {}): Promise<Livraison> {
    return this.#api<Livraison>('POST', `/webhooks/${encodeURIComponent(id)}/test`, options);
  }

  /** GET /webhooks/{id}/livraisons: the endpoint's 50 newest deliveries, newest first, with their attempts. */
  async livraisons(id: string, options: OptionsAppel = {}): Promise<Livraison[]> {
    return (await this.#api<{ livraisons: Livraison[] }>('GET', `/webhooks/${encodeURIComponent(id)}/livraisons`, options)).livraisons;
  }

  /**
   * POST /webhooks/{id}/livraisons/{livraison}/renvoyer: a delivery `en_echec` (every attempt failed) is due
   * again now, with the same `webhook-id`; `delivery_not_failed` for one that succeeded or is still tried.
   */
  renvoyerLivraison(id: string, livraison: string, options: OptionsAppel = {}): Promise<Livraison> {
    return this.#api<Livraison>('POST', `/webhooks/${encodeURIComponent(id)}/livraisons/${encodeURIComponent(livraison)}/renvoyer`, {
      signal: options.signal,
      idempotente: false,
    });
  }

  /** GET /openapi.json: the OpenAPI 3.1 document the SDK's types come from. */
  openapi(options: OptionsAppel = {}): Promise<Record<string, unknown>> {
    return this.#api<Record<string, unknown>>('GET', '/openapi.json', options);
  }

  // ——— Waiting ———

  /**
   * Reads a job or a batch until it has ended: a job `termine` or `echec`; a batch no longer `en_cours`
   * and, if it has a ZIP, its `zip` link set. A string is a job's id, or else a batch's; a `Lancement`
   * waits for its batch, or its one job.
   */
  attendre(travail: Travail, options?: OptionsAttente): Promise<Travail>;
  attendre(lot: Lot, options?: OptionsAttenteLot): Promise<Lot>;
  attendre(cible: string | Lancement, options?: OptionsAttenteLot): Promise<Travail | Lot>;
  async attendre(cible: string | Lancement | Travail | Lot, options: OptionsAttenteLot = {}): Promise<Travail | Lot> {
    if (typeof cible === 'string') {
      const etat = await this.lire(cible, options);
      return estLot(etat) ? this.attendreLot(etat, options) : this.attendreTravail(etat, options);
    }
    if ('cout_total' in cible) {
      if (cible.lot !== null) return this.attendreLot(cible.lot, options);
      const [travail] = cible.travaux;
      if (!travail) throw new ErreurRetouche({ statut: 0, code: 'no_result', message: 'This Lancement started no job.' });
      return this.attendreTravail(travail.id, options);
    }
    return estLot(cible) ? this.attendreLot(cible, options) : this.attendreTravail(cible, options);
  }

  /** Reads a job until it is `termine` or `echec`, politely (1 s, then a little longer each time). */
  attendreTravail(travail: string | Travail, options: OptionsAttente = {}): Promise<Travail> {
    const id = typeof travail === 'string' ? travail : travail.id;
    return this.#sonder(
      typeof travail === 'string' ? undefined : travail,
      () => this.travail(id, options),
      (t) => TERMINAUX_TRAVAIL.includes(t.statut),
      { plafondMs: 5_000, delaiMaxMs: ATTENTE_MAX_TRAVAIL_MS, quoi: `job ${id}` },
      options,
    );
  }

  /** Reads a batch until it is no longer `en_cours` and its ZIP link is there (unless `zip: false`, or it failed whole). */
  attendreLot(lot: string | Lot, options: OptionsAttenteLot = {}): Promise<Lot> {
    const id = typeof lot === 'string' ? lot : lot.id;
    const avecZip = options.zip ?? true;
    return this.#sonder(
      typeof lot === 'string' ? undefined : lot,
      () => this.lot(id, options),
      // A batch in echec has no ZIP; an ended one gets it within seconds (or minutes after an erasure).
      (l) => l.statut !== 'en_cours' && (!avecZip || l.statut === 'echec' || l.zip !== null),
      { plafondMs: 10_000, delaiMaxMs: ATTENTE_MAX_LOT_MS, quoi: `batch ${id}` },
      options,
    );
  }

  async #sonder<T extends Travail | Lot>(
    connu: T | undefined,
    lire: () => Promise<T>,
    fini: (etat: T) => boolean,
    reglage: { plafondMs: number; delaiMaxMs: number; quoi: string },
    options: OptionsAttente,
  ): Promise<T> {
    const debut = Date.now();
    const limite = debut + (options.delaiMaxMs ?? reglage.delaiMaxMs);
    let intervalle = options.intervalleMs ?? 1_000;
    // A state already known is not read again at once: the first read comes after the first pause.
    let etat = connu ?? (await lire());
    options.surEtat?.(etat);
    while (!fini(etat)) {
      if (Date.now() + intervalle > limite)
        throw new ErreurRetouche({
          statut: 0,
          code: 'wait_timeout',
          message: `Gave up waiting for ${reglage.quoi} after ${Math.round((Date.now() - debut) / 1000)} s; it is ${etat.statut}.`,
        });
      await pause(intervalle, options.signal);
      etat = await lire();
      options.surEtat?.(etat);
      // Every poll counts against the key's 120 requests a minute: after a minute, a slower pace.
      const plafond = Date.now() - debut < 60_000 ? reglage.plafondMs : 15_000;
      intervalle = Math.min(Math.max(plafond, options.intervalleMs ?? 0), intervalle * CROISSANCE_INTERVALLE);
    }
    return etat;
  }

  // ——— Downloads ———

  /**
   * Downloads a result of a job (`index`, default 0: image tools make one): its bytes, or with `vers`
   * the file written there. A job given by id is read first; a link about to expire, or refused as
   * expired, is replaced by a fresh one.
   */
  telechargerResultat(travail: string | Travail, options?: OptionsResultat & { vers?: undefined }): Promise<Uint8Array>;
  telechargerResultat(travail: string | Travail, options: OptionsResultat & { vers: string }): Promise<string>;
  telechargerResultat(travail: string | Travail, options: OptionsResultat & { vers?: string } = {}): Promise<Uint8Array | string> {
    const id = typeof travail === 'string' ? travail : travail.id;
    const index = options.index ?? 0;
    return this.#telecharger(async (frais) => {
      const t = frais || typeof travail === 'string' ? await this.travail(id, options) : travail;
      const lien = t.resultats[index];
      if (t.statut !== 'termine' || !lien)
        throw new ErreurRetouche({
          statut: 0,
          code: 'no_result',
          message: `Job ${id} is ${t.statut} and has ${t.resultats.length} result(s): no result ${index} to download${t.statut === 'termine' ? '' : ' (attendre() it first)'}.`,
        });
      return lien;
    }, options);
  }

  /** Downloads a batch's ZIP (waiting for it if the batch has not ended): its bytes, or with `vers` the file. */
  telechargerZip(lot: string | Lot, options?: OptionsTelechargement & { vers?: undefined }): Promise<Uint8Array>;
  telechargerZip(lot: string | Lot, options: OptionsTelechargement & { vers: string }): Promise<string>;
  telechargerZip(lot: string | Lot, options: OptionsTelechargement & { vers?: string } = {}): Promise<Uint8Array | string> {
    const id = typeof lot === 'string' ? lot : lot.id;
    return this.#telecharger(async (frais) => {
      let l = frais || typeof lot === 'string' ? await this.lot(id, options) : lot;
      if (l.statut === 'en_cours' || (l.zip === null && l.statut !== 'echec')) l = await this.attendreLot(l, options);
      if (!l.zip) throw new ErreurRetouche({ statut: 0, code: 'no_result', message: `Batch ${id} is ${l.statut}: it has no ZIP (every job failed).` });
      return l.zip;
    }, options);
  }

  async #telecharger(lien: (frais: boolean) => Promise<Lien>, options: OptionsTelechargement & { vers?: string }): Promise<Uint8Array | string> {
    const telecharger = (l: Lien) => {
      const reglage = { delaiMs: this.#delaiRequeteMs, ...(options.signal ? { signal: options.signal } : {}) };
      return options.vers === undefined ? telechargerOctets(this.#reglages, l.url, reglage) : telechargerVers(this.#reglages, l.url, options.vers, reglage);
    };
    let l = await lien(false);
    let frais = false;
    if (Date.parse(l.expire_le) - Date.now() < MARGE_LIEN_MS) {
      l = await lien(true);
      frais = true;
    }
    try {
      return await telecharger(l);
    } catch (erreur) {
      // A link altered or expired is a 403: a fresh read of the job or batch signs a new one.
      if (frais || !(erreur instanceof ErreurRetouche) || erreur.statut !== 403) throw erreur;
      return telecharger(await lien(true));
    }
  }

  // ——— Images ———

  /** The images of a request as the API takes them: local files and bytes uploaded, in one announcement. */
  async #imagesApi(images: Image[], options: OptionsLancement): Promise<ImageApi[]> {
    const classees = images.map(classer);
    const locales = classees.flatMap((c) => ('locale' in c ? [c.locale] : []));
    if (locales.length === 0) return classees.map((c) => (c as { api: ImageApi }).api);
    // Each file's progress names its place among the request's images, URLs included.
    const indices = classees.flatMap((c, i) => ('locale' in c ? [i] : []));
    const televersements = await televerser(
      { reglages: this.#reglages, annoncer: (f, signal) => this.televersements(f, { signal }), parallele: this.#simultanes },
      locales,
      { ...(options.progression ? { progression: options.progression } : {}), ...(options.signal ? { signal: options.signal } : {}) },
      indices,
    );
    let suivant = 0;
    // The upload keeps the name it was announced with: the job and its result file take it.
    return classees.map((c) => ('api' in c ? c.api : { televersement: televersements[suivant++]!.id }));
  }
}
