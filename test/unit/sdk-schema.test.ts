/**
 * The SDK's types (clients/sdk/src/schema.ts) are generated from the OpenAPI document and committed:
 * this fails when the document changed and the file was not generated again, so that the published SDK
 * never describes another interface than the one served.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { Retouche } from '../../clients/sdk/src/index';
import { FICHIER_SCHEMA, genererSchema } from '../../clients/sdk/scripts/generer';
import { documentOpenApi } from '../../lambdas/core/contrat/openapi/document';

describe('the SDK schema', () => {
  it('is what openapi-typescript makes of the current OpenAPI document (else: npm run sdk:generer)', async () => {
    const attendu = await genererSchema();
    const committe = await readFile(FICHIER_SCHEMA, 'utf8');
    // One readable failure rather than a diff of 1 300 lines.
    expect(committe === attendu, 'clients/sdk/src/schema.ts is out of date: run `npm run sdk:generer` and commit it').toBe(true);
  });

  it("has a method for every operation of the document but the web site's, and types the error codes and one request shape per tool", async () => {
    // A new operation in the document fails here until the SDK has its method (the issue asks for every endpoint).
    const methodes: Record<string, keyof Retouche> = {
      listerOutils: 'outils',
      lireSolde: 'solde',
      listerTravaux: 'travaux',
      creerTravaux: 'lancer',
      creerTeleversements: 'televersements',
      lireTravail: 'travail',
      effacerTravail: 'effacerTravail',
      lireLot: 'lot',
      effacerLot: 'effacerLot',
      lireOpenApi: 'openapi',
      listerWebhooks: 'webhooks',
      creerWebhook: 'creerWebhook',
      supprimerWebhook: 'supprimerWebhook',
      tournerSecretWebhook: 'tournerSecretWebhook',
      testerWebhook: 'testerWebhook',
      listerLivraisons: 'livraisons',
      renvoyerLivraison: 'renvoyerLivraison',
    };
    const document = documentOpenApi() as { paths: Record<string, Record<string, { operationId?: string; security?: Record<string, unknown>[] }>> };
    const toutes = Object.values(document.paths).flatMap((chemin) => Object.values(chemin));
    // The web site's own routes take a session, never a key: an SDK method for them could only be refused (403).
    const duSite = (o: { security?: Record<string, unknown>[] }) => o.security?.length === 1 && Object.keys(o.security[0]!).join() === 'session';
    const operations = toutes.flatMap((o) => (o.operationId && !duSite(o) ? [o.operationId] : []));
    expect(operations.sort()).toEqual(Object.keys(methodes).sort());
    expect(toutes.filter(duSite).map((o) => o.operationId)).toEqual(['lireCompte', 'listerCles', 'creerCle', 'revoquerCle', 'listerMouvements']);
    for (const [operation, methode] of Object.entries(methodes)) expect(typeof Retouche.prototype[methode], `${operation} → ${methode}`).toBe('function');
    const schema = await readFile(FICHIER_SCHEMA, 'utf8');
    for (const code of ['invalid_tool', 'rate_limited', 'insufficient_credits', 'idempotency_key_reused']) expect(schema).toContain(`'${code}'`);
    expect(schema).toContain("outil: 'annonce';");
  });
});
