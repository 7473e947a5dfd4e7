/**
 * Our check of Stripe's webhook signature (core/infra/stripe.ts) against the `stripe` library's own,
 * its reference: the headers its test helper makes, and headers altered every way, are accepted or
 * refused by both alike, at the same moments around the five minutes of tolerance.
 */
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { lecteurSecretStripe, signatureStripe, TOLERANCE_SECONDES, verifierEvenement } from '../../lambdas/core/infra/stripe';
import { SecretNonConfigure } from '../../lambdas/core/infra/secret-en-cache';

const SECRET = `whsec_${'reference'.repeat(4)}`;
const AUTRE = 'whsec_autre';
const T = 1_760_000_000;
const CORPS = JSON.stringify({
  id: 'evt_1Test',
  object: 'event',
  type: 'checkout.session.completed',
  data: { object: { id: 'cs_test_1', object: 'checkout.session', client_reference_id: 'compte', customer_details: { name: 'Zoë Müller — 東京' } } },
});

/** What the `stripe` library says of this body and header at this moment: the event, or undefined for a bad signature. */
const selonStripe = (corps: string, entete: string, secret: string, maintenantMs: number): unknown => {
  try {
    return Stripe.webhooks.constructEvent(corps, entete, secret, undefined, undefined, maintenantMs);
  } catch (erreur) {
    if (erreur instanceof Stripe.errors.StripeSignatureVerificationError) return undefined;
    throw erreur;
  }
};

const entete = (o: { corps?: string; secret?: string; t?: number } = {}) =>
  Stripe.webhooks.generateTestHeaderString({ payload: o.corps ?? CORPS, secret: o.secret ?? SECRET, timestamp: o.t ?? T });

describe("Stripe's webhook signature, checked without the stripe library", () => {
  it('computes the v1 signature as the library does', () => {
    expect(`t=${T},v1=${signatureStripe(CORPS, T, SECRET)}`).toBe(entete());
  });

  const bonne = entete();
  const v1 = bonne.split(',v1=')[1]!;
  const cas: [string, string, string, string, number][] = [
    ['signed now', CORPS, bonne, SECRET, T * 1000],
    ['signed 300 s ago', CORPS, bonne, SECRET, (T + TOLERANCE_SECONDES) * 1000 + 999],
    ['signed 301 s ago', CORPS, bonne, SECRET, (T + TOLERANCE_SECONDES + 1) * 1000],
    ['signed an hour ago', CORPS, bonne, SECRET, (T + 3600) * 1000],
    ['signed in the future (a clock behind)', CORPS, bonne, SECRET, (T - 600) * 1000],
    ['another secret', CORPS, entete({ secret: AUTRE }), SECRET, T * 1000],
    ['a changed body', CORPS.replace('"compte"', '"compte2"'), bonne, SECRET, T * 1000],
    ['a space added to the body', `${CORPS} `, bonne, SECRET, T * 1000],
    ['another timestamp in the header', CORPS, bonne.replace(`t=${T}`, `t=${T + 1}`), SECRET, T * 1000],
    ['the old secret and the new one (a roll)', CORPS, `${entete({ secret: AUTRE })},v1=${v1}`, SECRET, T * 1000],
    ['two wrong v1', CORPS, `${entete({ secret: AUTRE })},v1=${'0'.repeat(64)}`, SECRET, T * 1000],
    ['v0 only', CORPS, `t=${T},v0=${v1}`, SECRET, T * 1000],
    ['v0 and v1', CORPS, `t=${T},v0=${'1'.repeat(64)},v1=${v1}`, SECRET, T * 1000],
    ['elements in another order', CORPS, `v1=${v1},t=${T}`, SECRET, T * 1000],
    ['no timestamp', CORPS, `v1=${v1}`, SECRET, T * 1000],
    ['no signature', CORPS, `t=${T}`, SECRET, T * 1000],
    ['a truncated signature', CORPS, `t=${T},v1=${v1.slice(0, 63)}`, SECRET, T * 1000],
    ['a signature in capitals', CORPS, `t=${T},v1=${v1.toUpperCase()}`, SECRET, T * 1000],
    ['spaces after the commas', CORPS, `t=${T}, v1=${v1}`, SECRET, T * 1000],
    ['not a signature', CORPS, 'signé', SECRET, T * 1000],
    ['the secret without its prefix', CORPS, entete({ secret: SECRET.slice(6) }), SECRET, T * 1000],
    ['a body of non-ASCII text', '{"a":"é💶"}', entete({ corps: '{"a":"é💶"}' }), SECRET, T * 1000],
  ];

  it.each(cas)('%s: as the library says', (_, corps, signature, secret, maintenantMs) => {
    const reference = selonStripe(corps, signature, secret, maintenantMs);
    expect(verifierEvenement(corps, signature, secret, maintenantMs)).toEqual(reference);
  });

  it('accepts and refuses as expected (the table is not all one way)', () => {
    const acceptes = cas.filter(([, c, s, k, m]) => verifierEvenement(c, s, k, m)).map(([quoi]) => quoi);
    expect(acceptes).toEqual([
      'signed now',
      'signed 300 s ago',
      'signed in the future (a clock behind)',
      'the old secret and the new one (a roll)',
      'v0 and v1',
      'elements in another order',
      'a body of non-ASCII text',
    ]);
  });

  it('refuses a missing header or an empty body, as the library does', () => {
    expect(verifierEvenement(CORPS, undefined, SECRET)).toBeUndefined();
    expect(verifierEvenement(CORPS, '', SECRET)).toBeUndefined();
    expect(verifierEvenement('', entete({ corps: '' }), SECRET, T * 1000)).toBeUndefined();
  });
});

describe("the webhook's signing secret", () => {
  it('on AWS: a placeholder is refused, then read again; a whsec_ is used', async () => {
    const valeurs = ['GeneratedPlaceholder0123', undefined, 'whsec_reel'];
    const lus: string[] = [];
    const lire = lecteurSecretStripe({ RETOUCHE_STRIPE_SECRET_ARN: 'arn:stripe' }, async (arn) => {
      lus.push(arn);
      return valeurs.shift();
    })!;
    await expect(lire()).rejects.toBeInstanceOf(SecretNonConfigure);
    await expect(lire()).rejects.toBeInstanceOf(SecretNonConfigure);
    await expect(lire()).resolves.toBe('whsec_reel');
    await expect(lire()).resolves.toBe('whsec_reel');
    expect(lus).toEqual(['arn:stripe', 'arn:stripe', 'arn:stripe']);
  });

  it('locally from the environment; none without payments', async () => {
    await expect(lecteurSecretStripe({ RETOUCHE_STRIPE_SECRET: 'whsec_local', RETOUCHE_STRIPE_SECRET_ARN: 'arn:x' })!()).resolves.toBe('whsec_local');
    expect(lecteurSecretStripe({})).toBeUndefined();
  });
});
