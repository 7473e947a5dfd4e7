/**
 * Sending TransactWriteItems, whose items the record modules of this folder build (`elementXxx`) and
 * the domain composes. `avecReessais` retries on conflicts: two transactions touching the same account
 * item at once make DynamoDB cancel one with `TransactionConflict`; the SDK does not retry a
 * cancellation, so concurrent requests of one account would fail for no reason. A cancellation for a
 * failed condition is an answer, not a fault: it is rethrown at once. `ecrire` sends once.
 *
 * With an `echeance` (epoch ms), no attempt outlives it: the call is aborted then, and the caller
 * learns that the outcome is unknown (`ResultatInconnu`) rather than waiting past its own deadline.
 * Only a cancellation (TransactionCanceledException) says for sure that nothing was written: the
 * domain reads it through `raisonsAnnulation`, one reason per item, in the items' order.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DepsTable } from './table';

const ESSAIS = 12;

/** One item of a TransactWriteItems: a Put, Update, Delete or ConditionCheck built by a record module. */
export type ElementTransaction = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** The transaction was sent but no answer came back in time: it may or may not have committed. */
export class ResultatInconnu extends Error {
  override readonly name = 'ResultatInconnu';
}

const estConflit = (erreur: unknown): boolean =>
  (erreur instanceof TransactionCanceledException &&
    (erreur.CancellationReasons ?? []).some((r) => r.Code === 'TransactionConflict') &&
    !(erreur.CancellationReasons ?? []).some((r) => r.Code === 'ConditionalCheckFailed')) ||
  (erreur as Error).name === 'TransactionConflictException' ||
  // Same ClientRequestToken while the first attempt is still being applied.
  (erreur as Error).name === 'TransactionInProgressException';

export const avecReessais = async (d: Pick<DepsTable, 'ddb'>, entree: TransactWriteCommandInput, options: { echeance?: number } = {}): Promise<void> => {
  for (let essai = 1; ; essai++) {
    const reste = options.echeance === undefined ? undefined : options.echeance - Date.now();
    if (reste !== undefined && reste <= 0) throw new ResultatInconnu('no time left to commit the transaction');
    try {
      await d.ddb.send(new TransactWriteCommand(entree), reste === undefined ? {} : { abortSignal: AbortSignal.timeout(reste) });
      return;
    } catch (erreur) {
      if (erreur instanceof TransactionCanceledException && !estConflit(erreur)) throw erreur;
      if ((erreur as Error).name === 'AbortError' || (erreur as Error).name === 'TimeoutError') {
        if (options.echeance !== undefined) throw new ResultatInconnu(`the transaction got no answer in time: ${(erreur as Error).message}`);
      }
      if (!estConflit(erreur) || essai >= ESSAIS) throw erreur;
      // Full jitter: concurrent writers of one account spread out instead of colliding again.
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(1000, 20 * 2 ** essai)));
    }
  }
};

/** One attempt, no retry: for writers that read again and decide themselves after a cancellation. */
export const ecrire = async (d: Pick<DepsTable, 'ddb'>, elements: ElementTransaction[]): Promise<void> => {
  await d.ddb.send(new TransactWriteCommand({ TransactItems: elements }));
};

/** A single write refused by its condition (not a transaction's cancellation: raisonsAnnulation reads those). */
export const estConditionEchouee = (erreur: unknown): boolean => (erreur as Error | undefined)?.name === 'ConditionalCheckFailedException';

/** A conditional write: true when it was made, false when its condition failed (anything else is thrown). */
export const ecritSi = (envoi: Promise<unknown>): Promise<boolean> =>
  envoi.then(
    () => true,
    (erreur: unknown) => {
      if (estConditionEchouee(erreur)) return false;
      throw erreur;
    },
  );

/** Why DynamoDB refused one item of a cancelled transaction. */
export interface RaisonAnnulation {
  /** `ConditionalCheckFailed`, `TransactionConflict`, `None` (this item was fine)… */
  Code?: string;
  /** The item as it was, for an item asked `ReturnValuesOnConditionCheckFailure: 'ALL_OLD'` whose condition failed. */
  Item?: Record<string, unknown>;
}

/**
 * The reasons of a cancelled transaction, one per item in the order they were sent; undefined when the
 * error is no cancellation (nothing is known then about what was written). Cancellation reasons come
 * back in DynamoDB's wire format, which the document client does not convert: items are converted here.
 */
export const raisonsAnnulation = (erreur: unknown): RaisonAnnulation[] | undefined =>
  erreur instanceof TransactionCanceledException
    ? (erreur.CancellationReasons ?? []).map((r) => ({ Code: r.Code, ...(r.Item ? { Item: unmarshall(r.Item) } : {}) }))
    : undefined;
