/**
 * A whole local stack for one integration test file: its own table in the shared DynamoDB Local, its
 * own S3 folder, gateway and Step Functions on free ports, short retry pauses (`demarrerPileTest`).
 * Or the stack of the worker (`pilePartagee`), for the files of the `integration-partagee` project.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { creerCompte } from '../../lambdas/core/domaine/comptes';
import { demarrerPile, type ConfigPile } from '../../local/pile';
import { detecteurCouleurs } from '../../lambdas/moteurs/local/detecteur-local';

export type OptionsPileTest = Partial<Omit<ConfigPile, 'dossier' | 'dynamoEndpoint' | 'table'>>;

const demarrerDans = async (parent: string, options: OptionsPileTest) => {
  const dossier = mkdtempSync(join(parent, 'retouche-test-'));
  const pile = await demarrerPile({
    port: 0,
    dossier,
    dynamoEndpoint: inject('dynamoEndpoint'),
    table: `retouche-${randomUUID()}`,
    pauseReessaiMs: 5,
    intervalleBalayageMs: 0,
    // The tests' images are drawn: furniture of flat colours, which the colour rules find (a trained model reads real photos).
    detecteur: detecteurCouleurs,
    ...options,
  });
  return {
    ...pile,
    dossier,
    urlBase: pile.urlBase.replace('localhost', '127.0.0.1'),
    creerCompte: (credits: number) => creerCompte(pile.deps, credits),
    arreter: async () => {
      await pile.attendreInactivite();
      await pile.arreter();
      rmSync(dossier, { recursive: true, force: true });
    },
  };
};

export const demarrerPileTest = (options: OptionsPileTest = {}) => demarrerDans(tmpdir(), options);

export type PileTest = Awaited<ReturnType<typeof demarrerPileTest>>;

/**
 * The stack of this worker: started by the first file that asks, then handed to each next file the
 * worker runs. Only the `integration-partagee` project (vitest.config.ts) asks: `isolate: false` there,
 * so its files run one after another in one process that keeps this module, and its stack, between
 * them. What makes sharing safe is the files' own doing, checked when a file joins that project
 * (docs/tests.md): each creates its own accounts and keys and reads only what they own, never the
 * whole table (no scan, no sweep, no count of everything, no list of every execution), and changes
 * nothing of the stack (its options are the defaults of `demarrerPileTest`). A file's `arreter` waits
 * for its work to end, so the next file starts with nothing in flight; the stack itself stops with
 * its worker (vitest ends it: no hook runs then), so its folder is made in the run's (global-setup.ts),
 * which the run removes at its end.
 */
let partagee: Promise<PileTest> | undefined;
export const pilePartagee = async (): Promise<PileTest> => {
  partagee ??= demarrerDans(inject('dossierTests'), {}).catch((erreur: unknown) => {
    partagee = undefined; // the next file tries again
    throw erreur;
  });
  const pile = await partagee;
  return { ...pile, arreter: () => pile.attendreInactivite() };
};
