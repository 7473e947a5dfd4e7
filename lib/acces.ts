/**
 * Least privilege, written out: each function gets the DynamoDB actions, indexes, S3 prefixes and
 * other actions its code calls, on those resources only. The grant helpers of CDK give more (every
 * index, every key, `Arn:*`), so they are not used for the table and the bucket.
 *
 * DynamoDB writes cannot be granted on the whole table at all: UpdateItem creates an item that is not
 * there, so an unbounded update grant is a grant to write any item (an API key, an account's
 * credits). Each write is granted on the item kinds its function writes, by their key prefix.
 *
 * Reads are bounded the same way (issue 40, point 7): a read grant on the whole table let any role read
 * any item, an API key's record or another account's payment. Each function reads the kinds of item
 * its code reads (`LECTURES`, by handler module), and queries the index partitions it names. Scan is
 * never granted: it names no partition, so `dynamodb:LeadingKeys` cannot bound it, and no code scans.
 */
import { ArnFormat, Stack, Token } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { CfnBucket } from 'aws-cdk-lib/aws-s3';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { CfnStateMachine, StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { PREFIXES } from '../lambdas/core/modele/retention';
import { OUVERTS, PREFIXES_TABLE } from '../lambdas/core/depots/table';
import type { Fonction } from './fonction';

/**
 * Reads, on the kinds of item the function's code reads (`LECTURES`): ConditionCheckItem too, which tells
 * whether an item is there. Writes go through the prefixed grants below, never here.
 */
type ActionTable = 'GetItem' | 'BatchGetItem' | 'Query' | 'ConditionCheckItem';
/** An item kind, by its partition key prefix (lambdas/core/depots/table.ts). */
export type Genre = keyof typeof PREFIXES_TABLE;
type Prefixe = keyof typeof PREFIXES;
/** PutObjectTagging: a PutObject or CreateMultipartUpload that sets tags (the retention tag, core/modele/retention.ts) needs it too. */
type ActionS3 = 'GetObject' | 'PutObject' | 'PutObjectTagging' | 'DeleteObject' | 'AbortMultipartUpload';

export interface AccesTable {
  /**
   * Reads: GetItem, BatchGetItem and ConditionCheckItem on the kinds of item, and `Query` on the indexes
   * below (every query names one) in the partitions, that `LECTURES` gives the function's module.
   */
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

/** A partition of an index: an item kind, as the index's partition key starts with its prefix, or one partition of `ouverts`. */
export type Partition = Genre | (typeof OUVERTS)[keyof typeof OUVERTS];

/** What a function's code reads of the table (lambdas/core/depots/*: `lire…`, `lister…`, their queries). */
export interface Lectures {
  /** GetItem, BatchGetItem (TransactGetItems too) and ConditionCheckItem: these kinds of item only. */
  elements: readonly Genre[];
  /**
   * Query: these partitions only, in the indexes the grant names. `dynamodb:LeadingKeys` is the index's
   * partition key in a query on an index: gsi1 holds COMPTE#<account> (its jobs, keys, uploads, credits
   * and endpoints) and WEBHOOK#<endpoint> (its deliveries), gsi2 COMPTE#<account>[#TEST]#<tool> and
   * LIVRAISON#<account>, gsi3 the `OUVERTS` partitions, named exactly. It bounds the partition, not the
   * sort key: a query of an account's partition of gsi1 reaches all of that account's items there.
   */
  partitions?: readonly Partition[];
}

/**
 * A route that takes an API key or a web session (lambdas/http/authentifiee.ts): the key's record by its
 * hash, or the user's link to their account.
 */
const AUTHENTIFICATION = ['cle', 'utilisateur'] as const satisfies readonly Genre[];
/** The web site's own routes take a session only (`sessionSeule`): no key is read to authenticate them. */
const SESSION = ['utilisateur'] as const satisfies readonly Genre[];
/**
 * A step that ends a job or a batch announces it (core/domaine/webhooks/annonces.ts): the account's
 * endpoints (gsi1), and the delivery it made before when it runs again.
 */
const ANNONCE = { elements: ['livraison'], partitions: ['compte'] } as const satisfies Lectures;

/**
 * The reads of each handler module (Fonction.module), from the code: the IAM simulation
 * (test/integration/iam.test.ts) runs every recorded call against them, and a module granted a read
 * that has no entry here stops the synth. Grouped by what the code does, so a kind of item is readable
 * by the functions that read it and no other: API key records by the routes that authenticate a key
 * and the one that revokes it; payments by Stripe's webhook only.
 */
export const LECTURES: Readonly<Record<string, Lectures>> = {
  'http/solde': { elements: [...AUTHENTIFICATION, 'compte'] },
  'http/travaux-liste': { elements: AUTHENTIFICATION, partitions: ['compte'] },
  'http/travail': { elements: [...AUTHENTIFICATION, 'travail'] },
  'http/lot': { elements: [...AUTHENTIFICATION, 'lot', 'travail'] },
  'http/televersements-creer': { elements: AUTHENTIFICATION },
  // The key and its account, a stored Idempotency-Key answer, an upload and whether a job already uses it, a job to reread.
  'http/travaux-creer': { elements: [...AUTHENTIFICATION, 'compte', 'idempotence', 'televersement', 'travail'] },
  'http/travail-effacer': { elements: [...AUTHENTIFICATION, 'travail', 'lot'] },
  'http/lot-effacer': { elements: [...AUTHENTIFICATION, 'lot', 'travail'] },
  'http/mcp': { elements: AUTHENTIFICATION },
  // Endpoints (by id and the account's, gsi1) and their deliveries (by id and the endpoint's, gsi1).
  'http/webhooks': { elements: [...AUTHENTIFICATION, 'webhook', 'livraison'], partitions: ['compte', 'webhook'] },
  'http/compte': { elements: [...SESSION, 'compte'] },
  'http/mouvements': { elements: [...SESSION, 'compte'], partitions: ['compte'] },
  // When each key was last used: its CADENCE# item.
  'http/cles-liste': { elements: [...SESSION, 'cadence'], partitions: ['compte'] },
  'http/cles-creer': { elements: SESSION },
  'http/cle-revoquer': { elements: [...SESSION, 'cle'] },
  // A refund or a dispute reads the payment it names; no caller is authenticated (Stripe's signature is).
  'http/paiement-stripe': { elements: ['paiement'] },
  'pipeline/preparer': { elements: ['travail'] },
  'pipeline/outil': { elements: ['travail'] },
  'pipeline/enregistrer': { elements: ['travail', 'lot', ...ANNONCE.elements], partitions: ANNONCE.partitions },
  'pipeline/rembourser': { elements: ['travail', 'lot', ...ANNONCE.elements], partitions: ANNONCE.partitions },
  // The batch, its jobs and the erasures recorded for them (BatchGetItem).
  'pipeline/finaliser-lot': { elements: ['lot', 'travail', 'effacement', ...ANNONCE.elements], partitions: ANNONCE.partitions },
  // The open work of gsi3 and each record it names; ConditionCheckItem: no job uses an upload it removes.
  'pipeline/balayeur': {
    elements: ['travail', 'lot', 'effacement', 'televersement', ...ANNONCE.elements],
    partitions: [...ANNONCE.partitions, ...Object.values(OUVERTS)],
  },
  // The delivery, its endpoint, the account's places in flight, the job or batch (and its jobs) it is about.
  'pipeline/livreur': { elements: ['livraison', 'webhook', 'creneau', 'travail', 'lot'] },
};

/** `dynamodb:LeadingKeys` values: an item kind's prefix followed by anything, an `ouverts` partition exactly. */
const clesDeTete = (partitions: readonly Partition[]): { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': string[] } } => ({
  'ForAllValues:StringLike': {
    'dynamodb:LeadingKeys': [...new Set(partitions.map((p) => (p in PREFIXES_TABLE ? `${PREFIXES_TABLE[p as Genre]}*` : p)))].sort(),
  },
});

/** `<AWS::Region>` where cdk-nag prints a pseudo parameter, the value itself when the stack's env gives one. */
const lisible = (valeur: string, pseudo: string): string => (Token.isUnresolved(valeur) ? `<AWS::${pseudo}>` : valeur);

/** `action` on the items of these kinds only (IAM `dynamodb:LeadingKeys` on their key prefixes). */
const ecritureLimitee = (table: ITable, action: 'UpdateItem' | 'PutItem' | 'DeleteItem', genres: Genre[], ecritCles = false): PolicyStatement => {
  if (genres.length === 0) throw new Error(`${action} needs the kinds of item it writes`);
  if (genres.includes('cle') && !ecritCles) throw new Error(`${action} on API keys: only the web site's key routes (ecritCles) and the admin CLI write keys`);
  return new PolicyStatement({
    actions: [`dynamodb:${action}`],
    resources: [table.tableArn],
    conditions: clesDeTete(genres),
  });
};

const accorderTable = (fn: Fonction, table: ITable, acces: AccesTable): void => {
  const { actions, index = [], miseAJour, creation, suppression, ecritCles } = acces;
  const surElements = actions.filter((a) => a !== 'Query');
  const lectures: Lectures = LECTURES[fn.module] ?? { elements: [] };
  if (surElements.length > 0) {
    if (lectures.elements.length === 0) throw new Error(`${fn.module}: ${surElements.join(', ')} need the kinds of item it reads (LECTURES, lib/acces.ts)`);
    fn.addToRolePolicy(
      new PolicyStatement({ actions: surElements.map((a) => `dynamodb:${a}`), resources: [table.tableArn], conditions: clesDeTete(lectures.elements) }),
    );
  }
  if (actions.includes('Query')) {
    if (index.length === 0) throw new Error('Query is granted on named indexes only');
    if (!lectures.partitions?.length) throw new Error(`${fn.module}: Query needs the index partitions it reads (LECTURES, lib/acces.ts)`);
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['dynamodb:Query'],
        resources: index.map((nom) => `${table.tableArn}/index/${nom}`),
        conditions: clesDeTete(lectures.partitions),
      }),
    );
  } else if (lectures.partitions) {
    throw new Error(`${fn.module}: partitions to query in LECTURES, but no Query granted`);
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
 * key), records the erasure first, leaves a tombstone of each upload and the job's movements, anonymous
 * (`mouvement`: the account's movements still add up to its balance), and deletes jobs (and a listing's
 * claims on uploads, which share their key space), batches and its own request. Never an account or a key.
 */
export const ECRITURES_EFFACEMENT = {
  miseAJour: ['lot', 'idempotence'],
  creation: ['effacement', 'televersement', 'mouvement'],
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
