/**
 * The sweeper's decision for an open job, and the state machine's promises it relies on: every task
 * caught, the execution bounded by the same duration the sweeper assumes, permanent errors not
 * retried, Lambda timeouts retried where a retry can help.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BORNE_LOT_MS, BORNE_RELANCE_MS, BORNE_TRAVAIL_MS, decider, DUREE_MAX_EXECUTION_MS, DUREE_MAX_TACHE_MS } from '../../lambdas/core/domaine/balayage';
import { nomExecution, arnExecution } from '../../lambdas/core/infra/executions';

const MINUTE = 60_000;
const jeune = 5 * MINUTE;
const vieux = BORNE_RELANCE_MS - DUREE_MAX_EXECUTION_MS + MINUTE;

describe('the sweeper decides from the record, the execution and the age', () => {
  it('leaves a running execution alone, whatever its age', () => {
    expect(decider({ statut: 'en_cours' }, { statut: 'RUNNING' }, jeune)).toEqual({ action: 'laisser' });
    expect(decider({ statut: 'en_attente' }, { statut: 'RUNNING' }, vieux)).toEqual({ action: 'laisser' });
  });

  it('starts a job that never started while its run still fits in the bound, then refunds it', () => {
    expect(decider({ statut: 'en_attente' }, { statut: 'ABSENTE' }, jeune)).toEqual({ action: 'demarrer' });
    expect(decider({ statut: 'en_attente', tentative: 2 }, { statut: 'ABSENTE' }, jeune)).toEqual({ action: 'demarrer' });
    expect(decider({ statut: 'en_attente' }, { statut: 'ABSENTE' }, vieux)).toMatchObject({ action: 'rembourser', erreur: { code: 'demarrage_impossible' } });
  });

  it('runs a lost, aborted or wrongly ended job again once, then refunds it', () => {
    for (const statut of ['ABSENTE', 'ABORTED', 'SUCCEEDED'] as const) {
      expect(decider({ statut: 'en_cours' }, { statut }, jeune)).toEqual({ action: 'relancer' });
      expect(decider({ statut: 'en_cours', tentative: 2 }, { statut }, jeune)).toMatchObject({ action: 'rembourser', erreur: { code: 'erreur_interne' } });
      expect(decider({ statut: 'en_cours' }, { statut }, vieux)).toMatchObject({ action: 'rembourser', erreur: { code: 'erreur_interne' } });
    }
  });

  it("refunds a failed execution (its refund failed) with the job's own error, and a timed-out one", () => {
    const echec = { statut: 'FAILED' as const, erreur: { Error: 'contenu_refuse', Cause: JSON.stringify({ errorMessage: 'The model refused this image.' }) } };
    expect(decider({ statut: 'en_cours' }, echec, jeune)).toEqual({
      action: 'rembourser',
      erreur: { code: 'contenu_refuse', message: 'The model refused this image.' },
    });
    expect(decider({ statut: 'en_cours' }, { statut: 'FAILED', erreur: { Error: 'States.Runtime', Cause: 'bad path' } }, jeune)).toMatchObject({
      action: 'rembourser',
      erreur: { code: 'erreur_interne' },
    });
    expect(decider({ statut: 'en_cours' }, { statut: 'TIMED_OUT' }, jeune)).toMatchObject({ action: 'rembourser', erreur: { code: 'moteur_indisponible' } });
  });

  it('leaves a timed-out or aborted execution alone while the step it invoked may still run (issue 21, point 6)', () => {
    const maintenant = Date.parse('2026-11-26T12:00:00Z');
    for (const statut of ['TIMED_OUT', 'ABORTED'] as const) {
      const recente = { statut, arretee_le: maintenant - DUREE_MAX_TACHE_MS + 1000 };
      expect(decider({ statut: 'en_cours' }, recente, jeune, maintenant), statut).toEqual({ action: 'laisser' });
      const ancienne = { statut, arretee_le: maintenant - DUREE_MAX_TACHE_MS - 1000 };
      expect(decider({ statut: 'en_cours' }, ancienne, jeune, maintenant).action, statut).not.toBe('laisser');
    }
    // Longer than the tool function may run (lib/flux.ts: 5 minutes).
    expect(DUREE_MAX_TACHE_MS).toBeGreaterThan(5 * 60_000);
  });

  it('names executions by job id, the re-run with -2', () => {
    expect(nomExecution({ id: 'abc' })).toBe('abc');
    expect(nomExecution({ id: 'abc', tentative: 2 })).toBe('abc-2');
    expect(arnExecution('arn:aws:states:eu-west-1:123:stateMachine:Travail', 'abc-2')).toBe('arn:aws:states:eu-west-1:123:execution:Travail:abc-2');
  });

  it('states a bound for jobs and a longer one for batches', () => {
    expect(BORNE_TRAVAIL_MS).toBeGreaterThan(BORNE_RELANCE_MS);
    expect(BORNE_LOT_MS).toBeGreaterThan(BORNE_TRAVAIL_MS);
    expect(BORNE_TRAVAIL_MS / MINUTE).toBe(62);
    expect(BORNE_LOT_MS / MINUTE).toBe(88);
  });
});

interface Tache {
  Type: string;
  Default?: string;
  Retry?: { ErrorEquals: string[]; MaxAttempts?: number }[];
  Catch?: { ErrorEquals: string[]; Next: string }[];
  Next?: string;
}
const definition = JSON.parse(readFileSync(new URL('../../statemachines/travail.asl.json', import.meta.url), 'utf8')) as {
  TimeoutSeconds: number;
  States: Record<string, Tache & { ErrorPath?: string; CausePath?: string }>;
};
const taches = Object.entries(definition.States).filter(([, e]) => e.Type === 'Task');

describe('the state machine never dies silently', () => {
  it('bounds every execution by the duration the sweeper assumes', () => {
    expect(definition.TimeoutSeconds * 1000).toBe(DUREE_MAX_EXECUTION_MS);
  });

  it('catches every task', () => {
    for (const [nom, tache] of taches) expect(tache.Catch?.[0]?.ErrorEquals, nom).toEqual(['States.ALL']);
  });

  it('never retries everything: permanent errors (a job error, a bug) go straight to their Catch', () => {
    for (const [nom, tache] of taches) {
      const erreurs = (tache.Retry ?? []).flatMap((r) => r.ErrorEquals);
      expect(erreurs, nom).not.toContain('States.ALL');
      expect(erreurs, nom).not.toContain('States.TaskFailed');
      expect(erreurs, nom).not.toContain('erreur_interne');
      expect(erreurs, nom).not.toContain('contenu_refuse');
    }
  });

  it("retries a Lambda timeout (Lambda.Unknown) and Lambda's transient failures in every task", () => {
    for (const [nom, tache] of taches) {
      const erreurs = (tache.Retry ?? []).flatMap((r) => r.ErrorEquals);
      for (const e of [
        'Lambda.Unknown',
        'Lambda.ServiceException',
        'Lambda.ClientExecutionTimeoutException',
        'Lambda.TooManyRequestsException',
        'erreur_transitoire',
      ]) {
        expect(erreurs, `${nom} retries ${e}`).toContain(e);
      }
    }
    // The tool gets one more chance after a timeout, not the long backoff meant for throttling.
    const outil = definition.States.Outil!.Retry!.find((r) => r.ErrorEquals.includes('Lambda.Unknown'));
    expect(outil?.MaxAttempts).toBe(1);
  });

  it("ends a failed refund in a Fail state that carries the job's error, and a refunded job in Succeed", () => {
    const rembourser = definition.States.Rembourser!;
    const echec = definition.States[rembourser.Catch![0]!.Next]!;
    expect(echec).toMatchObject({ Type: 'Fail', ErrorPath: '$.echec.Error', CausePath: '$.echec.Cause' });
    expect(definition.States[definition.States.LotAFinaliserApresEchec!.Default!]!.Type).toBe('Succeed');
  });
});
