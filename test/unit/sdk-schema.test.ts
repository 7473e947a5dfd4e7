/**
 * The SDK's types (clients/sdk/src/schema.ts) are generated from the OpenAPI document and committed:
 * this fails when the document changed and the file was not generated again, so that the published SDK
 * never describes another interface than the one served.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { FICHIER_SCHEMA, genererSchema } from '../../clients/sdk/scripts/generer';

describe('the SDK schema', () => {
  it('is what openapi-typescript makes of the current OpenAPI document (else: npm run sdk:generer)', async () => {
    const attendu = await genererSchema();
    const committe = await readFile(FICHIER_SCHEMA, 'utf8');
    // One readable failure rather than a diff of 1 300 lines.
    expect(committe === attendu, 'clients/sdk/src/schema.ts is out of date: run `npm run sdk:generer` and commit it').toBe(true);
  });

  it('types what the SDK relies on: the operations, the error codes, one request shape per tool', async () => {
    const schema = await readFile(FICHIER_SCHEMA, 'utf8');
    for (const operation of [
      'listerOutils',
      'lireSolde',
      'listerTravaux',
      'creerTravaux',
      'creerTeleversements',
      'lireTravail',
      'effacerTravail',
      'lireLot',
      'effacerLot',
    ])
      expect(schema).toContain(`  ${operation}: {`);
    for (const code of ['invalid_tool', 'rate_limited', 'insufficient_credits', 'idempotency_key_reused']) expect(schema).toContain(`'${code}'`);
    expect(schema).toContain("outil: 'annonce';");
  });
});
