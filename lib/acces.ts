/**
 * Least privilege, written out: each function gets the DynamoDB actions, indexes, S3 prefixes and
 * other actions its code calls, on those resources only. The grant helpers of CDK give more (every
 * index, every key, `Arn:*`), so they are not used for the table and the bucket.
 */
import { Stack } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { CfnBucket } from 'aws-cdk-lib/aws-s3';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { PREFIXES } from '../lambdas/core/retention';
import type { Fonction } from './fonction';

type ActionTable = 'GetItem' | 'BatchGetItem' | 'Query' | 'PutItem' | 'UpdateItem' | 'ConditionCheckItem' | 'DeleteItem';
type Prefixe = keyof typeof PREFIXES;
type ActionS3 = 'GetObject' | 'PutObject' | 'DeleteObject' | 'AbortMultipartUpload';

export interface Acces {
  table?: { actions: ActionTable[]; index?: string[] };
  s3?: { prefixe: Prefixe; actions: ActionS3[] }[];
  /** Starts executions of the job state machine. */
  demarrer?: boolean;
  /** Reads the link signing key. */
  signer?: boolean;
}

export interface Ressources {
  table: ITable;
  bucket: IBucket;
  machine?: IStateMachine;
  secret?: ISecret;
}

export const accorder = (fn: Fonction, r: Ressources, acces: Acces): void => {
  if (acces.table) {
    const { actions, index = [] } = acces.table;
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: actions.map((a) => `dynamodb:${a}`),
        resources: [r.table.tableArn, ...index.map((nom) => `${r.table.tableArn}/index/${nom}`)],
      }),
    );
  }
  for (const { prefixe, actions } of acces.s3 ?? []) {
    fn.addToRolePolicy(
      new PolicyStatement({ actions: actions.map((a) => `s3:${a}`), resources: [r.bucket.arnForObjects(`${PREFIXES[prefixe]}*`)] }),
    );
    const idBucket = Stack.of(r.bucket).getLogicalId(r.bucket.node.defaultChild as CfnBucket);
    fn.reconnaitre({
      id: `AwsSolutions::AwsSolutions-IAM5[Resource::<${idBucket}.Arn>/${PREFIXES[prefixe]}*]`,
      reason: `Object keys are <prefix>/<account>/<job id>/… and created at run time: the grant is one prefix (${PREFIXES[prefixe]}) of one bucket.`,
    });
  }
  if (acces.demarrer) {
    if (!r.machine) throw new Error('no state machine to start');
    fn.addToRolePolicy(new PolicyStatement({ actions: ['states:StartExecution'], resources: [r.machine.stateMachineArn] }));
  }
  if (acces.signer) {
    if (!r.secret) throw new Error('no link secret to read');
    fn.addToRolePolicy(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [r.secret.secretArn] }));
  }
};

/** What every authenticated route does before its own work: look the key up, count the request. */
export const AUTHENTIFICATION: ActionTable[] = ['GetItem', 'UpdateItem'];

