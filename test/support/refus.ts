/** Runs `fn` and returns the ErreurApi it throws; fails the test if it throws nothing else. */
import { expect } from 'vitest';
import { ErreurApi } from '../../lambdas/core/modele/erreurs';

export const refus = (fn: () => unknown): ErreurApi => {
  try {
    fn();
  } catch (erreur) {
    expect(erreur).toBeInstanceOf(ErreurApi);
    return erreur as ErreurApi;
  }
  throw new Error('expected a refusal');
};
