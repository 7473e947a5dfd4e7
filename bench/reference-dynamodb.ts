/**
 * The floor of bench/demarrage.ts: a handler that only builds the DynamoDB document client (with the
 * bundling of every function) and reads one item. Every authenticated route needs at least this;
 * the difference between it and a route is what the route itself costs at a cold start.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { documentDepuisEnv } from '../lambdas/core/infra/client-dynamodb';

const ddb = documentDepuisEnv();
export const handler = async (): Promise<unknown> => (await ddb.send(new GetCommand({ TableName: 'reference', Key: { pk: 'a', sk: 'a' } }))).Item;
