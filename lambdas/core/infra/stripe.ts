/**
 * Stripe's webhook signature, checked as Stripe documents it (docs.stripe.com/webhooks/signature,
 * "verify manually"): the `Stripe-Signature` header is `t=<unix seconds>,v1=<hex>[,v1=<hex>…][,v0=…]`,
 * each `v1` an HMAC-SHA256 of `<t>.<raw body>` keyed with the endpoint's signing secret (the whole
 * `whsec_…` string). The body is accepted when one `v1` matches (during a secret's roll Stripe sends
 * one per secret), compared in constant time, and `t` is at most five minutes old (against replays of
 * a captured request); other schemes are ignored. The same rules as the `stripe` library's
 * `webhooks.constructEvent` (test/unit/stripe-signature.test.ts checks them against it), without
 * bundling that library: its entry holds the whole API client, about 450 KB a cold start would read
 * for one HMAC. No Stripe API is called.
 *
 * The signing secret comes from RETOUCHE_STRIPE_SECRET locally and from Secrets Manager on AWS (its ARN
 * in RETOUCHE_STRIPE_SECRET_ARN), read through secret-en-cache.ts: kept five minutes, and read again at
 * the next event while it still holds the deploy's placeholder (an operator sets it after the deploy).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type Stripe from 'stripe';
import { SecretNonConfigure, secretEnCache } from './secret-en-cache';

export type EvenementStripe = Stripe.Event;

/** Stripe's default tolerance: a signature older than this is refused. */
export const TOLERANCE_SECONDES = 300;

/** The `v1` signature of `corps` at `t` with `secret`, as Stripe computes it (hex). */
export const signatureStripe = (corps: string, t: number, secret: string): string => createHmac('sha256', secret).update(`${t}.${corps}`, 'utf8').digest('hex');

/** Whether `signature` (the header) signs `corps` with `secret` at most `TOLERANCE_SECONDES` ago. */
export const signatureValide = (corps: string, signature: string, secret: string, maintenantMs: number = Date.now()): boolean => {
  if (!corps || !secret) return false;
  let t: number | undefined;
  const v1: string[] = [];
  for (const element of signature.split(',')) {
    const egal = element.indexOf('=');
    if (egal < 0) continue;
    const [cle, valeur] = [element.slice(0, egal), element.slice(egal + 1)];
    if (cle === 't' && /^\d{1,15}$/.test(valeur)) t = Number(valeur);
    else if (cle === 'v1') v1.push(valeur);
  }
  if (t === undefined || v1.length === 0) return false;
  const attendue = Buffer.from(signatureStripe(corps, t, secret), 'utf8');
  // Every candidate is compared, each in constant time: how far a wrong one matches takes no longer.
  const trouvee = v1.map((s) => Buffer.from(s, 'utf8')).reduce((ok, s) => (s.length === attendue.length && timingSafeEqual(s, attendue)) || ok, false);
  return trouvee && Math.floor(maintenantMs / 1000) - t <= TOLERANCE_SECONDES;
};

/** The event, or undefined when the body was not signed with this secret (or too long ago). */
export const verifierEvenement = (corps: string, signature: string | undefined, secret: string, maintenantMs?: number): EvenementStripe | undefined => {
  if (!signature || !signatureValide(corps, signature, secret, maintenantMs)) return undefined;
  return JSON.parse(corps) as EvenementStripe;
};

const NON_CONFIGURE = "the Stripe webhook's signing secret is not set: put the endpoint's signing secret (whsec_…) in it";

/**
 * The reader of this stage's webhook signing secret, or undefined when payments are not configured.
 * On AWS it rejects with `SecretNonConfigure` while the secret holds anything but a whsec_… (the
 * stack creates it with a random placeholder), and is called again at the next event.
 */
export const lecteurSecretStripe = (
  env: NodeJS.ProcessEnv,
  lireSecret: (arn: string) => Promise<string | undefined> = async (arn) => (await import('./client-secrets-manager')).lireSecret(arn),
): (() => Promise<string>) | undefined => {
  const local = env.RETOUCHE_STRIPE_SECRET;
  if (local) return () => Promise.resolve(local);
  const arn = env.RETOUCHE_STRIPE_SECRET_ARN;
  if (!arn) return undefined;
  return secretEnCache(async () => {
    const secret = await lireSecret(arn);
    if (!secret?.startsWith('whsec_')) throw new SecretNonConfigure(NON_CONFIGURE);
    return secret;
  });
};
