/**
 * What a call that should fail threw, for the tests to read: one place, instead of a try/catch restated
 * in each file. `refus` for a synchronous call that must throw an API refusal (ErreurApi); `erreurDe`
 * for whatever a call or a promise ends with instead of a value; `refusDe` the same for an API refusal;
 * `codeDe` the code of an API refusal or a job error (ErreurTravail), or 'ok' when the call succeeded;
 * `issue` what an engine answers: 'delivered', or its error's name and message.
 */
import { expect } from 'vitest';
import { ErreurApi, ErreurTravail } from '../../lambdas/core/modele/erreurs';

/** Runs `fn` and returns the ErreurApi it throws; fails the test if it throws nothing else. */
export const refus = (fn: () => unknown): ErreurApi => {
  try {
    fn();
  } catch (erreur) {
    expect(erreur).toBeInstanceOf(ErreurApi);
    return erreur as ErreurApi;
  }
  throw new Error('expected a refusal');
};

/** A call (run here) or a promise: what it throws or rejects with; fails the test if it ends well. */
export const erreurDe = async (appel: (() => unknown) | Promise<unknown>): Promise<unknown> => {
  try {
    await (typeof appel === 'function' ? appel() : appel);
  } catch (erreur) {
    return erreur;
  }
  throw new Error('expected an error');
};

/** The ErreurApi a call or a promise ends with; fails the test on success or on any other error. */
export const refusDe = async (appel: (() => unknown) | Promise<unknown>): Promise<ErreurApi> => {
  const erreur = await erreurDe(appel);
  expect(erreur).toBeInstanceOf(ErreurApi);
  return erreur as ErreurApi;
};

/** The code of the API refusal or job error a call or a promise ends with, 'ok' if it ends well; any other error fails the test. */
export const codeDe = async (appel: (() => unknown) | Promise<unknown>): Promise<string> => {
  try {
    await (typeof appel === 'function' ? appel() : appel);
  } catch (erreur) {
    expect(
      [ErreurApi, ErreurTravail].some((classe) => erreur instanceof classe),
      String(erreur),
    ).toBe(true);
    return (erreur as ErreurApi | ErreurTravail).code;
  }
  return 'ok';
};

/** What an engine answers: "delivered", or its refusal as `name: message` (a job error's name is its code). */
export const issue = (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => 'delivered',
    (e: Error) => `${e.name}: ${e.message}`,
  );
