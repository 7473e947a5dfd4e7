/**
 * One sweeper at a time without a reserved concurrency (issue 40: any reservation failed the stack on a
 * new account): the sweeper function, as deployed, takes its turn in the table (core/depots/tour-balayage.ts)
 * against the local DynamoDB. Two ticks at once: one sweeps, the other skips; a run that died without
 * giving the turn back holds it until its own timeout, not longer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DUREE_MAX_BALAYAGE_MS } from '../../lambdas/core/domaine/balayage';
import * as tour from '../../lambdas/core/depots/tour-balayage';
import type { Dependances } from '../../lambdas/core/infra/dependances';
import { creer } from '../../lambdas/pipeline/balayeur';
import { demarrerPileTest } from '../support/pile';

type Pile = Awaited<ReturnType<typeof demarrerPileTest>>;

describe("the sweeper's turn", () => {
  let pile: Pile;
  beforeAll(async () => {
    pile = await demarrerPileTest();
  });
  afterAll(async () => pile.arreter());

  const aLHeure = (ms: number): Dependances => ({ ...pile.deps, horloge: () => new Date(ms) });

  it('two ticks at once: one sweeps, the other skips; the turn is free again after', async () => {
    const sweeper = creer(async () => pile.deps);
    const issues = await Promise.all([sweeper(), sweeper(), sweeper()]);
    const sautes = issues.filter((b) => 'saute' in b);
    expect(sautes.length).toBeGreaterThanOrEqual(1);
    expect(issues.length - sautes.length).toBeGreaterThanOrEqual(1);
    // Given back: the next tick sweeps.
    expect(await sweeper()).toHaveProperty('examines');
  });

  it('a run that died holding the turn blocks the ticks until its timeout, then the next tick takes it', async () => {
    const t0 = Date.now();
    expect(await tour.prendre(aLHeure(t0), 'mort', new Date(t0 + DUREE_MAX_BALAYAGE_MS))).toBe(true);
    expect(await creer(async () => aLHeure(t0 + 60_000))()).toEqual({ saute: true });
    expect(await creer(async () => aLHeure(t0 + DUREE_MAX_BALAYAGE_MS - 1000))()).toEqual({ saute: true });
    expect(await creer(async () => aLHeure(t0 + DUREE_MAX_BALAYAGE_MS + 1000))()).toHaveProperty('examines');
    // The dead run, back late, cannot give away a turn that is no longer its own.
    expect(await tour.prendre(aLHeure(t0 + DUREE_MAX_BALAYAGE_MS + 2000), 'vivant', new Date(t0 + 2 * DUREE_MAX_BALAYAGE_MS))).toBe(true);
    await tour.rendre(pile.deps, 'mort');
    expect(await tour.prendre(aLHeure(t0 + DUREE_MAX_BALAYAGE_MS + 3000), 'autre', new Date(t0 + 3 * DUREE_MAX_BALAYAGE_MS))).toBe(false);
    await tour.rendre(pile.deps, 'vivant');
  });
});
