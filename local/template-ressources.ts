/**
 * The template's stateful resources on their stand-ins, for its local run (local/pile-template.ts):
 * its one table (created from the template's key schema and indexes), its one bucket, its secrets and
 * its queues, each named for this run, with the ARNs and URLs the references to them become.
 */
import path from 'node:path';
import { CreateTableCommand, DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { clientDynamoLocal } from './dynamodb';
import { demarrerS3, type S3Local } from './s3';
import { demarrerSecrets } from './secrets';
import { demarrerSqs, type SqsLocal } from './sqs';
import { COMPTE, parType, REGION, type Ressource, type Template } from './template-synthese';

export interface Ressources {
  idTable: string;
  idSeau: string;
  idMachine: string;
  idApi: string;
  /** The state machine's resource, whose definition is run. */
  machine: Ressource;
  nomTable: string;
  nomSeau: string;
  dynamo: DynamoDBClient;
  s3: S3Local;
  secrets: Awaited<ReturnType<typeof demarrerSecrets>>;
  sqs: SqsLocal;
  /** Logical ids of the template's queues. */
  idsFiles: string[];
  arnMachine: string;
  arnSecret(id: string): string;
  arnFonction(id: string): string;
  urlFile(id: string): string;
  arnFile(id: string): string;
}

/** The template's table, as CloudFormation would create it (on-demand: its capacity settings are not reproduced). */
const creerTable = async (dynamo: DynamoDBClient, nomTable: string, table: Ressource) => {
  const pt = table.Properties!;
  await dynamo.send(
    new CreateTableCommand({
      TableName: nomTable,
      AttributeDefinitions: pt.AttributeDefinitions,
      KeySchema: pt.KeySchema,
      BillingMode: 'PAY_PER_REQUEST',
      ...(pt.GlobalSecondaryIndexes
        ? {
            GlobalSecondaryIndexes: (pt.GlobalSecondaryIndexes as any[]).map((i) => ({
              IndexName: i.IndexName,
              KeySchema: i.KeySchema,
              Projection: i.Projection,
            })),
          }
        : {}),
    }),
  );
  await dynamo.send(new DescribeTableCommand({ TableName: nomTable }));
};

/** Each stand-in's stop is pushed on `arrets` as it starts; `unique` names this run's table and bucket. */
export const demarrerRessources = async (
  t: Template,
  dynamoEndpoint: string,
  temporaire: string,
  unique: string,
  arrets: (() => Promise<void>)[],
): Promise<Ressources> => {
  const [tables, seaux, machines, apis] = ['AWS::DynamoDB::Table', 'AWS::S3::Bucket', 'AWS::StepFunctions::StateMachine', 'AWS::ApiGateway::RestApi'].map(
    (type) => parType(t, type),
  );
  if (tables!.length !== 1 || seaux!.length !== 1 || machines!.length !== 1 || apis!.length !== 1)
    throw new Error('expected one table, one bucket, one state machine, one REST API');
  const [idTable, table] = tables![0]!;
  const [idSeau] = seaux![0]!;
  const [idMachine, machine] = machines![0]!;
  const [idApi] = apis![0]!;
  const nomTable = `retouche-template-${unique}`;
  const nomSeau = `retouche-template-${unique}`;
  const dynamo = clientDynamoLocal(dynamoEndpoint);
  await creerTable(dynamo, nomTable, table);
  const s3 = await demarrerS3({ dossier: path.join(temporaire, 's3'), seaux: [nomSeau] });
  arrets.push(s3.arreter);
  const arnSecret = (id: string) => `arn:aws:secretsmanager:${REGION}:${COMPTE}:secret:${id}`;
  const secrets = await demarrerSecrets(parType(t, 'AWS::SecretsManager::Secret').map(([id]) => arnSecret(id)));
  arrets.push(secrets.arreter);
  // The queues: started whether the template has any or not (an idle server), each named by its logical id.
  const sqs = await demarrerSqs({ region: REGION, compte: COMPTE });
  arrets.push(sqs.arreter);
  return {
    idTable,
    idSeau,
    idMachine,
    idApi,
    machine,
    nomTable,
    nomSeau,
    dynamo,
    s3,
    secrets,
    sqs,
    idsFiles: parType(t, 'AWS::SQS::Queue').map(([id]) => id),
    arnMachine: `arn:aws:states:${REGION}:${COMPTE}:stateMachine:${idMachine}`,
    arnSecret,
    arnFonction: (id) => `arn:aws:lambda:${REGION}:${COMPTE}:function:${id}`,
    urlFile: (id) => `${sqs.endpoint}/${COMPTE}/${id}`,
    arnFile: (id) => `arn:aws:sqs:${REGION}:${COMPTE}:${id}`,
  };
};
