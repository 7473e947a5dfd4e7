/**
 * Buying credits (issue 25, point 3), through the local stack: Stripe's webhook credits a paid
 * Checkout Session of a configured pack to the account it names, once — a replay, a session's second
 * event and deliveries that race credit nothing more —; a body not signed with the endpoint's secret,
 * an unknown account or link, an unpaid session credit nothing; the account page lists the packs as
 * links naming the account, and the movements (each job's debit and refund, purchases, sign-up and
 * operator credits) explain the balance. Events are signed by the `stripe` library's own test helper.
 */
import { InitiateAuthCommand } from '@aws-sdk/client-cognito-identity-provider';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creerUtilisateurWeb } from '../../exploitation/utilisateurs-web';
import { ajouterCredits } from '../../lambdas/core/domaine/comptes';
import { ErreurTravail } from '../../lambdas/core/modele/erreurs';
import { creer as creerWebhook } from '../../lambdas/http/paiement-stripe';
import type { Moteur } from '../../lambdas/moteurs/commun/moteur';
import { appeler, attendreTravail, enBase64, imageTest } from '../support/client';
import { demarrerPileTest } from '../support/pile';

const SECRET = `whsec_${'test'.repeat(8)}`;
const PACK = { lien: 'plink_1Test100', url: 'https://buy.stripe.com/test_100', credits: 100, prix: '49 €' };
// The handlers read their environment when the local stack creates them.
process.env.RETOUCHE_PACKS = JSON.stringify([PACK, { lien: 'plink_1Test500', url: 'https://buy.stripe.com/test_500', credits: 500, prix: '199 €' }]);
process.env.RETOUCHE_STRIPE_SECRET = SECRET;
process.env.RETOUCHE_CREDITS_INSCRIPTION = '3';

/** An engine that refuses every image: each job ends `echec`, refunded. */
const moteurRefusant: Moteur = {
  nom: 'local',
  retoucher: () => Promise.reject(new ErreurTravail('contenu_refuse')),
  rediger: () => Promise.reject(new ErreurTravail('contenu_refuse')),
};

let pile: Awaited<ReturnType<typeof demarrerPileTest>>;
beforeAll(async () => {
  pile = await demarrerPileTest({ sessions: {}, moteur: moteurRefusant });
}, 60_000);
afterAll(async () => pile?.arreter());

/** A web user signed in: their ID token and account. */
const utilisateur = async (): Promise<{ jeton: string; compte: string; email: string }> => {
  const email = `acheteur-${crypto.randomUUID()}@example.com`;
  const c = pile.cognito!;
  await creerUtilisateurWeb(c, pile.deps, { email, motDePasse: 'Achete-1-pack', credits: 0 });
  const r = await c.sdk.send(
    new InitiateAuthCommand({ ClientId: c.client, AuthFlow: 'USER_PASSWORD_AUTH', AuthParameters: { USERNAME: email, PASSWORD: 'Achete-1-pack' } }),
  );
  const jeton = r.AuthenticationResult!.IdToken!;
  const compte = (await appeler(pile.urlBase, 'GET', '/compte', { cle: jeton })).corps.id as string;
  return { jeton, compte, email };
};

/** The body Stripe sends for a Checkout Session of a Payment Link (the fields we read, and some we do not). */
const evenement = (o: { compte: string | null; session?: string; id?: string; type?: string; paye?: boolean; lien?: string }): string =>
  JSON.stringify({
    id: o.id ?? `evt_${crypto.randomUUID().replaceAll('-', '')}`,
    object: 'event',
    api_version: '2025-10-29.clover',
    created: Math.floor(Date.now() / 1000),
    type: o.type ?? 'checkout.session.completed',
    livemode: false,
    data: {
      object: {
        id: o.session ?? `cs_test_${crypto.randomUUID().replaceAll('-', '')}`,
        object: 'checkout.session',
        amount_total: 4900,
        currency: 'eur',
        client_reference_id: o.compte,
        customer_details: { email: 'acheteur@example.com' },
        mode: 'payment',
        payment_link: o.lien ?? PACK.lien,
        payment_status: o.paye === false ? 'unpaid' : 'paid',
        status: 'complete',
      },
    },
  });

const envoyer = (corps: string, signature: string | null = Stripe.webhooks.generateTestHeaderString({ payload: corps, secret: SECRET })) =>
  appeler(pile.urlBase, 'POST', '/paiements/stripe', {
    corps,
    entetes: { 'Content-Type': 'application/json; charset=utf-8', ...(signature === null ? {} : { 'Stripe-Signature': signature }) },
  });

const solde = async (jeton: string): Promise<number> => (await appeler(pile.urlBase, 'GET', '/compte', { cle: jeton })).corps.credits;

describe("Stripe's webhook", () => {
  it('credits a paid session once: its replay and its second event credit nothing more', async () => {
    const { jeton, compte } = await utilisateur();
    expect(await solde(jeton)).toBe(0);
    const session = `cs_test_${crypto.randomUUID().replaceAll('-', '')}`;
    const corps = evenement({ compte, session });
    const premier = await envoyer(corps);
    expect(premier.statut).toBe(200);
    expect(premier.corps).toMatchObject({ recu: true, statut: 'credite', compte, credits: 100 });
    expect(await solde(jeton)).toBe(100);
    // Stripe delivers again (no 2xx seen in time): the same event, the same signature scheme.
    expect((await envoyer(corps)).corps).toMatchObject({ statut: 'deja_credite' });
    // A delayed payment method: "completed" then "async_payment_succeeded", two event ids, one session.
    expect((await envoyer(evenement({ compte, session, type: 'checkout.session.async_payment_succeeded' }))).corps).toMatchObject({ statut: 'deja_credite' });
    expect(await solde(jeton)).toBe(100);
  });

  it('deliveries that race credit once', async () => {
    const { jeton, compte } = await utilisateur();
    const corps = evenement({ compte, lien: 'plink_1Test500' });
    const reponses = await Promise.all(Array.from({ length: 8 }, () => envoyer(corps)));
    expect(reponses.map((r) => r.statut)).toEqual(Array(8).fill(200));
    expect(reponses.filter((r) => r.corps.statut === 'credite')).toHaveLength(1);
    expect(await solde(jeton)).toBe(500);
  });

  it('refuses a body not signed with the endpoint’s secret, and credits nothing', async () => {
    const { jeton, compte } = await utilisateur();
    const corps = evenement({ compte });
    const autres = [
      ['no header', corps, null],
      ['another secret', corps, Stripe.webhooks.generateTestHeaderString({ payload: corps, secret: 'whsec_autre' })],
      ['a changed body', corps.replace('"paid"', '"paid" '), undefined],
      ['too old', corps, Stripe.webhooks.generateTestHeaderString({ payload: corps, secret: SECRET, timestamp: Math.floor(Date.now() / 1000) - 3600 })],
      ['not a signature', corps, 'signé'],
    ] as const;
    for (const [quoi, envoye, signature] of autres) {
      const r = await envoyer(envoye, signature === undefined ? Stripe.webhooks.generateTestHeaderString({ payload: corps, secret: SECRET }) : signature);
      expect(r.statut, quoi).toBe(400);
      expect(r.corps.error.code, quoi).toBe('invalid_signature');
    }
    expect(await solde(jeton)).toBe(0);
  });

  it('answers 200 and credits nobody for an unknown account or link, an unpaid session, another event', async () => {
    const { jeton, compte } = await utilisateur();
    const cas = [
      [{ compte: crypto.randomUUID() }, { statut: 'refuse', raison: 'compte_inconnu' }],
      [{ compte: null }, { statut: 'refuse', raison: 'compte_inconnu' }],
      [{ compte: 'COMPTE#x' }, { statut: 'refuse', raison: 'compte_inconnu' }],
      [
        { compte, lien: 'plink_1Ailleurs' },
        { statut: 'refuse', raison: 'lien_inconnu' },
      ],
      [
        { compte, paye: false },
        { statut: 'ignore', raison: 'non_paye' },
      ],
      [
        { compte, type: 'checkout.session.expired' },
        { statut: 'ignore', raison: 'autre_evenement' },
      ],
    ] as const;
    for (const [o, attendu] of cas) {
      const r = await envoyer(evenement(o));
      expect(r.statut).toBe(200);
      expect(r.corps).toMatchObject(attendu);
    }
    expect(await solde(jeton)).toBe(0);
    const { corps } = await appeler(pile.urlBase, 'GET', '/compte/mouvements', { cle: jeton });
    expect(corps.mouvements).toEqual([]);
  });

  it('is a 404 on a stage that sells no credits', async () => {
    const sans = creerWebhook(async () => pile.deps, {});
    const r = await sans({ body: evenement({ compte: null }), headers: {}, isBase64Encoded: false } as never, {} as never);
    expect(r.statusCode).toBe(404);
  });
});

describe('the account page: packs and movements', () => {
  it('lists the packs as links naming the account, or null without payments', async () => {
    const { jeton, compte, email } = await utilisateur();
    const { corps } = await appeler(pile.urlBase, 'GET', '/compte', { cle: jeton });
    expect(corps.achats.packs).toHaveLength(2);
    const lien = new URL(corps.achats.packs[0].url);
    expect(corps.achats.packs[0]).toMatchObject({ id: PACK.lien, credits: 100, prix: '49 €' });
    expect(`${lien.origin}${lien.pathname}`).toBe(PACK.url);
    expect(lien.searchParams.get('client_reference_id')).toBe(compte);
    expect(lien.searchParams.get('prefilled_email')).toBe(email);
  });

  it('explains the balance: sign-up credits, a purchase, an operator’s credits, each job’s debit and refund', async () => {
    // A user who signs up on the site (not made by the admin CLI) gets the stage's sign-up credits (3 here).
    const email = `inscrit-${crypto.randomUUID()}@example.com`;
    const c = pile.cognito!;
    const { SignUpCommand, AdminConfirmSignUpCommand } = await import('@aws-sdk/client-cognito-identity-provider');
    await c.sdk.send(new SignUpCommand({ ClientId: c.client, Username: email, Password: 'Inscrit-1', UserAttributes: [{ Name: 'email', Value: email }] }));
    await c.sdk.send(new AdminConfirmSignUpCommand({ UserPoolId: c.pool, Username: email }));
    const auth = await c.sdk.send(
      new InitiateAuthCommand({ ClientId: c.client, AuthFlow: 'USER_PASSWORD_AUTH', AuthParameters: { USERNAME: email, PASSWORD: 'Inscrit-1' } }),
    );
    const jeton = auth.AuthenticationResult!.IdToken!;
    const compte = (await appeler(pile.urlBase, 'GET', '/compte', { cle: jeton })).corps.id as string;
    expect((await envoyer(evenement({ compte }))).corps.statut).toBe('credite');
    await ajouterCredits(pile.deps, compte, 7);
    const lance = await appeler(pile.urlBase, 'POST', '/travaux', { cle: jeton, json: { outil: 'ciel', images: [{ base64: enBase64(await imageTest()) }] } });
    expect(lance.statut).toBe(202);
    const travail = await attendreTravail(pile.urlBase, jeton, lance.corps.travaux[0].id);
    expect(travail).toMatchObject({ statut: 'echec', rembourse: true });

    const r = await appeler(pile.urlBase, 'GET', '/compte/mouvements', { cle: jeton });
    expect(r.statut).toBe(200);
    expect(r.corps.credits).toBe(3 + 100 + 7);
    const { mouvements } = r.corps as { mouvements: { type: string; credits: number; travail: string | null; outil: string | null; date: string }[] };
    expect(mouvements.map((m) => [m.type, m.credits, m.travail])).toEqual([
      ['remboursement', 2, travail.id],
      ['debit', -2, travail.id],
      ['operateur', 7, null],
      ['achat', 100, null],
      ['inscription', 3, null],
    ]);
    expect(mouvements.reduce((s, m) => s + m.credits, 0)).toBe(r.corps.credits);
    expect((await appeler(pile.urlBase, 'GET', '/compte/mouvements?limite=2', { cle: jeton })).corps.mouvements).toHaveLength(2);
    expect((await appeler(pile.urlBase, 'GET', '/compte/mouvements?limite=0', { cle: jeton })).statut).toBe(400);
  });

  it('is the session’s own: an API key gets 403, another user sees none of it', async () => {
    const { cle } = await pile.creerCompte(5);
    expect((await appeler(pile.urlBase, 'GET', '/compte/mouvements', { cle })).statut).toBe(403);
    const autre = await utilisateur();
    expect((await appeler(pile.urlBase, 'GET', '/compte/mouvements', { cle: autre.jeton })).corps.mouvements).toEqual([]);
  });
});
