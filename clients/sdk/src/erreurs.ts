/**
 * One error type for everything the SDK throws, except an abort asked by the caller's own signal
 * (which throws the signal's reason, as fetch does): a refusal of the API with its `error.code`, or a
 * failure on the client's side (no answer after the retries, a file that is not an image…) with a code
 * of the SDK's own and `statut` 0.
 */
import type { CodeErreurApi, CorpsErreur, DetailErreur } from './types.js';

/**
 * Codes the SDK gives to failures that are not an answer of the API (`statut` 0), or to an error answer
 * without the API's body (a gateway's or a storage's own page): see `ErreurRetouche.code`.
 */
export type CodeErreurSdk =
  /** No answer at all after every retry: connection refused or dropped, DNS, a request timed out. */
  | 'network_error'
  /** An answer that is not what the API sends (not JSON where JSON was due). */
  | 'invalid_response'
  /** An error answer without the API's body, of a status no code stands for (e.g. a storage's XML). */
  | 'http_error'
  /** A local file or bytes that are not a JPEG, PNG or WebP: refused before anything is sent. */
  | 'unsupported_image'
  /** `attendre` gave up before the job or batch ended. */
  | 'wait_timeout'
  /** A download asked of a job or batch that has no such result (not done, failed, or no ZIP). */
  | 'no_result';

/**
 * `error.code` of the API (typed from the document), or one of the SDK's codes. Within v1 the API may
 * add codes (docs/api.md, Versioning), hence the open `string`: a code unknown to this version of the SDK
 * still arrives, and `statut` says what kind of refusal it is.
 */
export type CodeErreur = CodeErreurApi | CodeErreurSdk | (string & {});

/**
 * An error answer without the API's JSON body (on a deployed stage the gateway or CloudFront may answer
 * itself): the API's code for that status, so that a caller's checks on `code` hold whoever answered.
 */
const CODE_PAR_STATUT: Partial<Record<number, CodeErreurApi>> = {
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  413: 'payload_too_large',
  429: 'rate_limited',
  500: 'internal_error',
  502: 'service_unavailable',
  503: 'service_unavailable',
  504: 'service_unavailable',
};

export interface DescriptionErreur {
  statut: number;
  code: CodeErreur;
  message: string;
  erreur?: CorpsErreur;
  methode?: string;
  url?: string;
  retryAfter?: number;
  cause?: unknown;
}

export class ErreurRetouche extends Error {
  override readonly name = 'ErreurRetouche';
  /** The HTTP status; 0 when no answer came, or when the SDK refused before sending anything. */
  readonly statut: number;
  readonly code: CodeErreur;
  /** Every problem of a refused request body (400, 422), each `{chemin, message}`; empty otherwise. */
  readonly details: DetailErreur[];
  /** The whole `error` member of the answer: `index`, `raison`, `credits`, `requis`, `echecs`… as the code has them. */
  readonly erreur: CorpsErreur | undefined;
  /** The request, without its query: a signed link's query is a credential, and errors end up in logs. */
  readonly methode: string | undefined;
  readonly url: string | undefined;
  /** Seconds the answer asked to wait (429, 503), when it said. */
  readonly retryAfter: number | undefined;

  constructor(description: DescriptionErreur) {
    super(description.message, description.cause === undefined ? undefined : { cause: description.cause });
    this.statut = description.statut;
    this.code = description.code;
    this.erreur = description.erreur;
    this.details = description.erreur?.details ?? [];
    this.methode = description.methode;
    this.url = description.url === undefined ? undefined : sansRequete(description.url);
    this.retryAfter = description.retryAfter;
  }
}

const sansRequete = (url: string): string => {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return url.split('?')[0] ?? url;
  }
};

/** The API's error body, when `corps` is one: `{"error": {"code": "…", "message": "…", …}}`. */
const corpsErreur = (corps: unknown): CorpsErreur | undefined => {
  if (!corps || typeof corps !== 'object') return undefined;
  const erreur = (corps as { error?: unknown }).error;
  if (!erreur || typeof erreur !== 'object') return undefined;
  const { code, message } = erreur as { code?: unknown; message?: unknown };
  return typeof code === 'string' && typeof message === 'string' ? (erreur as CorpsErreur) : undefined;
};

/** The error for an answer of status ≥ 400, from its body's text (JSON or not). */
export const erreurDeReponse = (statut: number, texte: string, requete: { methode: string; url: string; retryAfter?: number }): ErreurRetouche => {
  let corps: unknown;
  try {
    corps = JSON.parse(texte);
  } catch {
    // Not the API's body: a gateway's, a CDN's or a storage's page. Its status says what it was.
  }
  const erreur = corpsErreur(corps);
  const code = erreur?.code ?? CODE_PAR_STATUT[statut] ?? 'http_error';
  const message = erreur?.message ?? `HTTP ${statut}${texte ? `: ${texte.slice(0, 300)}` : ''}`;
  const retryAfter = requete.retryAfter ?? erreur?.retry_after;
  return new ErreurRetouche({ statut, code, message, ...(erreur ? { erreur } : {}), ...requete, ...(retryAfter === undefined ? {} : { retryAfter }) });
};
