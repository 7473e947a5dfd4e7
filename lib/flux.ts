/**
 * Workflow: the job's state machine, built from statemachines/travail.asl.json (the file the local
 * stack runs), its five step functions, and the sweeper that finishes whatever a failure left open
 * (jobs never started, executions that failed, timed out or were aborted, batches whose ZIP step
 * died). One Standard execution per job, named after the job (lambdas/core/domaine/lancement.ts).
 */
import { Duration, Validations } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { DefinitionBody, LogLevel, StateMachine, StateMachineType } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import path from 'node:path';
import { INDEX } from '../lambdas/core/depots/table';
import { DUREE_MAX_BALAYAGE_MS } from '../lambdas/core/domaine/balayage';
import { politiqueDonnees, retentionJournaux, type ConfigurationStage } from './configuration';
import { ACCES_EFFACEMENT, accorder, ECRITURES_EFFACEMENT, type Acces } from './acces';
import { Fonction, RACINE, type ProprietesFonction } from './fonction';
import type { ModelesBedrock } from './modeles';
import type { Webhooks } from './webhooks';
import { ACTIONS_MODELES } from './residence';

/** What the tool step's detectors call: none of these actions supports a resource narrower than "*". */
export const ACTIONS_REKOGNITION = ['rekognition:DetectFaces', 'rekognition:DetectLabels', 'rekognition:DetectText'];

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
    acces: { table: { actions: ['GetItem'], miseAJour: ['travail'] }, s3: [{ prefixe: 'entrees', actions: ['PutObject'] }] },
  },
  Outil: {
    description: 'Job step: runs the tool on the engine (Bedrock or local preview)',
    // Measured: the engine's worst peak is 1213 MB, ciel on Bedrock at the 50 MP the API accepts
    // (npm run bench:grande-image); signing the largest result, a 50 MP PNG of 99 MB, adds 653 MB of
    // WebAssembly memory (bench:c2pa). (1213 + 653) × 1.5 headroom, in 64 MB steps. The step runs on
    // one thread: the memory above 1769 MB (one vCPU) is for the peak, not for speed.
    memoire: 2816,
    delai: Duration.minutes(5),
    sharp: true,
    acces: {
      table: { actions: ['GetItem'] },
      // Every result is signed with C2PA Content Credentials: the key and chain, from their secret.
      marquerC2pa: true,
      s3: [
        { prefixe: 'entrees', actions: ['GetObject'] },
        // An image that came by direct upload (POST /televersements) is read where the client put it.
        { prefixe: 'televersements', actions: ['GetObject'] },
        { prefixe: 'resultats', actions: ['PutObject', 'PutObjectTagging'] },
      ],
    },
  },
  Enregistrer: {
    description: 'Job step: records the result (termine) and the batch counters',
    memoire: 256,
    delai: Duration.seconds(30),
    // GetObject: a listing text comes by its S3 key, not through the execution's state (pipeline/etape.ts).
    // The job, its batch's counters and the account's pending count, in one transaction (core/domaine/cycle.ts).
    acces: { table: { actions: ['GetItem'], miseAJour: ['travail', 'lot', 'compte'] }, s3: [{ prefixe: 'resultats', actions: ['GetObject'] }] },
  },
  Rembourser: {
    description: 'Job step: marks the job echec and refunds its credits, exactly once',
    memoire: 256,
    delai: Duration.seconds(30),
    // The job, its batch's counters, and the account's credits and pending count (core/domaine/cycle.ts).
    acces: { table: { actions: ['GetItem'], miseAJour: ['travail', 'lot', 'compte'] } },
  },
  FinaliserLot: {
    description: 'Job step: streams the batch ZIP to S3 and closes the batch',
    memoire: 1024, // bounded: the ZIP is streamed, files are read one at a time
    delai: Duration.minutes(10),
    acces: {
      // The batch's claim and end (core/domaine/lots.ts); the jobs and their recorded erasures are read together.
      table: { actions: ['GetItem', 'BatchGetItem'], miseAJour: ['lot'] },
      s3: [
        { prefixe: 'resultats', actions: ['GetObject'] },
        // AbortMultipartUpload: a ZIP over one part (8 MB) that fails midway cleans up its own upload
        // (lib-storage does it) rather than wait for the bucket's day-long cleanup rule.
        { prefixe: 'zips', actions: ['PutObject', 'PutObjectTagging', 'AbortMultipartUpload'] },
      ],
    },
  },
};

/**
 * What the tool step needs to sign results (moteurs/c2pa/marquage.ts reads the secret once per
 * container). The digest is not read by the code: it changes the function's configuration when the
 * key or chain changes, so no warm container goes on signing with the old ones.
 */
const environnementC2pa = (c2pa: ProprietesFlux['c2pa']): Record<string, string> => ({
  RETOUCHE_C2PA_SECRET_ARN: c2pa.secret.secretArn,
  RETOUCHE_C2PA_EMPREINTE: c2pa.empreinte,
});

/** How often the sweeper runs. */
export const PERIODE_BALAYAGE = Duration.minutes(1);

const ACCES_BALAYEUR: Acces = {
  // DeleteItem and DeleteObject: the erasures recorded while their work ran (core/domaine/effacement.ts).
  // Jobs (start, run again, refund), accounts (refunds; uploads uncounted), batches (ZIPs, erasures),
  // uploads (marked used or expired, removed) and what an erasure writes. ConditionCheckItem: an
  // upload is removed only while no job uses it (core/domaine/televersements.ts).
  // Query gsi1 and PutItem of deliveries: the jobs and batches it ends are announced to webhooks.
  table: {
    actions: ['Query', 'GetItem', 'BatchGetItem', 'ConditionCheckItem'],
    index: [INDEX.ouverts, INDEX.parCompte],
    // TOUR#: the sweeper's turn (one run at a time).
    miseAJour: ['travail', 'compte', 'televersement', 'tour', ...ECRITURES_EFFACEMENT.miseAJour],
    creation: [...ECRITURES_EFFACEMENT.creation, 'livraison'],
    suppression: ['televersement', ...ECRITURES_EFFACEMENT.suppression],
  },
  s3: [
    { prefixe: 'resultats', actions: ['GetObject'] },
    // AbortMultipartUpload: a ZIP over one part (8 MB) that fails midway cleans up its own upload
    // (lib-storage does it) rather than wait for the bucket's day-long cleanup rule.
    { prefixe: 'zips', actions: ['PutObject', 'PutObjectTagging', 'AbortMultipartUpload'] },
    ...ACCES_EFFACEMENT.s3!,
  ],
  demarrer: true,
  suivre: true, // DescribeExecution: did a job's execution fail, time out or get aborted?
};

export interface ProprietesFlux {
  config: ConfigurationStage;
  table: ITable;
  bucket: IBucket;
  modeles: ModelesBedrock;
  /** The C2PA signing key (lib/provenance.ts): its secret, which the tool step alone reads, and its chain's digest. */
  c2pa: { secret: ISecret; empreinte: string };
  /** The webhook delivery queue: the steps that end a job or a batch, and the sweeper, announce events on it. */
  webhooks: Webhooks;
}

/**
 * The steps that end a job or a batch announce it to the account's webhooks (core/domaine/webhooks/annonces.ts):
 * they read the account's endpoints (gsi1) and create one delivery per endpoint (a PutItem).
 */
const ANNONCE = ['Enregistrer', 'Rembourser', 'FinaliserLot'] as const satisfies readonly Etape[];

/** What every function of the workflow is built with: its log settings, the table and the bucket. */
type Commun = Pick<ProprietesFonction, 'retention' | 'removalPolicy'> & { environnement: Record<string, string> };

export class Flux extends Construct {
  readonly machine: StateMachine;
  readonly etapes: Record<Etape, Fonction>;
  /** lambdas/pipeline/balayeur.ts, on a schedule. */
  readonly balayeur: Fonction;

  constructor(scope: Construct, id: string, p: ProprietesFlux) {
    super(scope, id);
    const { config, table, bucket } = p;
    const commun: Commun = {
      retention: retentionJournaux(config),
      removalPolicy: politiqueDonnees(config),
      environnement: { RETOUCHE_TABLE: table.tableName, RETOUCHE_BUCKET: bucket.bucketName },
    };
    this.etapes = this.creerEtapes(p, commun);
    if (config.moteur === 'bedrock') this.autoriserMoteurBedrock(this.etapes.Outil, p.modeles);
    this.machine = this.creerMachine(config, this.etapes);
    this.balayeur = this.creerBalayeur(p, commun, this.machine);
  }

  /** One function per step of the definition (ETAPES), granted what REGLAGES says, plus the announcements of those in ANNONCE. */
  private creerEtapes(p: ProprietesFlux, commun: Commun): Record<Etape, Fonction> {
    const { config, table, bucket } = p;
    const etapes = {} as Record<Etape, Fonction>;
    for (const [etape, module] of Object.entries(ETAPES) as [Etape, string][]) {
      const { acces, ...reglages } = REGLAGES[etape];
      const outil = etape === 'Outil';
      const fn = new Fonction(this, etape, {
        ...commun,
        ...reglages,
        module: `pipeline/${module}`,
        ...(outil && config.concurrenceOutil ? { reservedConcurrentExecutions: config.concurrenceOutil } : {}),
        environnement: {
          ...commun.environnement,
          ...(outil ? { RETOUCHE_MOTEUR: config.moteur, ...p.modeles.environnement, ...environnementC2pa(p.c2pa) } : {}),
        },
      });
      const annonce = (ANNONCE as readonly Etape[]).includes(etape);
      accorder(
        fn,
        { table, bucket, cleC2pa: p.c2pa.secret },
        annonce && acces.table
          ? { ...acces, table: { ...acces.table, actions: [...acces.table.actions, 'Query'], index: [INDEX.parCompte], creation: ['livraison'] } }
          : acces,
      );
      if (annonce) p.webhooks.autoriserEnvoi(fn);
      etapes[etape] = fn;
    }
    return etapes;
  }

  /**
   * The tool step's calls to Bedrock and Rekognition. Used by the production engine only: the tests run the local
   * engine, so the IAM simulation (test/integration/iam.test.ts) cannot count them as used.
   */
  private autoriserMoteurBedrock(outil: Fonction, modeles: ModelesBedrock): void {
    outil.addToRolePolicy(new PolicyStatement({ actions: ['bedrock:InvokeModel'], resources: modeles.arns }));
    // The furniture detector of vider and staging (moteurs/bedrock/rekognition.ts), and the face and
    // plate detector of the floutage setting (moteurs/bedrock/rekognition-personnes.ts).
    outil.addToRolePolicy(new PolicyStatement({ actions: ACTIONS_REKOGNITION, resources: ['*'] }));
    outil.reconnaitre({
      id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
      reason:
        'Rekognition DetectLabels, DetectFaces and DetectText support no resource-level permission (the image travels in the request): only "*" can grant them, and they are the only actions granted on "*".',
    });
    for (const arn of modeles.arnsLisibles.filter((a) => a.includes(':*:'))) {
      outil.reconnaitre({
        id: `AwsSolutions::AwsSolutions-IAM5[Resource::${arn}]`,
        reason: 'A cross-region inference profile routes to this one model in any region of its geography; the profile ARN itself is exact.',
      });
    }
    if (modeles.regionsPermises) {
      // An EU stage (lib/residence.ts): no model or detector call outside these Regions, whatever the
      // function's environment names (Rekognition's grant cannot name a Region, being on "*").
      outil.addToRolePolicy(
        new PolicyStatement({
          effect: Effect.DENY,
          actions: ACTIONS_MODELES,
          resources: ['*'],
          conditions: { StringNotEquals: { 'aws:RequestedRegion': modeles.regionsPermises } },
        }),
      );
    }
  }

  /** The job's state machine, from the definition file, calling the step functions. */
  private creerMachine(config: ConfigurationStage, etapes: Record<Etape, Fonction>): StateMachine {
    const journaux = new LogGroup(this, 'JournauxExecutions', {
      retention: retentionJournaux(config),
      removalPolicy: politiqueDonnees(config),
    });
    const machine = new StateMachine(this, 'Travail', {
      comment: 'Retouche: one execution per job (statemachines/travail.asl.json)',
      definitionBody: DefinitionBody.fromFile(FICHIER_DEFINITION),
      definitionSubstitutions: Object.fromEntries(Object.entries(etapes).map(([etape, fn]) => [`${etape}FunctionArn`, fn.functionArn])),
      stateMachineType: StateMachineType.STANDARD,
      // Every transition, without the data: image URLs given by customers may carry their own tokens.
      // The job record in DynamoDB holds the outcome and the error code.
      logs: { destination: journaux, level: LogLevel.ALL, includeExecutionData: false },
      // The execution timeout is the definition's own TimeoutSeconds, not set here: a job whose
      // execution timed out skipped its Catch, and the sweeper runs it again or refunds it.
    });
    // The definition comes from a file, so CDK cannot infer whom it calls: exactly these functions.
    machine.addToRolePolicy(new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: Object.values(etapes).map((fn) => fn.functionArn) }));
    Validations.of(machine).acknowledge(
      {
        id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
        reason: 'CloudWatch Logs delivery for Step Functions only accepts Resource "*" (AWS documented).',
      },
      {
        id: 'AwsSolutions::AwsSolutions-SF2',
        reason:
          'No X-Ray: a job is traced by its execution history, its record and the logs keyed by its id, and tracing our SDK calls would add ~127 KB to every bundle (docs/architecture.md).',
      },
    );
    return machine;
  }

  /** The sweeper, and its schedule. */
  private creerBalayeur(p: ProprietesFlux, commun: Commun, machine: StateMachine): Fonction {
    const balayeur = new Fonction(this, 'Balayeur', {
      ...commun,
      module: 'pipeline/balayeur',
      description: 'Every minute: starts, runs again or refunds open jobs past their bound, and closes their batches',
      // It may stream a batch ZIP (up to 50 results of 15 MB, S3 to S3) when the batch's own step died.
      memoire: 1024,
      // Also how long a run that died holds the sweeper's turn (core/depots/tour-balayage.ts).
      delai: Duration.millis(DUREE_MAX_BALAYAGE_MS),
      environnement: { ...commun.environnement, RETOUCHE_MACHINE_ARN: machine.stateMachineArn },
    });
    // One run at a time by the turn it takes in the table, not by a reserved concurrency (which fails the
    // deploy on a new account). A tick that finds the turn held is dropped: the next minute's comes anyway.
    balayeur.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.minutes(1) });
    accorder(balayeur, { table: p.table, bucket: p.bucket, machine }, ACCES_BALAYEUR);
    // It ends jobs and batches (their announcements) and queues again deliveries whose message was lost.
    p.webhooks.autoriserEnvoi(balayeur);
    new Rule(this, 'Horaire', {
      description: 'Retouche: sweeper of open jobs and batches',
      schedule: Schedule.rate(PERIODE_BALAYAGE),
      targets: [new LambdaFunction(balayeur, { retryAttempts: 0 })],
    });
    return balayeur;
  }
}
