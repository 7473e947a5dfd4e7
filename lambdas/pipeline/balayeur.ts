/**
 * The sweeper's Lambda, run every minute by EventBridge (lib/flux.ts): finishes every job and batch
 * left unfinished (core/domaine/balayage.ts) and publishes its figures every run, zeros included, so that
 * "work older than the bound" and "the sweeper did not run" can both alarm.
 */
import { AGE_MINIMUM_MS, balayerASonTour } from '../core/domaine/balayage';
import { dependancesDepuisEnv } from '../core/infra/dependances-completes';
import type { Dependances } from '../core/infra/dependances';
import { journal } from '../core/infra/journal';
import { publierBalayage } from '../core/infra/mesures';

export const creer = (deps: () => Promise<Dependances>) => async () => {
  const bilan = await balayerASonTour(await deps(), { ageMinimumMs: AGE_MINIMUM_MS });
  if (!bilan) {
    // Not an error: a long run (a batch's ZIP) outlasts the minute; it publishes its figures itself.
    journal.info('sweeper: another run holds the turn; this tick is skipped');
    return { saute: true };
  }
  publierBalayage({ ...bilan, reprises: bilan.demarres + bilan.relances + bilan.rembourses + bilan.lotsFinalises });
  if (bilan.travauxEnRetard + bilan.lotsEnRetard + bilan.effacementsEnRetard > 0) journal.error('sweeper: work older than the bound', { ...bilan });
  else journal.info('sweeper: done', { ...bilan });
  return bilan;
};
export const handler = creer(() => dependancesDepuisEnv());
