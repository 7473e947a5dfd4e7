/**
 * Every HTTP exchange of the SDK, with the retries docs/api.md asks of a client: a 429 waits for its
 * `Retry-After` (rate limit, pending jobs, pending uploads) and goes again; a transient failure (500, 502,
 * 503, 504, no answer, a dropped connection, an attempt timed out) goes again after an exponential pause
 * with jitter, a bounded number of times.
 *
 * Every request the SDK makes is safe to send twice: the GETs; POST /travaux, which always carries an
 * Idempotency-Key (index.ts), so a retry of a request whose answer was lost returns its first answer and
 * charges nothing more; POST /televersements, which only makes new upload URLs; the PUT of an upload, the
 * same bytes to the same URL; and a DELETE, which an erasure cut short asks to be sent again. So this
 * module retries all of them alike, but for the few a request marks `idempotente: false` (adding a webhook,
 * rotating its secret, resending a delivery: the API takes no Idempotency-Key there, and a second one would
 * add a second endpoint, or retire the secret the receiver still uses). Those wait out a 429, which refuses
 * a request before it does anything, and nothing else: a 5xx or a lost answer is the caller's to check.
 */
import { ErreurRetouche, erreurDeReponse } from './erreurs.js';

export interface ReglagesTransport {
  fetch: typeof fetch;
  /** Transient failures retried per call (after the first attempt). */
  reessais: number;
  /** 429 answers waited out per call. */
  attentes429: number;
  /** First pause after a transient failure; it doubles at each retry, up to `delaiMaxMs`. */
  delaiInitialMs: number;
  delaiMaxMs: number;
}

export interface Requete {
  methode: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: string;
  entetes?: Record<string, string>;
  /** Made again for each attempt: a stream can be read only once. */
  corps?: () => string | Uint8Array | ReadableStream<Uint8Array>;
  /** An attempt with no answer (its headers) after this long is abandoned, then retried like a dropped one. */
  delaiMs?: number;
  signal?: AbortSignal | undefined;
  /** Before every attempt after the first: an upload's progress starts again from 0. */
  avantReessai?: () => void;
  /** false: a request that must not be done twice, retried after a 429 only (default true). */
  idempotente?: boolean;
}

/** Statuses of a failure that may not happen again: retried. Any other error status is the answer. */
const TRANSITOIRES = new Set([500, 502, 503, 504]);
/** Whatever an answer asks, one wait is never longer than this (a rate limit asks 60 s at most). */
const ATTENTE_MAX_MS = 5 * 60_000;

/** `Retry-After`: seconds, or an HTTP date (RFC 9110); undefined when absent or unreadable. */
export const lireRetryAfter = (valeur: string | null, maintenant = Date.now()): number | undefined => {
  if (valeur === null) return undefined;
  const texte = valeur.trim();
  if (/^\d+$/.test(texte)) return Number(texte);
  const date = Date.parse(texte);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - maintenant) / 1000));
};

/**
 * The pause before retry number `n` (0-based): exponential, with "equal jitter" (half fixed, half
 * random), so that clients failed by the same incident do not all come back at the same instant.
 */
export const pauseReessai = (reglages: Pick<ReglagesTransport, 'delaiInitialMs' | 'delaiMaxMs'>, n: number, aleatoire = Math.random()): number => {
  const plafond = Math.min(reglages.delaiMaxMs, reglages.delaiInitialMs * 2 ** n);
  return Math.round(plafond / 2 + (aleatoire * plafond) / 2);
};

/** A pause the caller's signal can cut short. */
export const pause = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resoudre, rejeter) => {
    if (signal?.aborted) return rejeter(signal.reason);
    const fin = () => {
      signal?.removeEventListener('abort', abandon);
      resoudre();
    };
    const minuterie = setTimeout(fin, ms);
    const abandon = () => {
      clearTimeout(minuterie);
      rejeter(signal?.reason);
    };
    signal?.addEventListener('abort', abandon, { once: true });
  });

/**
 * The caller's signal and the attempt's own timeout as one signal, and what removes the listener from
 * the caller's signal afterwards (a signal kept for many calls would otherwise gather one per request).
 */
const combiner = (signal: AbortSignal | undefined, delai: AbortController): { signal: AbortSignal; liberer: () => void } => {
  if (!signal) return { signal: delai.signal, liberer: () => undefined };
  const transmettre = () => delai.abort(signal.reason);
  if (signal.aborted) transmettre();
  else signal.addEventListener('abort', transmettre, { once: true });
  return { signal: delai.signal, liberer: () => signal.removeEventListener('abort', transmettre) };
};

const hote = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};

/**
 * Sends the request and gives its answer to `lire` (which reads its body) when the status is 2xx,
 * retrying as above; throws an `ErreurRetouche` for an error answer or when no answer came. The body is
 * read inside the retry loop: a connection dropped in the middle of an answer is retried like one dropped
 * before it. `lire` may throw an `ErreurRetouche` (an answer it cannot use): that is not retried.
 */
export const envoyer = async <T>(reglages: ReglagesTransport, requete: Requete, lire: (reponse: Response) => Promise<T>): Promise<T> => {
  const { methode, url } = requete;
  const reessais = requete.idempotente === false ? 0 : reglages.reessais;
  let transitoires = 0;
  let attentes = 0;
  for (let essai = 1; ; essai++) {
    requete.signal?.throwIfAborted();
    if (essai > 1) requete.avantReessai?.();
    const corps = requete.corps?.();
    const delai = new AbortController();
    const minuterie =
      requete.delaiMs === undefined
        ? undefined
        : setTimeout(() => delai.abort(new DOMException(`no answer within ${requete.delaiMs} ms`, 'TimeoutError')), requete.delaiMs);
    const { signal, liberer } = combiner(requete.signal, delai);
    let echec: unknown;
    try {
      const reponse = await reglages.fetch(url, {
        method: methode,
        ...(requete.entetes ? { headers: requete.entetes } : {}),
        ...(corps === undefined ? {} : { body: corps }),
        // A stream body must say it: fetch sends it while the answer may already come (RFC 9110 allows it).
        ...(corps instanceof ReadableStream ? { duplex: 'half' as const } : {}),
        signal,
      });
      clearTimeout(minuterie);
      if (reponse.ok) return await lire(reponse);
      const texte = await reponse.text().catch(() => '');
      const retryAfter = lireRetryAfter(reponse.headers.get('retry-after'));
      const erreur = erreurDeReponse(reponse.status, texte, { methode, url, ...(retryAfter === undefined ? {} : { retryAfter }) });
      if (reponse.status === 429 && attentes < reglages.attentes429) {
        attentes++;
        // Retry-After is the time to the next minute of the rate limit: a little jitter spreads the keys that all wait for it.
        const ms = erreur.retryAfter === undefined ? pauseReessai(reglages, attentes - 1) : erreur.retryAfter * 1000 + Math.random() * 250;
        await pause(Math.min(ms, ATTENTE_MAX_MS), requete.signal);
        continue;
      }
      if (TRANSITOIRES.has(reponse.status) && transitoires < reessais) {
        // A 503 may say how long to wait (service_unavailable): never sooner than that.
        const ms = Math.max(pauseReessai(reglages, transitoires++), (erreur.retryAfter ?? 0) * 1000);
        await pause(Math.min(ms, ATTENTE_MAX_MS), requete.signal);
        continue;
      }
      throw erreur;
    } catch (erreur) {
      clearTimeout(minuterie);
      if (erreur instanceof ErreurRetouche) throw erreur;
      if (requete.signal?.aborted) throw requete.signal.reason;
      // fetch fails with a TypeError when no answer comes or the connection drops; the timeout is ours.
      // Anything else (a file that cannot be written while downloading) is not a network failure.
      const transitoire = erreur instanceof TypeError || (delai.signal.aborted && erreur === delai.signal.reason);
      if (!transitoire) throw erreur;
      echec = erreur;
    } finally {
      liberer();
    }
    if (transitoires < reessais) {
      await pause(pauseReessai(reglages, transitoires++), requete.signal);
      continue;
    }
    const cause = echec instanceof Error ? `${echec.message}${echec.cause instanceof Error ? ` (${echec.cause.message})` : ''}` : String(echec);
    const unique = requete.idempotente === false ? ' Not sent again, since doing it twice would not be the same: it may have been done.' : '';
    throw new ErreurRetouche({
      statut: 0,
      code: 'network_error',
      message: `No answer from ${hote(url)} to ${methode} after ${essai} attempt${essai > 1 ? 's' : ''}: ${cause}${unique}`,
      methode,
      url,
      cause: echec,
    });
  }
};

/** `envoyer` for the API's JSON answers. */
export const envoyerJson = <T>(reglages: ReglagesTransport, requete: Requete): Promise<T> =>
  envoyer(reglages, requete, async (reponse) => {
    const texte = await reponse.text();
    try {
      return JSON.parse(texte) as T;
    } catch (cause) {
      throw new ErreurRetouche({
        statut: reponse.status,
        code: 'invalid_response',
        message: `The answer to ${requete.methode} ${new URL(requete.url).pathname} is not JSON: ${texte.slice(0, 200)}`,
        methode: requete.methode,
        url: requete.url,
        cause,
      });
    }
  });
