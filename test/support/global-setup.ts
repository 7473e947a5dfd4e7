/**
 * One DynamoDB Local (Java, in memory) for the whole integration run: it takes about three seconds to
 * start, so test files share it and isolate themselves with a table each.
 */
import type { TestProject } from 'vitest/node';
import { demarrerDynamo } from '../../local/dynamodb';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}

export default async function preparer(projet: TestProject) {
  const dynamo = await demarrerDynamo();
  projet.provide('dynamoEndpoint', dynamo.endpoint);
  return async () => dynamo.arreter();
}
