/**
 * Stripe's webhook signature, checked by Stripe's own library (the `Stripe-Signature` header: an HMAC
 * of the timestamp and the raw body with the endpoint's signing secret, five minutes of tolerance
 * against replays of a captured request). The library's check, not ours: its header format and
 * tolerance are Stripe's to change. The signing secret comes from Secrets Manager on AWS (its ARN in
 * RETOUCHE_STRIPE_SECRET_ARN, read once per container) and from RETOUCHE_STRIPE_SECRET locally.
 */
import Stripe from 'stripe';

export type EvenementStripe = Stripe.Event;

/** The event, or undefined when the body was not signed with this secret (or too long ago). */
export const verifierEvenement = (corps: string, signature: string | undefined, secret: string): EvenementStripe | undefined => {
  if (!signature) return undefined;
  try {
    return Stripe.webhooks.constructEvent(corps, signature, secret);
  } catch (erreur) {
    if (erreur instanceof Stripe.errors.StripeSignatureVerificationError) return undefined;
    throw erreur;
  }
};

/** The signing secret of this stage's webhook endpoint, or undefined when payments are not configured. */
export const lireSecretStripe = async (env: NodeJS.ProcessEnv): Promise<string | undefined> => {
  if (env.RETOUCHE_STRIPE_SECRET) return env.RETOUCHE_STRIPE_SECRET;
  if (!env.RETOUCHE_STRIPE_SECRET_ARN) return undefined;
  const { lireSecret } = await import('./client-secrets-manager');
  const secret = await lireSecret(env.RETOUCHE_STRIPE_SECRET_ARN);
  // The stack creates the secret with a placeholder; the operator puts the endpoint's whsec_… there.
  if (!secret?.startsWith('whsec_')) throw new Error("the Stripe webhook secret is not set: put the endpoint's signing secret (whsec_…) in it");
  return secret;
};
