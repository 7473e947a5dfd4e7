/**
 * Which run of a job may end it: one rule (modele/enregistrements.ts, estSaTentative) for the steps that end
 * a job (domaine/cycle.ts) and the tool step that writes its files (pipeline/service-outil.ts). An execution
 * input without `tentative` (started before runs were numbered) is run 1: before, cycle.ts read it as "any
 * run" and let such a run end a job the sweeper had run again, while the tool step read it as run 1.
 */
import { describe, expect, it } from 'vitest';
import { estSaTentative, numeroTentative } from '../../lambdas/core/modele/enregistrements';
import { entreeExecution, nomExecution } from '../../lambdas/core/infra/executions';

describe("a job's runs", () => {
  it('reads an absent run number as run 1, on the record and on the execution alike', () => {
    expect(numeroTentative({})).toBe(1);
    expect(numeroTentative({ tentative: 2 })).toBe(2);
    expect(estSaTentative({}, undefined)).toBe(true);
    expect(estSaTentative({}, 1)).toBe(true);
    expect(estSaTentative({ tentative: 1 }, undefined)).toBe(true);
  });

  it('an execution without a run number does not end a job the sweeper ran again', () => {
    expect(estSaTentative({ tentative: 2 }, undefined)).toBe(false);
    expect(estSaTentative({ tentative: 2 }, 1)).toBe(false);
    expect(estSaTentative({ tentative: 2 }, 2)).toBe(true);
    expect(estSaTentative({}, 2)).toBe(false);
  });

  it('names and numbers executions by the same reading', () => {
    const travail = { id: 't', compte: 'c', lot: null, outil: 'ciel' as const };
    expect(entreeExecution(travail).tentative).toBe(1);
    expect(nomExecution(travail)).toBe('t');
    expect(nomExecution({ id: 't', tentative: 2 })).toBe('t-2');
  });
});
