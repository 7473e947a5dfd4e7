/**
 * A whole local stack for one integration test file: its own table in the shared DynamoDB Local, its
 * own S3 folder, gateway and Step Functions on free ports, short retry pauses.
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

export const demarrerPileTest = async (options: OptionsPileTest = {}) => {
  const dossier = mkdtempSync(join(tmpdir(), 'retouche-test-'));
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
