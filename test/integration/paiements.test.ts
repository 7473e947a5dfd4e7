/**
 * Buying credits (issue 25, point 3), through the local stack: Stripe's webhook credits a paid
 * Checkout Session of a configured pack to the account it names, once — a replay, a session's second
 * event and deliveries that race credit nothing more —; a body not signed with the endpoint's secret,
 * an unknown account or link, an unpaid session credit nothing; the account page lists the packs as
 * links naming the account, and the movements (each job's debit and refund, purchases, sign-up and
 * operator credits) explain the balance. Events are signed by the `stripe` library's own test helper.
 *
 * Taking credits back (issue 38, point 4): a refund or a dispute of a credited purchase takes its
 * credits back once — replays, races, partial refunds cumulated, a refund after a dispute —, the
 * balance may go below zero and then no job starts (a 402 that says why) until it is back, and the
 * operator removes credits with a reason (admin -- remove-credits); each is a movement.
 *
 * A signing secret set after the deploy (issue 40, point 6): while the stack's secret holds its
 * placeholder the webhook answers 503 (Stripe retries), and the same warm function handles the next
 * delivery once the operator has put the whsec_… in it.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { InitiateAuthCommand } from '@aws-sdk/client-cognito-identity-provider';
import { PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creerUtilisateurWeb } from '../../exploitation/utilisateurs-web';
import { ajouterCredits, retirerCredits } from '../../lambdas/core/domaine/comptes';
import { ErreurTravail } from '../../lambdas/core/modele/erreurs';
import { creer as creerWebhook } from '../../lambdas/http/paiement-stripe';
import { demarrerSecrets } from '../../local/pile-template';
import type { Moteur } from '../../lambdas/moteurs/commun/moteur';
import { appeler, attendreTravail, enBase64, imageTest } from '../support/client';
import { demarrerPileTest } from '../support/pile';

const SECRET = `whsec_${'test'.repeat(8)}`;
const PACK = { lien: 'plink_1Test100', url: 'https://buy.stripe.com/test_100', credits: 100, prix: '49 €' };
// The handlers read their environment when the local stack creates them.
process.env.RETOUCHE_PACKS = JSON.stringify([PACK, { lien: 'plink_1Test500', url: 'https://buy.stripe.com/test_500', credits: 500, prix: '199 €' }]);
process.env.RETOUCHE_STRIPE_SECRET = SECRET;
process.env.RETOUCHE_CREDITS_INSCRIPTION = '3';

/** An engine that refuses every image: each image job ends `echec`, refunded; a listing text is written (credits spent). */
const moteurRefusant: Moteur = {
  nom: 'local',
  retoucher: () => Promise.reject(new ErreurTravail('contenu_refuse')),
  rediger: () => Promise.resolve({ texte: '# Maison', redaction: { automatique: true, intelligence_artificielle: false, modele: 'test' } }),
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
const evenement = (o: { compte: string | null; session?: string; id?: string; type?: string; paye?: boolean; lien?: string; paiement?: string }): string =>
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
        payment_intent: o.paiement ?? null,
        payment_status: o.paye === false ? 'unpaid' : 'paid',
        status: 'complete',
      },
    },
  });

const idStripe = (prefixe: string) => `${prefixe}_${crypto.randomUUID().replaceAll('-', '')}`;

/** `charge.refunded`: the charge of a PaymentIntent, `rembourse` cents of its 4900 refunded so far (Stripe's running total). */
const remboursement = (o: { paiement: string | null; rembourse?: number; id?: string }): string => {
  const rembourse = o.rembourse ?? 4900;
  return JSON.stringify({
    id: o.id ?? idStripe('evt'),
    object: 'event',
    api_version: '2025-10-29.clover',
    created: Math.floor(Date.now() / 1000),
    type: 'charge.refunded',
    livemode: false,
    data: {
      object: {
        id: `ch_${o.paiement?.slice(3) ?? 'x'}`,
        object: 'charge',
        amount: 4900,
        amount_captured: 4900,
        amount_refunded: rembourse,
        currency: 'eur',
        paid: true,
        payment_intent: o.paiement,
        refunded: rembourse >= 4900,
        status: 'succeeded',
      },
      previous_attributes: { amount_refunded: 0, refunded: false },
    },
  });
};

/** `charge.dispute.created`: the buyer's bank disputes the whole charge (a chargeback). */
const litige = (o: { paiement: string }): string =>
  JSON.stringify({
    id: idStripe('evt'),
    object: 'event',
    api_version: '2025-10-29.clover',
    created: Math.floor(Date.now() / 1000),
    type: 'charge.dispute.created',
    livemode: false,
    data: {
      object: {
        id: idStripe('dp'),
        object: 'dispute',
        amount: 4900,
        charge: `ch_${o.paiement.slice(3)}`,
        currency: 'eur',
        payment_intent: o.paiement,
        reason: 'fraudulent',
        status: 'needs_response',
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

describe('a signing secret set after the deploy (issue 40, point 6)', () => {
  it('answers 503 while the secret holds the placeholder, then handles Stripe’s retry once the operator sets it, in the same warm function', async () => {
    // The stack's secret as CloudFormation makes it (a generated placeholder), in the local Secrets Manager
    // the template runs against, read by the function through the SDK as on AWS.
    const arn = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:ApiWebhookStripe-AbCdEf';
    const sm = await demarrerSecrets([arn]);
    const aws = { AWS_ENDPOINT_URL_SECRETS_MANAGER: sm.endpoint, AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'AKIDEXEMPLE', AWS_SECRET_ACCESS_KEY: 'secret' };
    const avant = Object.fromEntries(Object.keys(aws).map((k) => [k, process.env[k]]));
    Object.assign(process.env, aws);
    try {
      const webhook = creerWebhook(async () => pile.deps, { RETOUCHE_PACKS: process.env.RETOUCHE_PACKS, RETOUCHE_STRIPE_SECRET_ARN: arn });
      const livrer = async (corps: string) => {
        const r = await webhook(
          {
            body: corps,
            headers: { 'Stripe-Signature': Stripe.webhooks.generateTestHeaderString({ payload: corps, secret: SECRET }) },
            isBase64Encoded: false,
          } as never,
          { awsRequestId: 'requete' } as never,
        );
        return { statut: r.statusCode, corps: JSON.parse(r.body) };
      };
      const { jeton, compte } = await utilisateur();
      const corps = evenement({ compte });

      for (const _ of [1, 2]) {
        const r = await livrer(corps);
        expect(r.statut).toBe(503);
        expect(r.corps.error).toEqual({ code: 'service_unavailable', message: expect.stringContaining('signing secret (whsec_…) has not been set') });
      }
      expect(await solde(jeton)).toBe(0);

      // The operator: aws secretsmanager put-secret-value --secret-id <StripeWebhookSecretArn> --secret-string whsec_…
      await new SecretsManagerClient({}).send(new PutSecretValueCommand({ SecretId: arn, SecretString: SECRET }));
      const r = await livrer(corps);
      expect(r.statut).toBe(200);
      expect(r.corps).toMatchObject({ recu: true, statut: 'credite', compte, credits: 100 });
      expect(await solde(jeton)).toBe(100);
    } finally {
      for (const [k, v] of Object.entries(avant))
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      await sm.arreter();
    }
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

  it('still explains the balance once jobs are erased: their movements stay, anonymous (date, tool, credits; no link) (issue 41, point 2)', async () => {
    const { jeton, compte } = await utilisateur();
    await ajouterCredits(pile.deps, compte, 20);
    // A listing text (3 credits spent) and a photo job this engine refuses (2 credits, refunded).
    const annonce = await appeler(pile.urlBase, 'POST', '/travaux', { cle: jeton, json: { outil: 'annonce', valeurs: { lieu: 'Gand', infos: '3 chambres' } } });
    const ciel = await appeler(pile.urlBase, 'POST', '/travaux', {
      cle: jeton,
      json: { outil: 'ciel', images: [{ base64: enBase64(await imageTest()), nom: 'villa-dupont.jpg' }] },
    });
    const ids = [annonce.corps.travaux[0].id as string, ciel.corps.travaux[0].id as string];
    expect(await attendreTravail(pile.urlBase, jeton, ids[0]!)).toMatchObject({ statut: 'termine' });
    expect(await attendreTravail(pile.urlBase, jeton, ids[1]!)).toMatchObject({ statut: 'echec', rembourse: true });
    type M = { type: string; credits: number; travail: string | null; lot: string | null; outil: string | null; date: string; efface: boolean };
    const lire = async () =>
      (await appeler(pile.urlBase, 'GET', '/compte/mouvements?limite=100', { cle: jeton })).corps as { credits: number; mouvements: M[] };
    const avant = await lire();
    expect(avant.credits).toBe(20 - 3);
    expect(avant.mouvements.reduce((n, m) => n + m.credits, 0)).toBe(avant.credits);

    for (const id of ids) expect((await appeler(pile.urlBase, 'DELETE', `/travaux/${id}`, { cle: jeton })).statut).toBe(200);
    const apres = await lire();
    expect(apres.credits).toBe(avant.credits);
    // Still the sum of its movements: the erased jobs' lines are there, with nothing that leads to them.
    expect(apres.mouvements.reduce((n, m) => n + m.credits, 0)).toBe(apres.credits);
    const sansLien = (m: M) => [m.date, m.type, m.credits, m.outil];
    expect(apres.mouvements.map(sansLien)).toEqual(avant.mouvements.map(sansLien));
    const effaces = apres.mouvements.filter((m) => m.efface).map((m) => [m.type, m.credits, m.outil, m.travail, m.lot]);
    expect(effaces.map(String).sort()).toEqual(
      [
        ['remboursement', 2, 'ciel', null, null],
        ['debit', -2, 'ciel', null, null],
        ['debit', -3, 'annonce', null, null],
      ]
        .map(String)
        .sort(),
    );
    expect(apres.mouvements.filter((m) => !m.efface).every((m) => m.travail === null && m.outil === null)).toBe(true);
    expect(JSON.stringify(apres)).not.toMatch(new RegExp(ids.join('|')));
    // Stored the same way: the account, a date, a tool, credits; no job id, name or settings.
    const { duCompte } = await import('../../lambdas/core/depots/mouvements');
    const stockes = await duCompte(pile.deps, compte, 10);
    expect(stockes).toHaveLength(3);
    for (const m of stockes) expect(Object.keys(m).sort()).toEqual(['compte', 'credits', 'date', 'nature', 'outil']);
  });

  it('is the session’s own: an API key gets 403, another user sees none of it', async () => {
    const { cle } = await pile.creerCompte(5);
    expect((await appeler(pile.urlBase, 'GET', '/compte/mouvements', { cle })).statut).toBe(403);
    const autre = await utilisateur();
    expect((await appeler(pile.urlBase, 'GET', '/compte/mouvements', { cle: autre.jeton })).corps.mouvements).toEqual([]);
  });
});

describe('a refunded or disputed payment takes its credits back (issue 38, point 4)', () => {
  /** A pack of 100 credits bought and credited, paid by the PaymentIntent it returns. */
  const acheter = async (compte: string): Promise<{ paiement: string; session: string }> => {
    const paiement = idStripe('pi');
    const session = idStripe('cs_test');
    expect((await envoyer(evenement({ compte, session, paiement }))).corps).toMatchObject({ statut: 'credite', credits: 100 });
    return { paiement, session };
  };
  const mouvements = async (jeton: string): Promise<[string, number][]> =>
    ((await appeler(pile.urlBase, 'GET', '/compte/mouvements', { cle: jeton })).corps.mouvements as { type: string; credits: number }[]).map((m) => [
      m.type,
      m.credits,
    ]);

  it('a full refund takes the pack back once: its replay, deliveries that race and a later dispute take nothing more', async () => {
    const { jeton, compte } = await utilisateur();
    const { paiement, session } = await acheter(compte);
    const corps = remboursement({ paiement });
    const reponses = await Promise.all(Array.from({ length: 6 }, () => envoyer(corps)));
    expect(reponses.map((r) => r.statut)).toEqual(Array(6).fill(200));
    expect(reponses.filter((r) => r.corps.statut === 'repris').map((r) => r.corps)).toEqual([
      expect.objectContaining({ recu: true, compte, credits: 100, repris: 100, pack: 100 }),
    ]);
    expect(reponses.filter((r) => r.corps.statut === 'deja_repris')).toHaveLength(5);
    expect((await envoyer(corps)).corps).toMatchObject({ statut: 'deja_repris', compte, repris: 100 });
    expect((await envoyer(litige({ paiement }))).corps).toMatchObject({ statut: 'deja_repris', repris: 100 });
    // The purchase's own events, delivered again, credit nothing: the once-per-session credit holds after a refund too.
    expect((await envoyer(evenement({ compte, session, paiement }))).corps).toMatchObject({ statut: 'deja_credite' });
    expect((await envoyer(evenement({ compte, session, paiement, type: 'checkout.session.async_payment_succeeded' }))).corps.statut).toBe('deja_credite');
    expect(await solde(jeton)).toBe(0);
    expect(await mouvements(jeton)).toEqual([
      ['achat_rembourse', -100],
      ['achat', 100],
    ]);
  });

  it('partial refunds take their share, rounded up and cumulated; a dispute then takes the rest; nothing beyond the pack', async () => {
    const { jeton, compte } = await utilisateur();
    const { paiement } = await acheter(compte);
    // 10.00 € of 49.00 €: 100 × 1000 / 4900 = 20.4, rounded up.
    expect((await envoyer(remboursement({ paiement, rembourse: 1000 }))).corps).toMatchObject({ statut: 'repris', credits: 21, repris: 21 });
    // 25.00 € refunded in all (Stripe's running total): 52 due, 31 more.
    expect((await envoyer(remboursement({ paiement, rembourse: 2500 }))).corps).toMatchObject({ statut: 'repris', credits: 31, repris: 52 });
    // The first refund's event, delivered late: already taken.
    expect((await envoyer(remboursement({ paiement, rembourse: 1000 }))).corps).toMatchObject({ statut: 'deja_repris', repris: 52 });
    expect((await envoyer(litige({ paiement }))).corps).toMatchObject({ statut: 'repris', credits: 48, repris: 100 });
    expect((await envoyer(remboursement({ paiement }))).corps).toMatchObject({ statut: 'deja_repris', repris: 100 });
    expect(await solde(jeton)).toBe(0);
    expect(await mouvements(jeton)).toEqual([
      ['achat_conteste', -48],
      ['achat_rembourse', -31],
      ['achat_rembourse', -21],
      ['achat', 100],
    ]);
  });

  it('a refund and a dispute that race take the pack once between them', async () => {
    const { jeton, compte } = await utilisateur();
    const { paiement } = await acheter(compte);
    const corpsRemboursement = remboursement({ paiement });
    const corpsLitige = litige({ paiement });
    const reponses = await Promise.all(Array.from({ length: 8 }, (_, i) => envoyer(i % 2 ? corpsLitige : corpsRemboursement)));
    expect(reponses.map((r) => r.statut)).toEqual(Array(8).fill(200));
    expect(reponses.filter((r) => r.corps.statut === 'repris').reduce((s, r) => s + r.corps.credits, 0)).toBe(100);
    expect(await solde(jeton)).toBe(0);
    expect((await mouvements(jeton)).reduce((s, [, n]) => s + n, 0)).toBe(0);
  });

  it('buy, spend, charge back: below zero no job starts, test keys and uploads included, with a 402 that says why, until credits bring it back', async () => {
    const { jeton, compte } = await utilisateur();
    const { paiement } = await acheter(compte);
    const annonce = { outil: 'annonce', valeurs: { lieu: 'Lyon 6e' } };
    const lance = await appeler(pile.urlBase, 'POST', '/travaux', { cle: jeton, json: annonce });
    expect(lance.statut, JSON.stringify(lance.corps)).toBe(202);
    expect(await attendreTravail(pile.urlBase, jeton, lance.corps.travaux[0].id)).toMatchObject({ statut: 'termine', rembourse: false });
    expect(await solde(jeton)).toBe(97);
    expect((await envoyer(litige({ paiement }))).corps).toMatchObject({ statut: 'repris', credits: 100 });
    expect(await solde(jeton)).toBe(-3);

    const test = (await appeler(pile.urlBase, 'POST', '/compte/cles', { cle: jeton, json: { nom: 'essais', test: true } })).corps.cle as string;
    const refus = [
      await appeler(pile.urlBase, 'POST', '/travaux', { cle: jeton, json: annonce }),
      // A test key's job costs nothing, and is refused all the same.
      await appeler(pile.urlBase, 'POST', '/travaux', { cle: test, json: annonce }),
      await appeler(pile.urlBase, 'POST', '/televersements', { cle: test, json: { fichiers: [{ type: 'image/jpeg', taille: 1000 }] } }),
      await appeler(pile.urlBase, 'POST', '/televersements', { cle: jeton, json: { fichiers: [{ type: 'image/jpeg', taille: 1000 }] } }),
    ];
    for (const r of refus) {
      expect(r.statut, JSON.stringify(r.corps)).toBe(402);
      expect(r.corps.error).toMatchObject({ code: 'insufficient_credits', credits: -3 });
      expect(r.corps.error.message).toMatch(/balance is -3 credits, below zero: credits were taken back \(a purchase refunded or disputed/);
      expect(r.corps.error.message).toMatch(/No job starts, test jobs included, until credits bring the balance back to zero or above\./);
    }
    // Back to zero: the test key's free job starts; a paid one still needs its cost.
    await ajouterCredits(pile.deps, compte, 3);
    expect((await appeler(pile.urlBase, 'POST', '/travaux', { cle: test, json: annonce })).statut).toBe(202);
    const pauvre = await appeler(pile.urlBase, 'POST', '/travaux', { cle: jeton, json: annonce });
    expect([pauvre.statut, pauvre.corps.error.message]).toEqual([402, 'This request costs 3 credits; the balance is 0.']);
    await ajouterCredits(pile.deps, compte, 5);
    expect((await appeler(pile.urlBase, 'POST', '/travaux', { cle: jeton, json: annonce })).statut).toBe(202);
    await pile.attendreInactivite();
    expect((await mouvements(jeton)).slice(-4)).toEqual([
      ['operateur', 3],
      ['achat_conteste', -100],
      ['debit', -3],
      ['achat', 100],
    ]);
  });

  it('answers 200 and takes nothing for a payment it does not know: logged for the operator', async () => {
    const { jeton, compte } = await utilisateur();
    // A purchase credited without its PaymentIntent (as before payments were recorded): its refund cannot find it.
    expect((await envoyer(evenement({ compte }))).corps.statut).toBe('credite');
    for (const corps of [remboursement({ paiement: idStripe('pi') }), remboursement({ paiement: null }), litige({ paiement: idStripe('pi') })]) {
      const r = await envoyer(corps);
      expect(r.statut).toBe(200);
      expect(r.corps).toMatchObject({ statut: 'refuse', raison: 'paiement_inconnu' });
    }
    expect(await solde(jeton)).toBe(100);
  });

  it('refuses a refund or a dispute not signed with the endpoint’s secret', async () => {
    const { jeton, compte } = await utilisateur();
    const { paiement } = await acheter(compte);
    for (const corps of [remboursement({ paiement }), litige({ paiement })]) {
      const r = await envoyer(corps, Stripe.webhooks.generateTestHeaderString({ payload: corps, secret: 'whsec_autre' }));
      expect([r.statut, r.corps.error.code]).toEqual([400, 'invalid_signature']);
    }
    expect(await solde(jeton)).toBe(100);
  });

  it('the operator removes credits with a reason (admin -- remove-credits), not below zero unless told', async () => {
    const { jeton, compte, email } = await utilisateur();
    await ajouterCredits(pile.deps, compte, 10);
    const admin = async (...args: string[]) => {
      try {
        const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'exploitation/admin.ts', ...args], {
          env: { ...process.env, RETOUCHE_DATA_DIR: pile.dossier },
        });
        return { code: 0, sortie: JSON.parse(stdout) as Record<string, unknown>, erreur: '' };
      } catch (e) {
        const echec = e as { code: number; stderr: string };
        return { code: echec.code, sortie: {}, erreur: echec.stderr };
      }
    };
    const retire = await admin('remove-credits', '--account', compte, '--credits', '4', '--reason', 'Refunded by bank transfer, ticket 812');
    expect(retire, retire.erreur).toMatchObject({ code: 0, sortie: { account: compte, removed: 4, credits: 6 } });
    expect(await admin('remove-credits', '--account', compte, '--credits', '4')).toMatchObject({ code: 2, erreur: /--reason is required/ });
    // The rules the command applies, without a process each.
    await expect(retirerCredits(pile.deps, compte, 0, 'x')).rejects.toThrow(/1 or more/);
    await expect(retirerCredits(pile.deps, compte, 4, '  ')).rejects.toThrow(/a reason is required/);
    await expect(retirerCredits(pile.deps, compte, 4, 'x'.repeat(501))).rejects.toThrow(/500 characters at most/);
    await expect(retirerCredits(pile.deps, crypto.randomUUID(), 4, 'x')).rejects.toThrow(/no account/);
    const tropLoin = await admin('remove-credits', '--account', compte, '--credits', '20', '--reason', 'Chargeback outside Stripe');
    expect(tropLoin).toMatchObject({ code: 1, erreur: /has 6 credits, fewer than 20: nothing removed \(--allow-negative/ });
    expect(await solde(jeton)).toBe(6);
    const negatif = await admin('remove-credits', '--email', email, '--credits', '20', '--reason', 'Chargeback outside Stripe', '--allow-negative');
    expect(negatif, negatif.erreur).toMatchObject({ code: 0, sortie: { account: compte, removed: 20, credits: -14 } });
    expect(await mouvements(jeton)).toEqual([
      ['retrait_operateur', -20],
      ['retrait_operateur', -4],
      ['operateur', 10],
    ]);
    // The reason is recorded for the operators; the account page shows the movement, not the note.
    const { duCompte } = await import('../../lambdas/core/depots/apports');
    expect((await duCompte(pile.deps, compte, 10)).map((a) => a.raison)).toEqual([
      'Chargeback outside Stripe',
      'Refunded by bank transfer, ticket 812',
      undefined,
    ]);
    const { corps } = await appeler(pile.urlBase, 'GET', '/compte/mouvements', { cle: jeton });
    expect(Object.keys(corps.mouvements[0]).sort()).toEqual(['credits', 'date', 'efface', 'lot', 'outil', 'travail', 'type']);
  });
});
