/**
 * What every pipeline step shares. A step throws `ErreurTravail` for what retrying cannot fix (its
 * name is the job's error code); any other failure (a DynamoDB or S3 hiccup, a bug) is rethrown as
 * `erreur_transitoire`, which the state machine retries with backoff before refunding.
 */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { ErreurTravail } from '../core/modele/erreurs';
import { journal } from '../core/infra/journal';
import type { EntreeExecution } from '../core/infra/executions';
import type { SortieOutil } from '../core/modele/sorties';

/** The state as it flows through the state machine (see statemachines/travail.asl.json). */
export interface EtatExecution extends EntreeExecution {
  preparation?: { entrees: string[] };
  sortie?: SortieOutil;
  fin?: { lot_a_finaliser: boolean };
  echec?: { Error?: string; Cause?: string };
}

export const etape = <D, S>(deps: () => Promise<D>, nom: string, fn: (etat: EtatExecution, d: D) => Promise<S>) =>
  middy<EtatExecution, S, Error, Context>().handler(async (etat) => {
    const d = await deps();
    try {
      return await fn(etat, d);
    } catch (erreur) {
      if (erreur instanceof ErreurTravail) {
        // `message` is the logger's own key (Powertools drops an attribute of that name, with a warning).
        journal.warn(`${nom}: job error`, { travail: etat.travail, code: erreur.code, detail: erreur.message });
        throw erreur;
      }
      journal.error(`${nom}: unexpected error, retried by the state machine`, { travail: etat.travail, erreur });
      const transitoire = new Error(`${nom} failed: ${(erreur as Error).message}`);
      transitoire.name = 'erreur_transitoire';
      throw transitoire;
    }
  });
