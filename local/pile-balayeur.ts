/**
 * The local stack's sweeper on its timer (local/pile.ts), as the schedule runs it on AWS: locally it
 * runs at start (it finishes what a stopped or killed stack left) and then every few seconds, so work
 * left behind ends soon after the next start, not minutes later.
 */
import { balayer, type BilanBalayage } from '../lambdas/core/domaine/balayage';
import { journal } from '../lambdas/core/infra/journal';
import type { DependancesPipeline } from '../lambdas/pipeline/dependances-pipeline';

/**
 * One sweep at a time (a call while one runs gets that one); with `intervalleMs` > 0, one now and one
 * every interval, stopped (the sweep under way awaited) by what is pushed on `arrets`.
 */
export const demarrerBalayeur = (
  deps: () => DependancesPipeline,
  o: { ageMinimumMs: number; intervalleMs: number },
  arrets: (() => Promise<void>)[],
): (() => Promise<BilanBalayage>) => {
  let balayageEnCours: Promise<BilanBalayage> | undefined;
  const unBalayage = () => (balayageEnCours ??= balayer(deps(), { ageMinimumMs: o.ageMinimumMs }).finally(() => (balayageEnCours = undefined)));
  if (o.intervalleMs > 0) {
    const balayerEnFond = () => void unBalayage().catch((erreur: unknown) => journal.error('local sweeper failed; it runs again shortly', { erreur }));
    balayerEnFond();
    const minuterie = setInterval(balayerEnFond, o.intervalleMs);
    minuterie.unref();
    arrets.push(async () => {
      clearInterval(minuterie);
      await balayageEnCours?.catch(() => undefined);
    });
  }
  return unBalayage;
};
