/**
 * Webhook deliveries (our extension, issue 27): a queue of attempts due, its dead-letter queue, and
 * the function that consumes it (lambdas/pipeline/livreur.ts). The pipeline's steps and the sweeper
 * announce events onto the queue, the API's webhook routes send tests and resends to it
 * (`autoriserEnvoi`); the delivery function POSTs to endpoints and queues the next attempt. A message
 * our side cannot handle is received again, then lands in the dead-letter queue, which alarms
 * (lib/observabilite.ts). The local stack runs the same function on its SQS stand-in (local/sqs.ts).
 */
import { Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { CONCURRENCE_MAX_LIVREUR } from '../lambdas/core/infra/file-webhooks';
import { politiqueDonnees, retentionJournaux, type ConfigurationStage } from './configuration';
import { accorder } from './acces';
import { Fonction } from './fonction';

/** A message our side failed to handle this many times goes to the dead-letter queue. */
export const RECEPTIONS_MAX = 5;
/** The delivery function's time: a receiver has 15 s (core/modele/webhooks.ts), a batch's attempts run together. */
const DELAI_LIVREUR = Duration.seconds(60);

export interface SignatureLiens {
  base: string;
  idCle: string;
  secret: ISecret;
}

export class Webhooks extends Construct {
  readonly file: Queue;
  readonly echecs: Queue;
  livreur?: Fonction;

  constructor(
    scope: Construct,
    id: string,
    private readonly config: ConfigurationStage,
  ) {
    super(scope, id);
    // Deliveries to http://127.0.0.1 are for a local stack's tests, never a stage's.
    if (process.env.RETOUCHE_WEBHOOKS_ALLOW_LOOPBACK)
      throw new Error('RETOUCHE_WEBHOOKS_ALLOW_LOOPBACK is for a local stack started for tests: unset it to synthesize or deploy a stage');
    this.echecs = new Queue(this, 'Echecs', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
      removalPolicy: politiqueDonnees(config),
    });
    this.file = new Queue(this, 'File', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // AWS's advice for an event source: six times the function's timeout, so a slow batch is not received twice.
      visibilityTimeout: Duration.seconds(DELAI_LIVREUR.toSeconds() * 6),
      deadLetterQueue: { queue: this.echecs, maxReceiveCount: RECEPTIONS_MAX },
      removalPolicy: politiqueDonnees(config),
    });
  }

  /** A function that announces events or resends deliveries: the queue's URL, and SendMessage on it only. */
  autoriserEnvoi(fn: Fonction): void {
    fn.addEnvironment('RETOUCHE_WEBHOOKS_FILE_URL', this.file.queueUrl);
    fn.addToRolePolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.file.queueArn] }));
  }

  /** The consumer: made once the links' base is known (it answers with the job or batch and fresh links). */
  creerLivreur(p: { table: ITable; bucket: IBucket; liens: SignatureLiens }): Fonction {
    const fn = new Fonction(this, 'Livreur', {
      module: 'pipeline/livreur',
      description: 'Webhook deliveries: signs and POSTs each attempt due, queues the next one',
      memoire: 256,
      delai: DELAI_LIVREUR,
      retention: retentionJournaux(this.config),
      removalPolicy: politiqueDonnees(this.config),
      environnement: {
        RETOUCHE_TABLE: p.table.tableName,
        RETOUCHE_BUCKET: p.bucket.bucketName,
        RETOUCHE_LIENS_BASE: p.liens.base,
        RETOUCHE_LIENS_CLE_ID: p.liens.idCle,
        RETOUCHE_LIENS_SECRET_ARN: p.liens.secret.secretArn,
      },
    });
    // The delivery and its endpoint (read, claimed, recorded; a removed endpoint's deliveries deleted),
    // the account's places in flight (taken and given back), the job or batch it is about (a batch's
    // jobs together), and the key of the links and the secrets.
    accorder(
      fn,
      { table: p.table, secret: p.liens.secret },
      {
        table: { actions: ['GetItem', 'BatchGetItem'], miseAJour: ['livraison', 'webhook', 'creneau'], suppression: ['livraison'] },
        signer: true,
      },
    );
    this.autoriserEnvoi(fn);
    fn.addEventSource(new SqsEventSource(this.file, { batchSize: 10, reportBatchItemFailures: true, maxConcurrency: CONCURRENCE_MAX_LIVREUR }));
    this.livreur = fn;
    return fn;
  }
}
