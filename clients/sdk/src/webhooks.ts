/**
 * A receiver's side of the webhooks (our extension): every delivery is signed the Standard Webhooks
 * way (headers `webhook-id`, `webhook-timestamp`, `webhook-signature`: an HMAC-SHA256 of
 * "id.timestamp.body" with the endpoint's secret `whsec_…`), and verified here with that standard's
 * own library, `standardwebhooks`.
 *
 * ```ts
 * // The raw body, as received: a body parsed and serialised again no longer verifies.
 * const evenement = verifierWebhook(process.env.RETOUCHE_WEBHOOK_SECRET!, corps, req.headers);
 * if (evenement.type === 'travail.fini') …
 * ```
 */
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { EvenementWebhook } from './types.js';

export { WebhookVerificationError };

/**
 * A delivery's headers as a server gives them: Node's `req.headers` (names in lower case, a value
 * possibly repeated), a fetch `Request`'s `Headers`, or a plain object.
 */
export type EntetesWebhook = Headers | Record<string, string | string[] | undefined>;

const NOMS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

const lire = (entetes: EntetesWebhook, nom: string): string | undefined => {
  if (typeof Headers !== 'undefined' && entetes instanceof Headers) return entetes.get(nom) ?? undefined;
  const plat = entetes as Record<string, string | string[] | undefined>;
  const cle = Object.keys(plat).find((k) => k.toLowerCase() === nom);
  const valeur = cle === undefined ? undefined : plat[cle];
  // A header repeated: its values joined as HTTP joins them (several signatures are space-separated anyway).
  return Array.isArray(valeur) ? valeur.join(' ') : valeur;
};

/**
 * Verifies a delivery and returns its event: the signature against `secret` (the endpoint's `whsec_…`,
 * given by `creerWebhook` or `tournerSecretWebhook`; after a rotation, deliveries carry a signature of
 * each secret for 24 hours, so either verifies) and the timestamp within 5 minutes of now (a replay).
 * `corps` is the body exactly as received (a string or its bytes). Throws a `WebhookVerificationError`
 * (the library's) when the headers are missing, the timestamp is off or no signature matches: answer
 * such a request 400 and do nothing with it. A delivery may come more than once (deduplicate on
 * `webhook-id`).
 */
export const verifierWebhook = (secret: string, corps: string | Uint8Array, entetes: EntetesWebhook): EvenementWebhook => {
  const texte = typeof corps === 'string' ? corps : new TextDecoder().decode(corps);
  const requises: Record<string, string> = {};
  for (const nom of NOMS) {
    const valeur = lire(entetes, nom);
    if (valeur !== undefined) requises[nom] = valeur;
  }
  const evenement = new Webhook(secret).verify(texte, requises);
  // Signed, yet empty: the library gives undefined; no delivery of Retouche is empty.
  if (evenement === undefined) throw new WebhookVerificationError('Empty body: not an event');
  return evenement as EvenementWebhook;
};
