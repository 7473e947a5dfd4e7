/**
 * One DynamoDB Local (Java, in memory) for the whole integration run: it takes about three seconds to
 * start, so test files share it and isolate themselves with a table each. And one folder for the run,
 * where the workers' shared stacks keep their data (test/support/pile.ts, `pilePartagee`): a worker is
 * ended without a hook, so the run removes it at its end. Vitest runs the global setup of each project
 * that lists this file (integration, integration-partagee, clients): the first starts both, the others
 * reuse them, and the last one done stops them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { demarrerDynamo, type DynamoLocal } from '../../local/dynamodb';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
    dossierTests: string;
  }
}

const PARTAGE = Symbol.for('retouche.tests.dynamodb');
interface Partage {
  dynamo: Promise<DynamoLocal>;
  dossier: string;
  projets: number;
}

export default async function preparer(projet: TestProject) {
  const global = globalThis as { [PARTAGE]?: Partage };
  const partage = (global[PARTAGE] ??= { dynamo: demarrerDynamo(), dossier: mkdtempSync(join(tmpdir(), 'retouche-tests-')), projets: 0 });
  partage.projets++;
  const dynamo = await partage.dynamo;
  projet.provide('dynamoEndpoint', dynamo.endpoint);
  projet.provide('dossierTests', partage.dossier);
  return async () => {
    if (--partage.projets > 0) return;
    delete global[PARTAGE];
    rmSync(partage.dossier, { recursive: true, force: true });
    await dynamo.arreter();
  };
}
