/**
 * IAM, simulated. The local stack runs with every function's AWS calls recorded (local/enregistreur-iam.ts:
 * the IAM action, the resource's ARN on AWS, the partition keys for `dynamodb:LeadingKeys`), over
 * a representative set of scenarios: a single job, a batch and its ZIP, a failing job refunded, an
 * idempotent retry, a refused debit, a downloaded image, the direct upload flow, every GET route,
 * and the sweeper (a job that could not start, one never started within its bound, a lost
 * execution, a batch whose ZIP step died). Each call is then evaluated against that function's role
 * in the synthesized template with an IAM policy simulator (@cloud-copilot/iam-simulate): a denied
 * call fails. Least privilege as a figure: per function, the grants and actions the role has and
 * those the scenarios used; the unused ones are printed.
 */
import { AdminConfirmSignUpCommand, InitiateAuthCommand, SignUpCommand } from '@aws-sdk/client-cognito-identity-provider';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lire as lireEnregistrementTravail } from '../../lambdas/core/depots/travaux';
import { cleItem as cleCompte } from '../../lambdas/core/depots/comptes';
import { ErreurTravail } from '../../lambdas/core/modele/erreurs';
import type { Lancement, Travail } from '../../lambdas/core/modele/enregistrements';
import type { Televersement } from '../../lambdas/core/domaine/televersements';
import { creerTelechargeur } from '../../lambdas/core/infra/telechargement';
import { creerEnregistreurIam, type AppelAws } from '../../local/enregistreur-iam';
import type { Panne } from '../../local/stepfunctions';
import { appeler, attendreLot, attendreTravail, enBase64, imageTest } from '../support/client';
import { actionsAccordees, arnSurAws, correspondanceDepuis, evaluer, lireModele, synthetiserModele, type FonctionModele, type Modele } from '../support/iam';
import { travailOuvert } from '../support/invariant';
import { demarrerPileTest } from '../support/pile';
import { demarrerRecepteur } from '../support/recepteur';

type Pile = Awaited<ReturnType<typeof demarrerPileTest>>;

// A stage that sells one pack: the webhook credits it (read by the handlers when the stack makes them).
const SECRET_STRIPE = 'whsec_iam';
process.env.RETOUCHE_PACKS = JSON.stringify([{ lien: 'plink_1Iam', url: 'https://buy.stripe.com/iam', credits: 10, prix: '5 €' }]);
process.env.RETOUCHE_STRIPE_SECRET = SECRET_STRIPE;
const MINUTE = 60_000;

/** Granted to every function for the Lambda runtime and X-Ray (CloudWatch Logs, trace segments), not called by our code. */
const PLATEFORME = /^(logs:CreateLogStream|logs:PutLogEvents)$/;

let pile: Pile;
/** An account whose credits are spent between POST /travaux's balance check and its debit (its inputs are then stored). */
let viderAuStockage: string | undefined;
const enregistreur = creerEnregistreurIam(async (appel) => {
  const compte = viderAuStockage;
  if (!compte || appel.fonction !== 'Api/TravauxCreer' || appel.action !== 's3:PutObject') return;
  if (appel.ressource.type !== 'objet' || !appel.ressource.cle.includes(`/${compte}/`)) return;
  viderAuStockage = undefined;
  await pile.deps.ddb.send(
    new UpdateCommand({ TableName: pile.deps.table, Key: cleCompte(compte), UpdateExpression: 'SET credits = :z', ExpressionAttributeValues: { ':z': 0 } }),
  );
});
let decalageMs = 0;
let echecDemarrage = false;
/** Faults by image name: `<prefix>-<n>.jpg` (see `injecteur`). */
const dejaFautes = new Set<string>();

const injecteur = async (etat: string, entree: { travail?: string }): Promise<Panne | undefined> => {
  if (!entree.travail) return undefined;
  const nom = (await lireEnregistrementTravail(pile.deps, entree.travail))?.nom ?? '';
  if (nom.startsWith('perdu-') && etat === 'Outil' && !dejaFautes.has(nom)) {
    dejaFautes.add(nom);
    return { quand: 'perte' };
  }
  // FinaliserLot may run in each job's execution of the batch: all of them are lost, the sweeper writes the ZIP.
  if (nom.startsWith('zipperdu-') && etat === 'FinaliserLot') {
    dejaFautes.add('zipperdu');
    return { quand: 'perte' };
  }
  if (nom.startsWith('refuse-') && etat === 'Outil') return { quand: 'avant', erreur: new ErreurTravail('contenu_refuse') };
  return undefined;
};

const telechargeurReel = creerTelechargeur();

beforeAll(async () => {
  pile = await demarrerPileTest({
    enregistreur,
    horloge: () => new Date(Date.now() + decalageMs),
    echecDemarrage: () => echecDemarrage,
    panne: (e, x) => injecteur(e, x),
    ageMinimumBalayageMs: 0,
    // An image URL on a test host is served here; any other goes through the real SSRF-safe downloader.
    telecharger: async (url) => (new URL(url).hostname === 'photos.exemple.test' ? imageTest(11) : telechargeurReel(url)),
    // The web site's user pool: its routes are scenarios too.
    sessions: {},
    // Webhook deliveries to a receiver on this machine, two attempts a moment apart.
    webhooks: { boucleLocale: true, calendrierSecondes: [0.1] },
  });
});

/** A web site user who signed up and confirmed, signed in: their ID token (their account is made by GET /compte). */
const session = async (): Promise<string> => {
  const c = pile.cognito!;
  const email = `iam-${crypto.randomUUID()}@example.com`;
  await c.sdk.send(new SignUpCommand({ ClientId: c.client, Username: email, Password: 'Motdepasse1', UserAttributes: [{ Name: 'email', Value: email }] }));
  await c.sdk.send(new AdminConfirmSignUpCommand({ UserPoolId: c.pool, Username: email }));
  const r = await c.sdk.send(
    new InitiateAuthCommand({ ClientId: c.client, AuthFlow: 'USER_PASSWORD_AUTH', AuthParameters: { USERNAME: email, PASSWORD: 'Motdepasse1' } }),
  );
  return r.AuthenticationResult!.IdToken!;
};
afterAll(async () => pile?.arreter());

/** The sweeper as the minutes pass, until nothing is open. */
const balayerJusquaLaFin = async () => {
  for (let i = 0; i < 8; i++) {
    await pile.attendreInactivite();
    if ((await travailOuvert(pile.deps)) === 0) return;
    decalageMs = i * 13 * MINUTE;
    try {
      await pile.balayer();
    } finally {
      decalageMs = 0;
    }
  }
  await pile.attendreInactivite();
};

const attente = async (fait: () => boolean, quoi: string) => attenteAsync(async () => fait(), quoi);
const attenteAsync = async (fait: () => Promise<boolean>, quoi: string) => {
  for (const fin = Date.now() + 20_000; !(await fait());) {
    if (Date.now() > fin) throw new Error(`still waiting: ${quoi}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

const poster = (cle: string, json: unknown, entetes?: Record<string, string>) =>
  appeler<Lancement>(pile.urlBase, 'POST', '/travaux', { cle, json, ...(entetes ? { entetes } : {}) });

// The evaluation reads what the scenarios recorded: one story, never shuffled.
describe('every AWS call of the integration scenarios, against the deployed policies', { shuffle: false }, () => {
  it('runs the scenarios', { timeout: 120_000 }, async () => {
    // Public routes and an unknown path: no AWS call at all.
    expect((await appeler(pile.urlBase, 'GET', '/outils')).statut).toBe(200);
    expect((await appeler(pile.urlBase, 'GET', '/openapi.json')).statut).toBe(200);
    expect((await appeler(pile.urlBase, 'GET', '/inconnu')).statut).toBe(404);

    // Webhooks: an endpoint, a test event, a job's end delivered (with fresh links), a failed delivery
    // resent, the log, a rotated secret, the endpoint removed with a delivery still due.
    const recepteur = await demarrerRecepteur();
    recepteur.reponses.set('/', [204]);
    const recus = recepteur.recus;
    try {
      const { cle: cleWh } = await pile.creerCompte(20);
      const url = recepteur.url('/');
      const w = await appeler(pile.urlBase, 'POST', '/webhooks', { cle: cleWh, json: { url, evenements: ['travail.fini', 'lot.fini'] } });
      expect(w.statut).toBe(201);
      const test = await appeler(pile.urlBase, 'POST', `/webhooks/${w.corps.id}/test`, { cle: cleWh });
      expect(test.statut).toBe(202);
      const job = await poster(cleWh, { outil: 'ciel', images: [{ base64: enBase64(await imageTest(21)) }, { base64: enBase64(await imageTest(22)) }] });
      await attendreLot(pile.urlBase, cleWh, job.corps.lot!);
      await attente(() => recus.length >= 4, 'the test event, two jobs and the batch delivered');
      recepteur.reponses.set('/', [500]);
      const echec = await appeler(pile.urlBase, 'POST', `/webhooks/${w.corps.id}/test`, { cle: cleWh });
      const journal = async () => (await appeler(pile.urlBase, 'GET', `/webhooks/${w.corps.id}/livraisons`, { cle: cleWh })).corps.livraisons;
      await attenteAsync(async () => (await journal())[0].statut === 'en_echec', 'the failed test delivery');
      recepteur.reponses.set('/', [204]);
      expect((await appeler(pile.urlBase, 'POST', `/webhooks/${w.corps.id}/livraisons/${echec.corps.id}/renvoyer`, { cle: cleWh })).statut).toBe(202);
      await attenteAsync(async () => (await journal())[0].statut === 'reussie', 'the resent delivery');
      expect((await appeler(pile.urlBase, 'POST', `/webhooks/${w.corps.id}/secret`, { cle: cleWh })).statut).toBe(200);
      expect((await appeler(pile.urlBase, 'GET', '/webhooks', { cle: cleWh })).statut).toBe(200);
      // A delivery due when its endpoint goes: the delivery function drops it.
      recepteur.reponses.set('/', [500]);
      await appeler(pile.urlBase, 'POST', `/webhooks/${w.corps.id}/test`, { cle: cleWh });
      await attente(() => recus.length >= 9, 'the first attempt of the last test');
      expect((await appeler(pile.urlBase, 'DELETE', `/webhooks/${w.corps.id}`, { cle: cleWh })).statut).toBe(204);
      await new Promise((r) => setTimeout(r, 500));
    } finally {
      await recepteur.arreter();
    }

    // The web site's account and API pages: the account made at the first visit, a key made, used, listed, revoked.
    const jeton = await session();
    expect((await appeler(pile.urlBase, 'GET', '/compte', { cle: jeton })).statut).toBe(200);
    const cleWeb = await appeler<{ id: string; cle: string }>(pile.urlBase, 'POST', '/compte/cles', { cle: jeton, json: { nom: 'iam' } });
    expect(cleWeb.statut).toBe(201);
    expect((await appeler(pile.urlBase, 'GET', '/solde', { cle: cleWeb.corps.cle })).statut).toBe(200);
    expect((await appeler(pile.urlBase, 'GET', '/compte/cles', { cle: jeton })).statut).toBe(200);
    expect((await appeler(pile.urlBase, 'DELETE', `/compte/cles/${cleWeb.corps.id}`, { cle: jeton })).statut).toBe(204);
    // A pack bought through Stripe, then the account's movements.
    const compteWeb = (await appeler(pile.urlBase, 'GET', '/compte', { cle: jeton })).corps.id as string;
    const paye = JSON.stringify({
      id: 'evt_iam',
      type: 'checkout.session.completed',
      data: { object: { id: 'cs_iam', payment_status: 'paid', payment_link: 'plink_1Iam', payment_intent: 'pi_iam', client_reference_id: compteWeb } },
    });
    const stripe = (corps: string) =>
      appeler(pile.urlBase, 'POST', '/paiements/stripe', {
        corps,
        entetes: {
          'Content-Type': 'application/json',
          'Stripe-Signature': Stripe.webhooks.generateTestHeaderString({ payload: corps, secret: SECRET_STRIPE }),
        },
      });
    expect((await stripe(paye)).corps.statut).toBe('credite');
    // Then refunded in part: the payment read, the credits taken back.
    const rembourse = JSON.stringify({
      id: 'evt_iam_remboursement',
      type: 'charge.refunded',
      data: { object: { id: 'ch_iam', amount: 4900, amount_refunded: 490, refunded: false, payment_intent: 'pi_iam' } },
    });
    expect((await stripe(rembourse)).corps.statut).toBe('repris');
    expect((await appeler(pile.urlBase, 'GET', '/compte/mouvements', { cle: jeton })).statut).toBe(200);

    const { cle } = await pile.creerCompte(200);
    // A single job, with an Idempotency-Key, asked twice; then every GET route.
    const cleIdem = { 'Idempotency-Key': 'iam-1' };
    const seul = await poster(cle, { outil: 'ciel', images: [{ base64: enBase64(await imageTest(1)) }] }, cleIdem);
    expect(seul.statut).toBe(202);
    expect((await poster(cle, { outil: 'ciel', images: [{ base64: enBase64(await imageTest(1)) }] }, cleIdem)).corps.travaux[0]!.id).toBe(
      seul.corps.travaux[0]!.id,
    );
    expect((await attendreTravail(pile.urlBase, cle, seul.corps.travaux[0]!.id)).statut).toBe('termine');
    expect((await appeler(pile.urlBase, 'GET', '/solde', { cle })).statut).toBe(200);
    expect((await appeler(pile.urlBase, 'GET', '/travaux', { cle })).statut).toBe(200);
    expect((await appeler(pile.urlBase, 'GET', '/travaux?outil=ciel', { cle })).statut).toBe(200);
    // The MCP server: it checks the key and counts the call itself, then its tool calls the API (GET /solde) with the key.
    const mcp = await fetch(`${pile.urlBase}/mcp`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${cle}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'solde', arguments: {} } }),
    });
    expect(mcp.status).toBe(200);
    expect(JSON.stringify(await mcp.json())).toContain('credits.');

    // A batch: one image downloaded, one refused by the SSRF check (refunded), one refused by the model (refunded), one file; its ZIP.
    const lot = await poster(cle, {
      outil: 'ciel',
      images: [
        { url: 'https://photos.exemple.test/a.jpg' },
        { url: 'https://127.0.0.1/interdit.jpg' },
        { base64: enBase64(await imageTest(2)), nom: 'refuse-0.jpg' },
        { base64: enBase64(await imageTest(3, 'png')) },
      ],
    });
    expect(lot.statut).toBe(202);
    const fini = await attendreLot(pile.urlBase, cle, lot.corps.lot!);
    expect(fini).toMatchObject({ statut: 'partiel', termines: 2, echecs: 2 });
    expect((await fetch(fini.zip!.url)).status).toBe(200);

    // A debit refused (not enough credits): the check before passed, the credits went meanwhile; the stored inputs are deleted.
    const pauvre = await pile.creerCompte(10);
    viderAuStockage = pauvre.compte;
    expect((await poster(pauvre.cle, { outil: 'ciel', images: [{ base64: enBase64(await imageTest(4)) }] })).statut).toBe(402);
    expect(viderAuStockage).toBeUndefined();

    // Direct upload: POST /televersements, PUT to the signed URL, a job naming the upload.
    const annonce = await appeler<{ televersements: Televersement[] }>(pile.urlBase, 'POST', '/televersements', {
      cle,
      json: { fichiers: [{ nom: 'salon.jpg', type: 'image/jpeg', taille: (await imageTest(5)).length }] },
    });
    expect(annonce.statut).toBe(201);
    const t = annonce.corps.televersements[0]!;
    expect((await fetch(t.url, { method: t.methode, headers: t.entetes, body: await imageTest(5) })).status).toBe(200);
    const parTeleversement = await poster(cle, { outil: 'ciel', images: [{ televersement: t.id }] });
    expect(parTeleversement.statut).toBe(202);
    expect((await attendreTravail(pile.urlBase, cle, parTeleversement.corps.travaux[0]!.id)).statut).toBe('termine');

    // The sweeper. Jobs that could not start, started once the service is back.
    echecDemarrage = true;
    const enAttente = await poster(cle, { outil: 'ciel', images: [{ base64: enBase64(await imageTest(6)) }, { base64: enBase64(await imageTest(7)) }] });
    expect(enAttente.corps.travaux.map((x: Travail) => x.statut)).toEqual(['en_attente', 'en_attente']);
    await pile.balayer();
    echecDemarrage = false;
    await pile.balayer();
    expect(await attendreLot(pile.urlBase, cle, enAttente.corps.lot!)).toMatchObject({ statut: 'termine' });
    // Jobs never started within their bound: refunded, their batch closed.
    echecDemarrage = true;
    const jamais = await poster(cle, { outil: 'ciel', images: [{ base64: enBase64(await imageTest(8)) }, { base64: enBase64(await imageTest(9)) }] });
    decalageMs = 45 * MINUTE;
    try {
      expect(await pile.balayer()).toMatchObject({ rembourses: 2, lotsFinalises: 1 });
    } finally {
      decalageMs = 0;
      echecDemarrage = false;
    }
    expect(await attendreLot(pile.urlBase, cle, jamais.corps.lot!)).toMatchObject({ statut: 'echec' });
    // An execution lost in the tool step, and a batch whose ZIP step was lost: the sweeper finishes both.
    const perdu = await poster(cle, { outil: 'ciel', images: [{ base64: enBase64(await imageTest(10)), nom: 'perdu-0.jpg' }] });
    const sansZip = await poster(cle, {
      outil: 'ciel',
      images: [
        { base64: enBase64(await imageTest(12)), nom: 'zipperdu-0.jpg' },
        { base64: enBase64(await imageTest(13)), nom: 'zipperdu-1.jpg' },
      ],
    });
    expect([perdu.statut, sansZip.statut]).toEqual([202, 202]);
    await balayerJusquaLaFin();
    expect(await attendreTravail(pile.urlBase, cle, perdu.corps.travaux[0]!.id)).toMatchObject({ statut: expect.stringMatching(/^(termine|echec)$/) });
    const zipParBalayeur = await attendreLot(pile.urlBase, cle, sansZip.corps.lot!);
    expect(zipParBalayeur).toMatchObject({ statut: 'termine', en_cours: 0 });
    expect(zipParBalayeur.zip).not.toBeNull();
    expect(dejaFautes).toEqual(new Set(['perdu-0.jpg', 'zipperdu']));
    expect(await travailOuvert(pile.deps)).toBe(0);

    // Erasure: a job with its request's stored answer and its upload, a job of an ended batch (the
    // sweeper writes the ZIP again), a whole batch, and a job erased by the sweeper once it has ended.
    for (const id of [seul.corps.travaux[0]!.id, parTeleversement.corps.travaux[0]!.id, fini.travaux[0]!.id]) {
      expect((await appeler(pile.urlBase, 'DELETE', `/travaux/${id}`, { cle })).statut).toBe(200);
    }
    expect((await appeler(pile.urlBase, 'DELETE', `/lots/${sansZip.corps.lot}`, { cle })).statut).toBe(200);
    echecDemarrage = true;
    const tardif = (await poster(cle, { outil: 'ciel', images: [{ base64: enBase64(await imageTest(14)) }] })).corps.travaux[0]!.id;
    expect((await appeler(pile.urlBase, 'DELETE', `/travaux/${tardif}`, { cle })).statut).toBe(409);
    echecDemarrage = false;
    const premier = await pile.balayer();
    await pile.attendreInactivite();
    const second = await pile.balayer();
    expect([premier.lotsFinalises + second.lotsFinalises, premier.effacements + second.effacements]).toEqual([1, 1]);
    expect((await appeler(pile.urlBase, 'GET', `/travaux/${tardif}`, { cle })).statut).toBe(404);
    expect((await attendreLot(pile.urlBase, cle, lot.corps.lot!)).zip).not.toBeNull();
  });

  describe('evaluated', () => {
    let modele: Modele;
    beforeAll(() => {
      modele = lireModele(synthetiserModele('dev'));
    });

    it('the simulator refuses what a role does not grant, conditions included (the check below can fail)', async () => {
      const c = correspondanceDepuis(modele, { table: pile.deps.table, bucket: pile.deps.bucket, machine: pile.deps.machine });
      const table = arnSurAws(c, { type: 'table', table: pile.deps.table });
      const objet = (cle: string) => arnSurAws(c, { type: 'objet', bucket: pile.deps.bucket, cle });
      const cas: [string, Omit<AppelAws, 'fonction' | 'operation'>, string, string][] = [
        ['Api/Solde', { action: 'dynamodb:UpdateItem', ressource: { type: 'table', table: '' }, clesPrincipales: ['CADENCE#abc#1'] }, table, 'Allowed'],
        ['Api/Solde', { action: 'dynamodb:UpdateItem', ressource: { type: 'table', table: '' }, clesPrincipales: ['COMPTE#abc'] }, table, 'ImplicitlyDenied'],
        [
          'Api/Solde',
          { action: 'dynamodb:UpdateItem', ressource: { type: 'table', table: '' }, clesPrincipales: ['CADENCE#abc#1', 'COMPTE#abc'] },
          table,
          'ImplicitlyDenied',
        ],
        [
          'Api/TeleversementsCreer',
          { action: 'dynamodb:PutItem', ressource: { type: 'table', table: '' }, clesPrincipales: ['TRAVAIL#x'] },
          table,
          'ImplicitlyDenied',
        ],
        [
          'Api/TeleversementsCreer',
          { action: 'dynamodb:PutItem', ressource: { type: 'table', table: '' }, clesPrincipales: ['TELEVERSEMENT#x'] },
          table,
          'Allowed',
        ],
        ['Api/TravauxListe', { action: 'dynamodb:Query', ressource: { type: 'table', table: '' } }, `${table}/index/gsi3`, 'ImplicitlyDenied'],
        // Reads are bounded like writes (issue 40, point 7): GET /solde reads the caller's key and account, no job or payment.
        ['Api/Solde', { action: 'dynamodb:GetItem', ressource: { type: 'table', table: '' }, clesPrincipales: ['CLE#abc'] }, table, 'Allowed'],
        ['Api/Solde', { action: 'dynamodb:GetItem', ressource: { type: 'table', table: '' }, clesPrincipales: ['COMPTE#abc'] }, table, 'Allowed'],
        ['Api/Solde', { action: 'dynamodb:GetItem', ressource: { type: 'table', table: '' }, clesPrincipales: ['TRAVAIL#x'] }, table, 'ImplicitlyDenied'],
        ['Api/Solde', { action: 'dynamodb:GetItem', ressource: { type: 'table', table: '' }, clesPrincipales: ['PAIEMENT#pi'] }, table, 'ImplicitlyDenied'],
        // No API key record for a function that authenticates no key: a job step, the delivery function, a session-only route.
        ['Flux/Outil', { action: 'dynamodb:GetItem', ressource: { type: 'table', table: '' }, clesPrincipales: ['CLE#abc'] }, table, 'ImplicitlyDenied'],
        ['Webhooks/Livreur', { action: 'dynamodb:GetItem', ressource: { type: 'table', table: '' }, clesPrincipales: ['CLE#abc'] }, table, 'ImplicitlyDenied'],
        ['Api/ClesCreer', { action: 'dynamodb:GetItem', ressource: { type: 'table', table: '' }, clesPrincipales: ['CLE#abc'] }, table, 'ImplicitlyDenied'],
        // A batch read is allowed only if every item is of a kind the role reads.
        [
          'Api/Lot',
          { action: 'dynamodb:BatchGetItem', ressource: { type: 'table', table: '' }, clesPrincipales: ['TRAVAIL#a', 'PAIEMENT#pi'] },
          table,
          'ImplicitlyDenied',
        ],
        // A query names its partition: the account's jobs, not an endpoint's deliveries; the sweeper's open work, by its partitions.
        [
          'Api/TravauxListe',
          { action: 'dynamodb:Query', ressource: { type: 'table', table: '' }, clesPrincipales: ['COMPTE#abc'] },
          `${table}/index/gsi1`,
          'Allowed',
        ],
        [
          'Api/TravauxListe',
          { action: 'dynamodb:Query', ressource: { type: 'table', table: '' }, clesPrincipales: ['WEBHOOK#w'] },
          `${table}/index/gsi1`,
          'ImplicitlyDenied',
        ],
        [
          'Flux/Balayeur',
          { action: 'dynamodb:Query', ressource: { type: 'table', table: '' }, clesPrincipales: ['OUVERT#LOT'] },
          `${table}/index/gsi3`,
          'Allowed',
        ],
        [
          'Flux/Balayeur',
          { action: 'dynamodb:Query', ressource: { type: 'table', table: '' }, clesPrincipales: ['OUVERT#LOTS'] },
          `${table}/index/gsi3`,
          'ImplicitlyDenied',
        ],
        ['Flux/Outil', { action: 's3:GetObject', ressource: { type: 'bucket', bucket: '' } }, objet('zips/a/b.zip'), 'ImplicitlyDenied'],
        ['Flux/Outil', { action: 's3:PutObject', ressource: { type: 'bucket', bucket: '' } }, objet('entrees/a/b/0.jpg'), 'ImplicitlyDenied'],
        ['Api/Travail', { action: 'dynamodb:PutItem', ressource: { type: 'table', table: '' }, clesPrincipales: ['CADENCE#abc#1'] }, table, 'ImplicitlyDenied'],
        [
          'Flux/Balayeur',
          { action: 'states:DescribeExecution', ressource: { type: 'table', table: '' } },
          `${c.machine.aws.replace(':stateMachine:', ':execution:')}Autre:x`,
          'ImplicitlyDenied',
        ],
        ['Flux/Preparer', { action: 'secretsmanager:GetSecretValue', ressource: { type: 'table', table: '' } }, c.secretC2pa, 'ImplicitlyDenied'],
      ];
      for (const [fonction, appel, arn, attendu] of cas) {
        expect(
          await evaluer(modele.fonctions.get(fonction)!, { fonction, operation: 'test', ...appel }, arn),
          `${fonction} ${appel.action} ${arn} ${appel.clesPrincipales ?? ''}`,
        ).toBe(attendu);
      }
    });

    it('every recorded call is allowed by its function’s role; the figure of least privilege', { timeout: 60_000 }, async () => {
      const appels = enregistreur.appels;
      expect(appels.length).toBeGreaterThan(0);
      const correspondance = correspondanceDepuis(modele, { table: pile.deps.table, bucket: pile.deps.bucket, machine: pile.deps.machine });

      // Each distinct (function, action, resource, keys) once.
      const uniques = new Map<string, { appel: AppelAws; arn: string }>();
      for (const appel of appels) {
        const arn = arnSurAws(correspondance, appel.ressource);
        uniques.set(JSON.stringify([appel.fonction, appel.action, arn, appel.clesPrincipales ?? null]), { appel, arn });
      }
      const refus: string[] = [];
      // A missing key would make a ForAllValues condition vacuously true: every item call carries its keys.
      const sansCles = appels.filter(
        (a) => /^dynamodb:(GetItem|BatchGetItem|Query|PutItem|UpdateItem|DeleteItem|ConditionCheckItem)$/.test(a.action) && !a.clesPrincipales?.length,
      );
      expect(sansCles.map((a) => `${a.fonction} ${a.operation}`)).toEqual([]);
      const utilises = new Map<string, { action: string; arn: string; cles?: string[] }[]>();
      for (const { appel, arn } of uniques.values()) {
        const fonction = modele.fonctions.get(appel.fonction);
        if (!fonction) {
          refus.push(`${appel.fonction}: no such function in the template (${appel.action} ${arn})`);
          continue;
        }
        const resultat = await evaluer(fonction, appel, arn);
        if (resultat !== 'Allowed') {
          const cles = appel.clesPrincipales ? ` LeadingKeys=${JSON.stringify(appel.clesPrincipales)}` : '';
          refus.push(`${appel.fonction}: ${appel.action} (${appel.operation}) on ${arn}${cles} → ${resultat}`);
        }
        (utilises.get(appel.fonction) ?? utilises.set(appel.fonction, []).get(appel.fonction)!).push({
          action: appel.action,
          arn,
          ...(appel.clesPrincipales ? { cles: appel.clesPrincipales } : {}),
        });
      }

      // The figure: per function, grants (action × resource of its Allow statements) and actions, granted vs used.
      const lignes: string[] = [];
      const inutilises: string[] = [];
      /** Key prefixes (`dynamodb:LeadingKeys`) a grant allows that no recorded call of its action and resource touched. */
      const prefixesInutilises: string[] = [];
      let totalAccordes = 0;
      let totalUtilises = 0;
      const couvre = (motif: string, arn: string) =>
        new RegExp(
          `^${motif
            .split('*')
            .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
            .join('.*')}$`,
        ).test(arn);
      const fonctions = [...modele.fonctions.values()].filter((f) => /^(Api|Flux|Webhooks)\//.test(f.chemin)).sort((a, b) => a.chemin.localeCompare(b.chemin));
      lignes.push('function                 grants used/granted   actions used/granted');
      for (const f of fonctions) {
        const faits = utilises.get(f.chemin) ?? [];
        const accordes = accordsDe(f);
        const usages = accordes.map((g) => faits.some((u) => u.action === g.action && couvre(g.ressource, u.arn)));
        const actions = actionsAccordees(f).filter((a) => !PLATEFORME.test(a));
        const actionsUtilisees = actions.filter((a) => faits.some((u) => u.action === a));
        totalAccordes += accordes.length;
        totalUtilises += usages.filter(Boolean).length;
        lignes.push(`${f.chemin.padEnd(24)} ${`${usages.filter(Boolean).length}/${accordes.length}`.padEnd(20)} ${actionsUtilisees.length}/${actions.length}`);
        accordes.forEach((g, i) => {
          if (!usages[i]) inutilises.push(`${f.chemin}: ${g.action} on ${g.ressource}${g.condition ? ` if ${JSON.stringify(g.condition)}` : ''}`);
        });
        for (const d of f.declarations.filter((x) => x.Effect === 'Allow' && x.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'])) {
          const actionsD = [d.Action].flat();
          const ressources = [d.Resource].flat();
          const prefixes: string[] = d.Condition['ForAllValues:StringLike']['dynamodb:LeadingKeys'];
          const touches = prefixes.filter((p) =>
            faits.some((u) => actionsD.includes(u.action) && ressources.some((r) => couvre(r, u.arn)) && u.cles?.some((c) => couvre(p, c))),
          );
          const restants = prefixes.filter((p) => !touches.includes(p));
          if (restants.length > 0) prefixesInutilises.push(`${f.chemin}: ${actionsD.join(', ')} ${restants.join(' ')}`);
        }
      }
      lignes.push(`${'total'.padEnd(24)} ${totalUtilises}/${totalAccordes}`);
      const autres = [...modele.fonctions.keys()].filter((c) => !/^(Api|Flux|Webhooks)\//.test(c));
      console.log(
        [
          `IAM, simulated: ${appels.length} calls recorded, ${uniques.size} distinct, evaluated against the dev template.`,
          ...lignes,
          `(logs:CreateLogStream and logs:PutLogEvents on every role are the Lambda runtime's, not counted.)`,
          `Granted, used by no scenario (${inutilises.length}):`,
          ...inutilises.map((u) => `  - ${u}`),
          `Key prefixes granted, touched by no scenario (${prefixesInutilises.length}; lib/acces.ts says why each is granted):`,
          ...prefixesInutilises.map((u) => `  - ${u}`),
          `Not run by these scenarios (deploy-time custom resources): ${autres.join(', ')}`,
          ...(refus.length ? ['DENIED:', ...refus.map((r) => `  - ${r}`)] : []),
        ].join('\n'),
      );
      expect(refus, `calls the deployed roles would deny:\n${refus.join('\n')}`).toEqual([]);
    });
  });
});

/** Each (action, resource) an Allow statement of the role grants, apart from the runtime's. */
const accordsDe = (f: FonctionModele): { action: string; ressource: string; condition?: unknown }[] =>
  f.declarations
    .filter((d) => d.Effect === 'Allow')
    .flatMap((d) =>
      [d.Action]
        .flat()
        .flatMap((action) => [d.Resource].flat().map((ressource) => ({ action, ressource, ...(d.Condition ? { condition: d.Condition } : {}) }))),
    )
    .filter((g) => !PLATEFORME.test(g.action));
