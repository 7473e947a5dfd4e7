/**
 * The API, as the site calls it: the signed-in user's ID token where a script puts its key. An answer
 * that is not 2xx carries the API's `{"error": {"code", "message", …}}`; it becomes an ErreurApi with the
 * code, the API's own message (English) and the other members, which the pages word in their language
 * (erreurs.ts). A 401 gets one more try with a fresh token; a second one ends the session, and the app
 * then goes to the sign-in page (App.vue).
 */
import type { components } from '../../clients/sdk/src/schema';
import { lireConfiguration } from './config';
import { i18n } from './i18n';
import { useSession } from './session';

export class ErreurApi extends Error {
  override name = 'ErreurApi';
  constructor(
    readonly statut: number,
    readonly code: string,
    message: string,
    /** True when the message is the API's (in English), false when the site wrote it (in the page's language). */
    readonly deLApi: boolean,
    /** The `error` object's other members (limits, `details`, `parametre`…), which the site words with its code. */
    readonly infos: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

const lireCorps = async (reponse: Response): Promise<unknown> => {
  const texte = await reponse.text();
  try {
    return texte ? (JSON.parse(texte) as unknown) : undefined;
  } catch {
    // Not the API's JSON (a proxy's error page): the status says enough.
    return undefined;
  }
};

/** `entetes`: a request's own headers (the studio's Idempotency-Key), beside the token and the body's type. */
export const appeler = async <T>(methode: 'GET' | 'POST' | 'DELETE', chemin: string, corps?: unknown, entetes: Record<string, string> = {}): Promise<T> => {
  const session = useSession();
  const { t } = i18n.global;
  const { api } = await lireConfiguration();
  const envoyer = async (jeton: string): Promise<Response> => {
    try {
      return await fetch(`${api}${chemin}`, {
        method: methode,
        // The page's language, not the browser's: what the preview engine writes its mark in (docs/api.md).
        headers: {
          Authorization: `Bearer ${jeton}`,
          'Accept-Language': i18n.global.locale.value,
          ...(corps === undefined ? {} : { 'Content-Type': 'application/json' }),
          ...entetes,
        },
        body: corps === undefined ? undefined : JSON.stringify(corps),
      });
    } catch {
      throw new ErreurApi(0, 'network', t('erreurs.reseau'), false);
    }
  };

  const jeton = await session.jetonValide();
  // Signed out meanwhile (the refresh refused), or a refresh the network cut short.
  if (!jeton) throw new ErreurApi(401, 'unauthenticated', t(session.connecte ? 'erreurs.reseau' : 'erreurs.sessionFinie'), false);
  let reponse = await envoyer(jeton);
  if (reponse.status === 401 && (await session.rafraichir())) {
    const nouveau = await session.jetonValide();
    if (nouveau) reponse = await envoyer(nouveau);
  }
  if (reponse.status === 204) return undefined as T;
  const valeur = await lireCorps(reponse);
  if (!reponse.ok) {
    if (reponse.status === 401) await session.deconnecter(true);
    const erreur = (valeur as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
    if (typeof erreur?.message === 'string') {
      const { code, message, ...infos } = erreur;
      throw new ErreurApi(reponse.status, String(code ?? 'error'), message, true, infos);
    }
    throw new ErreurApi(reponse.status, 'error', t('erreurs.serveur', { statut: reponse.status }), false);
  }
  return valeur as T;
};

/** GET /compte: its first call after a sign-up makes the account, so it comes right after every sign-in. */
export const ouvrirCompte = (): Promise<Compte> => appeler<Compte>('GET', '/compte');

/**
 * The account and API pages' answers (/compte…): the types generated from the OpenAPI document, where the web
 * site's own routes are described beside the API's (clients/sdk/src/schema.ts), so a change of an answer fails
 * the site's typecheck instead of passing silently.
 */
type Schemas = components['schemas'];
/** GET /compte. `achats`: the stage's packs, null when it sells none; `contact_credits`: how to ask the operator for credits. */
export type Compte = Schemas['Compte'];
/** A pack of credits, with its Stripe Payment Link naming this account. */
export type Pack = Schemas['Pack'];
/** GET /compte/mouvements: each job's debit and refund, the credits added and taken back; credits signed. */
export type ListeMouvements = Schemas['ListeMouvements'];
export type Mouvement = Schemas['Mouvement'];
/** GET /compte/cles: the account's active keys, never the keys themselves. */
export type ListeCles = Schemas['ListeCles'];
export type Cle = Schemas['Cle'];
/** POST /compte/cles (`{"nom", "test"}`): the key itself (`cle`) is in this answer only. */
export type CleCreee = Schemas['CleCreee'];
export type RequeteCle = Schemas['RequeteCle'];

/** A job as the API serves it, and a page of GET /travaux: the SDK's names for the generated types. */
export type { ListeTravaux, Travail } from '../../clients/sdk/src/types';
/** Webhooks (the API page): an endpoint (its `secret` only when just added or rotated), its events, its deliveries. */
export type { EvenementAbonnable, ListeLivraisons, ListeWebhooks, Livraison, Webhook, WebhookAvecSecret } from '../../clients/sdk/src/types';
