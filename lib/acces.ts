/**
 * Least privilege, written out: each function gets the DynamoDB actions, indexes, S3 prefixes and
 * other actions its code calls, on those resources only. The grant helpers of CDK give more (every
 * index, every key, `Arn:*`), so they are not used for the table and the bucket.
 *
 * DynamoDB writes cannot be granted on the whole table at all: UpdateItem creates an item that is not
 * there, so an unbounded update grant is a grant to write any item (an API key, an account's
 * credits). Each write is granted on the item kinds its function writes, by their key prefix.
 */
import { ArnFormat, Stack, Token } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { CfnBucket } from 'aws-cdk-lib/aws-s3';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { CfnStateMachine, StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { PREFIXES } from '../lambdas/core/modele/retention';
import { PREFIXES_TABLE } from '../lambdas/core/depots/table';
import type { Fonction } from './fonction';

/** Reads, granted on any item. Writes go through the prefixed grants below, never here. */
type ActionTable = 'GetItem' | 'BatchGetItem' | 'Query' | 'ConditionCheckItem';
/** An item kind, by its partition key prefix (lambdas/core/depots/table.ts). */
export type Genre = keyof typeof PREFIXES_TABLE;
type Prefixe = keyof typeof PREFIXES;
/** PutObjectTagging: a PutObject or CreateMultipartUpload that sets tags (the retention tag, core/modele/retention.ts) needs it too. */
type ActionS3 = 'GetObject' | 'PutObject' | 'PutObjectTagging' | 'DeleteObject' | 'AbortMultipartUpload';

export interface AccesTable {
  /** Actions on any item of the table; `Query` goes to the indexes below (every query names one). */
  actions: ActionTable[];
  index?: string[];
  /**
   * UpdateItem (also as an Update of TransactWriteItems, which IAM authorizes item by item) only on
   * these kinds of item (IAM `dynamodb:LeadingKeys`).
   */
  miseAJour?: Genre[];
  /** PutItem (also as a Put of TransactWriteItems) only on these kinds of item. */
  creation?: Genre[];
  /** DeleteItem (also as a Delete of TransactWriteItems) only on these kinds of item. */
  suppression?: Genre[];
  /**
   * Whether it may write API keys (`cle` among the kinds above): the web site's key routes only, said
   * here on purpose so that no other grant can reach a key by a slip of a list.
   */
  ecritCles?: true;
}

export interface Acces {
  table?: AccesTable;
  /** One statement per entry: these actions on the objects under each of its prefixes. */
  s3?: { prefixe: Prefixe | readonly Prefixe[]; actions: ActionS3[] }[];
  /** Starts executions of the job state machine. */
  demarrer?: boolean;
  /** Reads the state of the job state machine's executions (DescribeExecution), of that machine only. */
  suivre?: boolean;
  /** Reads the link signing key. */
  signer?: boolean;
  /** Reads the C2PA signing key and its chain (the tool step signs every result with them). */
  marquerC2pa?: boolean;
  /** Reads and writes the C2PA key's secret, its current and previous versions (the deploy-time generator only). */
  genererCleC2pa?: boolean;
}

export interface Ressources {
  table?: ITable;
  bucket?: IBucket;
  machine?: StateMachine;
  secret?: ISecret;
  /** The C2PA signing key's secret (lib/provenance.ts). */
  cleC2pa?: ISecret;
}

/** `<AWS::Region>` where cdk-nag prints a pseudo parameter, the value itself when the stack's env gives one. */
const lisible = (valeur: string, pseudo: string): string => (Token.isUnresolved(valeur) ? `<AWS::${pseudo}>` : valeur);

/** `action` on the items of these kinds only (IAM `dynamodb:LeadingKeys` on their key prefixes). */
const ecritureLimitee = (table: ITable, action: 'UpdateItem' | 'PutItem' | 'DeleteItem', genres: Genre[], ecritCles = false): PolicyStatement => {
  if (genres.length === 0) throw new Error(`${action} needs the kinds of item it writes`);
  if (genres.includes('cle') && !ecritCles) throw new Error(`${action} on API keys: only the web site's key routes (ecritCles) and the admin CLI write keys`);
  return new PolicyStatement({
    actions: [`dynamodb:${action}`],
    resources: [table.tableArn],
    conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...new Set(genres)].sort().map((g) => `${PREFIXES_TABLE[g]}*`) } },
  });
};

const accorderTable = (fn: Fonction, table: ITable, acces: AccesTable): void => {
  const { actions, index = [], miseAJour, creation, suppression, ecritCles } = acces;
  const surElements = actions.filter((a) => a !== 'Query');
  if (surElements.length > 0) {
    fn.addToRolePolicy(new PolicyStatement({ actions: surElements.map((a) => `dynamodb:${a}`), resources: [table.tableArn] }));
  }
  if (actions.includes('Query')) {
    if (index.length === 0) throw new Error('Query is granted on named indexes only');
    fn.addToRolePolicy(new PolicyStatement({ actions: ['dynamodb:Query'], resources: index.map((nom) => `${table.tableArn}/index/${nom}`) }));
  }
  if (miseAJour) fn.addToRolePolicy(ecritureLimitee(table, 'UpdateItem', miseAJour, ecritCles));
  if (creation) fn.addToRolePolicy(ecritureLimitee(table, 'PutItem', creation, ecritCles));
  if (suppression) fn.addToRolePolicy(ecritureLimitee(table, 'DeleteItem', suppression, ecritCles));
};

export const accorder = (fn: Fonction, r: Ressources, acces: Acces): void => {
  if (acces.table) {
    if (!r.table) throw new Error('no table to grant');
    accorderTable(fn, r.table, acces.table);
  }
  for (const { prefixe, actions } of acces.s3 ?? []) {
    if (!r.bucket) throw new Error('no bucket to grant');
    const bucket = r.bucket;
    const prefixes = [prefixe].flat();
    fn.addToRolePolicy(
      new PolicyStatement({ actions: actions.map((a) => `s3:${a}`), resources: prefixes.map((p) => bucket.arnForObjects(`${PREFIXES[p]}*`)) }),
    );
    const idBucket = Stack.of(bucket).getLogicalId(bucket.node.defaultChild as CfnBucket);
    for (const p of prefixes) {
      fn.reconnaitre({
        id: `AwsSolutions::AwsSolutions-IAM5[Resource::<${idBucket}.Arn>/${PREFIXES[p]}*]`,
        reason: `Object keys are <prefix><account>/<job or upload id>… and created at run time: the grant is one prefix (${PREFIXES[p]}) of one bucket.`,
      });
    }
  }
  if (acces.demarrer) {
    if (!r.machine) throw new Error('no state machine to start');
    fn.addToRolePolicy(new PolicyStatement({ actions: ['states:StartExecution'], resources: [r.machine.stateMachineArn] }));
  }
  if (acces.suivre) {
    if (!r.machine) throw new Error('no state machine to follow');
    const stack = Stack.of(r.machine);
    // arn:<partition>:states:<region>:<account>:execution:<machine name>:<execution name>
    const executions = stack.formatArn({
      service: 'states',
      resource: 'execution',
      resourceName: `${r.machine.stateMachineName}:*`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    fn.addToRolePolicy(new PolicyStatement({ actions: ['states:DescribeExecution'], resources: [executions] }));
    const idMachine = stack.getLogicalId(r.machine.node.defaultChild as CfnStateMachine);
    const arnLisible = [
      'arn',
      lisible(stack.partition, 'Partition'),
      'states',
      lisible(stack.region, 'Region'),
      lisible(stack.account, 'AccountId'),
      'execution',
      `<${idMachine}.Name>`,
      '*',
    ].join(':');
    fn.reconnaitre({
      id: `AwsSolutions::AwsSolutions-IAM5[Resource::${arnLisible}]`,
      reason: 'Execution names are job ids created at run time: the grant is the executions of one state machine.',
    });
  }
  if (acces.signer) {
    if (!r.secret) throw new Error('no link secret to read');
    fn.addToRolePolicy(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [r.secret.secretArn] }));
  }
  if (acces.marquerC2pa) {
    if (!r.cleC2pa) throw new Error('no C2PA key secret to read');
    fn.addToRolePolicy(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [r.cleC2pa.secretArn] }));
  }
  if (acces.genererCleC2pa) {
    if (!r.cleC2pa) throw new Error('no C2PA key secret to write');
    // What cle-c2pa.ts calls, no more (grantRead/grantWrite would add Describe, UpdateSecret, UpdateSecretVersionStage).
    fn.addToRolePolicy(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue'], resources: [r.cleC2pa.secretArn] }));
  }
};

/**
 * What an authenticated GET route does before its own reads: look its key up (GetItem) and count
 * the request on its rate-window item (lambdas/core/domaine/cadence.ts), the only item it may write.
 */
export const lectureAuthentifiee = (lectures: ('BatchGetItem' | 'Query')[] = [], index?: string[]): AccesTable => ({
  actions: ['GetItem', ...lectures],
  ...(index ? { index } : {}),
  miseAJour: ['cadence'],
});

/**
 * What an erasure writes (core/domaine/effacement.ts): its two routes, and the sweeper that finishes what they
 * recorded. It claims and updates the batch, drops the stored answer of an Idempotency-Key (keeping the
 * key), records the erasure first, leaves a tombstone of each upload, and deletes jobs (and a listing's
 * claims on uploads, which share their key space), batches and its own request. Never an account or a key.
 */
export const ECRITURES_EFFACEMENT = {
  miseAJour: ['lot', 'idempotence'],
  creation: ['effacement', 'televersement'],
  suppression: ['travail', 'lot', 'effacement'],
} as const satisfies Pick<AccesTable, 'miseAJour' | 'creation' | 'suppression'>;

export const ACCES_EFFACEMENT: Acces = {
  table: {
    actions: ['GetItem'],
    miseAJour: ['cadence', ...ECRITURES_EFFACEMENT.miseAJour],
    creation: [...ECRITURES_EFFACEMENT.creation],
    suppression: [...ECRITURES_EFFACEMENT.suppression],
  },
  s3: [{ prefixe: ['entrees', 'televersements', 'resultats', 'zips'], actions: ['DeleteObject'] }],
};
