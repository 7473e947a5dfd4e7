/**
 * The local stack itself: the Step Functions API keeps AWS's semantics the handlers rely on, and the
 * admin CLI works against a running stack the way the README says (its test keys and webhook commands included).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { DescribeExecutionCommand, ExecutionAlreadyExists, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entreeExecution } from '../../lambdas/core/infra/executions';
import { demarrerPileTest } from '../support/pile';
import { appeler } from '../support/client';

const executer = promisify(execFile);
type Pile = Awaited<ReturnType<typeof demarrerPileTest>>;
let pile: Pile;

beforeAll(async () => {
  // Webhook deliveries retried twice, 100 ms apart (Standard Webhooks' 5 s, 5 min, … otherwise): a failed one within a second.
  pile = await demarrerPileTest({ webhooks: { calendrierSecondes: [0.1, 0.1] } });
});
afterAll(async () => pile?.arreter());

describe('local Step Functions API', () => {
  it('an execution name is unique: same input while running is the same execution, anything else ExecutionAlreadyExists', async () => {
    const { sfn, machine } = pile.deps;
    const nom = crypto.randomUUID();
    const input = JSON.stringify(entreeExecution({ id: nom, compte: 'personne', lot: null, outil: 'ciel' }));
    const premiere = await sfn.send(new StartExecutionCommand({ stateMachineArn: machine, name: nom, input }));
    expect(premiere.executionArn).toContain(`:execution:retouche-travail:${nom}`);
    await expect(sfn.send(new StartExecutionCommand({ stateMachineArn: machine, name: nom, input: '{"autre":1}' }))).rejects.toBeInstanceOf(
      ExecutionAlreadyExists,
    );
    await pile.attendreInactivite();
    // The job does not exist: the execution fails (Preparer cannot start it) and is reported FAILED.
    const decrite = await sfn.send(new DescribeExecutionCommand({ executionArn: premiere.executionArn }));
    expect(decrite.status).toBe('FAILED');
    await expect(sfn.send(new StartExecutionCommand({ stateMachineArn: machine, name: nom, input }))).rejects.toBeInstanceOf(ExecutionAlreadyExists);
  });
});

describe('admin CLI', () => {
  const admin = async (...args: string[]) => {
    try {
      const { stdout } = await executer(process.execPath, ['--import', 'tsx', 'exploitation/admin.ts', ...args], {
        env: { ...process.env, RETOUCHE_DATA_DIR: pile.dossier },
      });
      return { code: 0, sortie: JSON.parse(stdout) as Record<string, unknown>, erreur: '' };
    } catch (e) {
      const echec = e as { code: number; stderr: string };
      return { code: echec.code, sortie: {}, erreur: echec.stderr };
    }
  };

  it('creates an account and keys (five at most), revokes a key, adds credits — one JSON line each', async () => {
    const compte = await admin('create-account', '--credits', '7');
    expect(compte.code).toBe(0);
    expect(compte.sortie).toMatchObject({ account: expect.any(String), key: expect.stringMatching(/^rtch_/), credits: 7 });
    const cle = compte.sortie.key as string;
    expect((await appeler(pile.urlBase, 'GET', '/solde', { cle })).corps).toEqual({ credits: 7 });

    const cles: string[] = [];
    for (let i = 0; i < 4; i++) cles.push((await admin('create-key', '--account', compte.sortie.account as string)).sortie.key as string);
    const sixieme = await admin('create-key', '--account', compte.sortie.account as string);
    expect(sixieme.code).toBe(1);
    expect(sixieme.erreur).toMatch(/already has 5 active keys/);

    expect((await admin('revoke-key', '--key', cles[0]!)).sortie).toEqual({ revoked: true });
    expect((await appeler(pile.urlBase, 'GET', '/solde', { cle: cles[0] })).statut).toBe(401);
    expect((await admin('add-credits', '--account', compte.sortie.account as string, '--credits', '5')).sortie).toEqual({
      account: compte.sortie.account,
      credits: 12,
    });
    expect((await admin('frobnicate')).code).toBe(2);
  });

  it('creates a test key with --test: rtch_test_…, it reads the balance, and its job costs nothing', async () => {
    const compte = await admin('create-account', '--credits', '3');
    const account = compte.sortie.account as string;
    const cree = await admin('create-key', '--account', account, '--test');
    expect(cree.code, cree.erreur).toBe(0);
    expect(cree.sortie).toEqual({ key: expect.stringMatching(/^rtch_test_/), test: true });
    const cle = cree.sortie.key as string;
    expect((await appeler(pile.urlBase, 'GET', '/solde', { cle })).corps).toEqual({ credits: 3 });
    const lance = await appeler(pile.urlBase, 'POST', '/travaux', { cle, json: { outil: 'annonce', valeurs: { lieu: 'Gent' } } });
    expect(lance.statut, JSON.stringify(lance.corps)).toBe(202);
    expect(lance.corps).toMatchObject({ cout_total: 0, travaux: [{ test: true }] });
    const { attendreTravail } = await import('../support/client');
    expect((await attendreTravail(pile.urlBase, cle, lance.corps.travaux[0].id as string)).statut).toBe('termine');
    expect((await appeler(pile.urlBase, 'GET', '/solde', { cle })).corps).toEqual({ credits: 3 });
    // Without --test, a live key as before.
    expect((await admin('create-key', '--account', account)).sortie).toEqual({ key: expect.stringMatching(/^rtch_(?!test_)/), test: false });
  });

  it("erases an account's work: its job goes, the account, its key and its balance stay; an unknown account is refused", async () => {
    const compte = await admin('create-account', '--credits', '10');
    const cle = compte.sortie.key as string;
    const { imageTest, enBase64, attendreTravail } = await import('../support/client');
    const lance = await appeler(pile.urlBase, 'POST', '/travaux', { cle, json: { outil: 'ciel', images: [{ base64: enBase64(await imageTest(1)) }] } });
    const id = lance.corps.travaux[0].id as string;
    await attendreTravail(pile.urlBase, cle, id);
    const efface = await admin('erase-account', '--account', compte.sortie.account as string);
    expect(efface.code).toBe(0);
    expect(efface.sortie).toMatchObject({ account: compte.sortie.account, jobs: 1, batches: 0, uploads: 0, files: 2, erased_when_they_end: [] });
    expect((await appeler(pile.urlBase, 'GET', `/travaux/${id}`, { cle })).statut).toBe(404);
    expect((await appeler(pile.urlBase, 'GET', '/solde', { cle })).corps).toEqual({ credits: 8 });
    const inconnu = await admin('erase-account', '--account', crypto.randomUUID());
    expect([inconnu.code, inconnu.erreur]).toEqual([1, expect.stringMatching(/No account/)]);
  });

  it("manages an account's webhooks: added with its secret shown once, listed, tested, rotated, a failed delivery resent, deleted", async () => {
    const compte = await admin('create-account', '--credits', '0');
    const account = compte.sortie.account as string;
    const cle = compte.sortie.key as string;
    // A name that never resolves (RFC 2606): every delivery fails, without reaching anyone.
    const url = 'https://retouche-admin.invalid/hook';
    const ajoute = await admin('add-webhook', '--account', account, '--url', url, '--events', 'lot.fini');
    expect(ajoute.code, ajoute.erreur).toBe(0);
    expect(ajoute.sortie).toEqual({
      account,
      id: expect.stringMatching(/^wh_[0-9a-f]{24}$/),
      url,
      events: ['lot.fini'],
      state: 'actif',
      created_at: expect.any(String),
      test: false,
      secret: expect.stringMatching(/^whsec_/),
    });
    const id = ajoute.sortie.id as string;
    // The API sees it, as the account's own: never with its secret.
    const api = await appeler(pile.urlBase, 'GET', '/webhooks', { cle });
    expect(api.corps.webhooks).toEqual([{ id, url, evenements: ['lot.fini'], etat: 'actif', cree_le: ajoute.sortie.created_at, test: false }]);
    const liste = await admin('list-webhooks', '--account', account);
    expect(liste.sortie).toEqual({ account, webhooks: [{ id, url, events: ['lot.fini'], state: 'actif', created_at: ajoute.sortie.created_at, test: false }] });
    expect((await admin('add-webhook', '--account', account, '--url', 'https://retouche-admin.invalid/tout')).sortie.events).toEqual([
      'travail.fini',
      'lot.fini',
    ]);

    // The API's own refusals, and usage mistakes.
    expect(await admin('add-webhook', '--account', account, '--url', 'http://example.com/h')).toMatchObject({ code: 1, erreur: 'url must use https.\n' });
    expect((await admin('add-webhook', '--account', account, '--url', url, '--events', 'travail.termine')).code).toBe(2);
    expect((await admin('list-webhooks')).code).toBe(2);
    expect(await admin('list-webhooks', '--account', crypto.randomUUID())).toMatchObject({ code: 1, erreur: expect.stringMatching(/^No account/) });

    const tourne = await admin('rotate-webhook-secret', '--account', account, '--id', id);
    expect(tourne.sortie).toMatchObject({ id, secret: expect.stringMatching(/^whsec_/), previous_secret_signs_until: expect.any(String) });
    expect(tourne.sortie.secret).not.toBe(ajoute.sortie.secret);

    // A test event through the stack's queue: three attempts that cannot connect, then failed, then resent.
    const test = await admin('test-webhook', '--account', account, '--id', id);
    expect(test.sortie).toMatchObject({ id: expect.stringMatching(/^msg_/), webhook: id, type: 'webhook.test', job: null, batch: null, status: 'en_attente' });
    // Waited for on the API (each admin command is a process of its own: seconds).
    for (const fin = Date.now() + 20_000; Date.now() < fin; await new Promise((r) => setTimeout(r, 200)))
      if ((await appeler(pile.urlBase, 'GET', `/webhooks/${id}/livraisons`, { cle })).corps.livraisons[0]?.statut === 'en_echec') break;
    const journal = await admin('webhook-deliveries', '--account', account, '--id', id);
    expect(journal.sortie).toEqual({
      webhook: id,
      deliveries: [
        {
          ...test.sortie,
          status: 'en_echec',
          attempts: 3,
          next_attempt: null,
          last_attempt: { at: expect.any(String), http_status: null, error: expect.stringMatching(/^connection failed/) },
        },
      ],
    });
    const renvoi = await admin('resend-delivery', '--account', account, '--id', id, '--delivery', test.sortie.id as string);
    expect(renvoi.sortie).toMatchObject({ id: test.sortie.id, status: 'en_attente', attempts: 0 });
    // Sent again through the queue: attempted anew (and failed anew, the name still resolving nowhere).
    const avant = (journal.sortie.deliveries as { last_attempt: { at: string } }[])[0]!.last_attempt.at;
    const relivree = async () => {
      const [l] = (await appeler(pile.urlBase, 'GET', `/webhooks/${id}/livraisons`, { cle })).corps.livraisons;
      return l.statut === 'en_echec' && l.derniere_tentative.le > avant;
    };
    for (const fin = Date.now() + 20_000; Date.now() < fin && !(await relivree());) await new Promise((r) => setTimeout(r, 200));
    expect(await relivree()).toBe(true);
    const inconnue = await admin('resend-delivery', '--account', account, '--id', id, '--delivery', 'msg_aaaaaaaaaaaaaaaaaaaaaaaaaa');
    expect(inconnue).toMatchObject({ code: 1, erreur: `No delivery msg_aaaaaaaaaaaaaaaaaaaaaaaaaa for webhook ${id}.\n` });

    expect((await admin('delete-webhook', '--account', account, '--id', id)).sortie).toEqual({ account, id, deleted: true });
    expect(await admin('delete-webhook', '--account', account, '--id', id)).toMatchObject({ code: 1, erreur: `No webhook ${id}.\n` });
    expect((await appeler(pile.urlBase, 'GET', '/webhooks', { cle })).corps.webhooks.some((w: { id: string }) => w.id === id)).toBe(false);
    // About twenty admin processes, a few seconds each: more than the default minute.
  }, 180_000);
});
