/**
 * TransactWriteItems with retries on conflicts. Two transactions touching the same account item at
 * once make DynamoDB cancel one with `TransactionConflict`; the SDK does not retry a cancellation, so
 * concurrent requests of one account would fail for no reason. A cancellation for a failed condition
 * is an answer, not a fault: it is rethrown at once.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Dependances } from './dependances';

const ESSAIS = 12;

const estConflit = (erreur: unknown): boolean =>
  (erreur instanceof TransactionCanceledException &&
    (erreur.CancellationReasons ?? []).some((r) => r.Code === 'TransactionConflict') &&
    !(erreur.CancellationReasons ?? []).some((r) => r.Code === 'ConditionalCheckFailed')) ||
  (erreur as Error).name === 'TransactionConflictException';

export const avecReessais = async (d: Pick<Dependances, 'ddb'>, entree: TransactWriteCommandInput): Promise<void> => {
  for (let essai = 1; ; essai++) {
    try {
      await d.ddb.send(new TransactWriteCommand(entree));
      return;
    } catch (erreur) {
      if (!estConflit(erreur) || essai >= ESSAIS) throw erreur;
      // Full jitter: concurrent writers of one account spread out instead of colliding again.
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(1000, 20 * 2 ** essai)));
    }
  }
};
