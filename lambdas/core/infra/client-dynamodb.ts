/** The DynamoDB document client every function uses (its own module, so a bundle takes only the clients it needs). */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export const clientDocument = (client: DynamoDBClient): DynamoDBDocumentClient =>
  DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });

/** The client of a Lambda function: region and credentials from its environment. */
export const documentDepuisEnv = (): DynamoDBDocumentClient => clientDocument(new DynamoDBClient({}));
