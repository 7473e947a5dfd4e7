/**
 * Workflow: the job's state machine, built from statemachines/travail.asl.json (the file the local
 * stack runs), its five step functions, and the reconciler that restarts jobs whose execution never
 * began. One Standard execution per job, named after the job (lambdas/core/lancement.ts).
 */
import { Duration, Validations } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { DefinitionBody, LogLevel, StateMachine, StateMachineType } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import path from 'node:path';
import { INDEX } from '../lambdas/core/table';
import { politiqueDonnees, retentionJournaux, type ConfigurationStage } from './configuration';
import { accorder, type Acces } from './acces';
import { Fonction, RACINE, type ProprietesFonction } from './fonction';
import type { ModelesBedrock } from './modeles';

export const FICHIER_DEFINITION = path.join(RACINE, 'statemachines', 'travail.asl.json');

/** The steps of the definition: placeholder `${<Nom>FunctionArn}` ↔ module lambdas/pipeline/<module>.ts. */
export const ETAPES = {
  Preparer: 'preparer',
  Outil: 'outil',
  Enregistrer: 'enregistrer',
  Rembourser: 'rembourser',
  FinaliserLot: 'finaliser-lot',
} as const;
type Etape = keyof typeof ETAPES;

/** Retries are spread over minutes (see the definition), so a tool run gets 5 minutes per attempt. */
const REGLAGES: Record<Etape, Pick<ProprietesFonction, 'memoire' | 'delai' | 'description' | 'sharp'> & { acces: Acces }> = {
  Preparer: {
    description: 'Job step: marks the job en_cours, fetches image URLs without SSRF',
    memoire: 512, // a 15 MB download held in memory
    delai: Duration.seconds(60),
    acces: { table: { actions: ['GetItem', 'UpdateItem'] }, s3: [{ prefixe: 'entrees', actions: ['PutObject'] }] },
  },
  Outil: {
    description: 'Job step: runs the tool on the engine (Bedrock or local preview)',
    memoire: 2048, // sharp on 12 MP photos: decode, composite, encode; more memory is also more CPU
    delai: Duration.minutes(5),
    sharp: true,
    acces: {
      table: { actions: ['GetItem'] },
      s3: [
        { prefixe: 'entrees', actions: ['GetObject'] },
        { prefixe: 'resultats', actions: ['PutObject'] },
      ],
    },
  },
  Enregistrer: {
    description: 'Job step: records the result (termine) and the batch counters',
    memoire: 256,
    delai: Duration.seconds(30),
    acces: { table: { actions: ['GetItem', 'UpdateItem', 'ConditionCheckItem'] } },
  },
  Rembourser: {
    description: 'Job step: marks the job echec and refunds its credits, exactly once',
    memoire: 256,
    delai: Duration.seconds(30),
    acces: { table: { actions: ['GetItem', 'UpdateItem', 'ConditionCheckItem'] } },
  },
  FinaliserLot: {
    description: 'Job step: streams the batch ZIP to S3 and closes the batch',
    memoire: 1024, // bounded: the ZIP is streamed, files are read one at a time
    delai: Duration.minutes(10),
    acces: {
      table: { actions: ['GetItem', 'BatchGetItem', 'UpdateItem'] },
      s3: [
        { prefixe: 'resultats', actions: ['GetObject'] },
        { prefixe: 'zips', actions: ['PutObject', 'AbortMultipartUpload'] },
      ],
    },
  },
};

export interface ProprietesFlux {
  config: ConfigurationStage;
  table: ITable;
  bucket: IBucket;
  modeles: ModelesBedrock;
}

export class Flux extends Construct {
  readonly machine: StateMachine;
  readonly etapes: Record<Etape, Fonction>;
  readonly relance: Fonction;

  constructor(scope: Construct, id: string, p: ProprietesFlux) {
    super(scope, id);
    const { config, table, bucket } = p;
    const commun = {
      retention: retentionJournaux(config),
      removalPolicy: politiqueDonnees(config),
      environnement: { RETOUCHE_TABLE: table.tableName, RETOUCHE_BUCKET: bucket.bucketName },
    };

    const etapes = {} as Record<Etape, Fonction>;
    for (const [etape, module] of Object.entries(ETAPES) as [Etape, string][]) {
      const { acces, ...reglages } = REGLAGES[etape];
      const outil = etape === 'Outil';
      const fn = new Fonction(this, etape, {
        ...commun,
        ...reglages,
        module: `pipeline/${module}`,
        ...(outil && config.concurrenceOutil ? { reservedConcurrentExecutions: config.concurrenceOutil } : {}),
        environnement: { ...commun.environnement, ...(outil ? { RETOUCHE_MOTEUR: config.moteur, ...p.modeles.environnement } : {}) },
      });
      accorder(fn, { table, bucket }, acces);
      etapes[etape] = fn;
    }
    if (config.moteur === 'bedrock') {
      etapes.Outil.addToRolePolicy(new PolicyStatement({ actions: ['bedrock:InvokeModel'], resources: p.modeles.arns }));
      for (const arn of p.modeles.arnsLisibles.filter((a) => a.includes(':*:'))) {
        etapes.Outil.reconnaitre({
          id: `AwsSolutions::AwsSolutions-IAM5[Resource::${arn}]`,
          reason: 'A cross-region inference profile routes to this one model in any region of its geography; the profile ARN itself is exact.',
        });
      }
    }
    this.etapes = etapes;

    const journaux = new LogGroup(this, 'JournauxExecutions', {
      retention: retentionJournaux(config),
      removalPolicy: politiqueDonnees(config),
    });
    this.machine = new StateMachine(this, 'Travail', {
      comment: 'Retouche: one execution per job (statemachines/travail.asl.json)',
      definitionBody: DefinitionBody.fromFile(FICHIER_DEFINITION),
      definitionSubstitutions: Object.fromEntries(
        Object.entries(etapes).map(([etape, fn]) => [`${etape}FunctionArn`, fn.functionArn]),
      ),
      stateMachineType: StateMachineType.STANDARD,
      tracingEnabled: true,
      // Every transition, without the data: image URLs given by customers may carry their own tokens.
      // The job record in DynamoDB holds the outcome and the error code.
      logs: { destination: journaux, level: LogLevel.ALL, includeExecutionData: false },
      // No execution timeout: a timed-out execution would skip its Catch, and with it the refund.
      // Every task has its own timeout and bounded retries instead.
    });
    // The definition comes from a file, so CDK cannot infer whom it calls: exactly these functions.
    this.machine.addToRolePolicy(
      new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: Object.values(etapes).map((fn) => fn.functionArn) }),
    );
    Validations.of(this.machine).acknowledge({
      id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
      reason: 'X-Ray segments and CloudWatch Logs delivery for Step Functions only accept Resource "*" (AWS documented).',
    });

    this.relance = new Fonction(this, 'Relance', {
      ...commun,
      module: 'pipeline/relancer',
      description: 'Every 2 minutes: starts the execution of jobs whose request died between debit and start',
      memoire: 256,
      delai: Duration.minutes(1),
      environnement: { ...commun.environnement, RETOUCHE_MACHINE_ARN: this.machine.stateMachineArn },
      reservedConcurrentExecutions: 1, // two reconcilers at once would only race each other
    });
    accorder(
      this.relance,
      { table, bucket, machine: this.machine },
      {
        table: { actions: ['Query', 'GetItem', 'UpdateItem', 'ConditionCheckItem'], index: [INDEX.enAttente] },
        demarrer: true,
      },
    );
    new Rule(this, 'Horaire', {
      description: 'Retouche: reconciler of jobs left en_attente',
      schedule: Schedule.rate(Duration.minutes(2)),
      targets: [new LambdaFunction(this.relance, { retryAttempts: 0 })],
    });
  }
}
