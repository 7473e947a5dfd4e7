/**
 * The local stack itself: the Step Functions API keeps AWS's semantics the handlers rely on, and the
 * admin CLI works against a running stack the way the README says.
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
  pile = await demarrerPileTest();
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
});
