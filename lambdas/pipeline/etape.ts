/**
 * What every pipeline step shares. A step throws `ErreurTravail` for what retrying cannot fix (its
 * name is the job's error code); any other failure (a DynamoDB or S3 hiccup, a bug) is rethrown as
 * `erreur_transitoire`, which the state machine retries with backoff before refunding.
 */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type { Dependances } from '../core/dependances';
import { ErreurTravail } from '../core/erreurs';
import { journal } from '../core/journal';
import type { EntreeExecution } from '../core/executions';
import type { FormatImage } from '../core/images';
import type { ControleStructure } from '../moteurs/commun/controle';
import type { Redaction } from '../moteurs/commun/moteur';

/** The state as it flows through the state machine (see statemachines/travail.asl.json). */
export interface EtatExecution extends EntreeExecution {
  preparation?: { entrees: string[] };
  sortie?: SortieOutil;
  fin?: { lot_a_finaliser: boolean };
  echec?: { Error?: string; Cause?: string };
}

/**
 * What the tool step hands to Enregistrer, through the execution's state. Step Functions keeps every
 * state's input and output in the execution's history for 90 days, and nothing can erase it
 * (core/effacement.ts cannot reach it): so no customer content travels here — the result files by
 * format only (Enregistrer makes their keys and names from the job record) and the listing text by
 * its S3 key. Ids, seeds and scores only.
 */
export interface SortieOutil {
  resultats: { format: FormatImage }[];
  /** S3 key of the listing text (cles-s3.ts, cleTexte), for annonce. */
  texte: string | null;
  graine: number | null;
  /** For a listing text: who wrote it (moteurs/commun/moteur.ts). */
  redaction?: Redaction | null;
  /** For an image: the structure check it passed (moteurs/commun/controle.ts). */
  structure?: ControleStructure | null;
}

export const etape = <D extends Dependances, S>(deps: () => Promise<D>, nom: string, fn: (etat: EtatExecution, d: D) => Promise<S>) =>
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
