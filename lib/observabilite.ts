/**
 * Operations: alarms on what costs customers or money, all sent to one SNS topic, and a dashboard.
 *
 * Every job and batch ends with exact credits whatever fails: a failed job is refunded by its own
 * execution, and what a failure leaves open is finished by the sweeper (lambdas/pipeline/balayeur.ts).
 * So a refunded job is a figure, not an alarm; what alarms is a failure of that machinery itself: an
 * execution that failed past its refund, work older than the guaranteed bound, a sweeper that throws
 * or does not run.
 */
import { Duration } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  MathExpression,
  Metric,
  TextWidget,
  TreatMissingData,
  type IMetric,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { ESPACE_MESURES, MESURES } from '../lambdas/core/infra/mesures';
import { OUTILS } from '../lambdas/core/modele/outils';
import { politiqueDonnees, type ConfigurationStage } from './configuration';
import { servicePowertools } from './fonction';

/** Alarm thresholds: an alarm fires at this value or above (`balayeurAbsent`: below it). */
export const SEUILS = {
  /** Failed executions per 5 minutes: a refund or a batch ZIP failed past its retries. */
  executionsEchouees: 1,
  /** Timed out or aborted executions per 5 minutes. */
  executionsInterrompues: 1,
  /** Jobs, then batches, older than the guaranteed bound in one sweep (Maximum over 5 minutes). */
  travauxEnRetard: 1,
  lotsEnRetard: 1,
  /** Erasures still waiting past their bound in one sweep (Maximum over 5 minutes). */
  effacementsEnRetard: 1,
  /** Engine calls refused by AWS per 5 minutes: one is enough, every job fails the same way. */
  accesRefuses: 1,
  /** Sweeper errors per 5 minutes: one is enough, it is the last line. */
  erreursBalayeur: 1,
  /** Sweeps published in `PERIODE_BALAYEUR_ABSENT`: fewer than this, the sweeper did not run. */
  balayeurAbsent: 1,
  /** Errors of any other function per 5 minutes (job errors are answered or refunded, not thrown). */
  erreursFonction: 3,
  /** Throttled invocations of a function per 5 minutes. */
  limitations: 1,
  /** API 5xx answers per 5 minutes. */
  api5xx: 5,
  /** Messages in the webhook deliveries' dead-letter queue (Maximum over 5 minutes). */
  livraisonsEnEchec: 1,
} as const;

/** The sweeper runs every minute and publishes its figures each time: ten minutes without any is an outage. */
export const PERIODE_BALAYEUR_ABSENT = Duration.minutes(10);

export interface ProprietesObservabilite {
  config: ConfigurationStage;
  api: RestApi;
  machine: StateMachine;
  /** Functions watched for errors and throttles. */
  fonctions: LambdaFunction[];
  /**
   * The sweeper, watched on its own terms: any error, and any ten minutes without a sweep. Not among
   * `fonctions`: with one reserved instance, a tick that comes while a long sweep runs is throttled
   * by design.
   */
  balayeur: LambdaFunction;
  /** The webhook deliveries' dead-letter queue (lib/webhooks.ts): a message in it is a delivery our side could not handle. */
  livraisonsEnEchec: IQueue;
}

interface OptionsAlarme {
  comparaison?: ComparisonOperator;
  donneesManquantes?: TreatMissingData;
}

/** The period of every alarm but the sweeper's absence. */
const CINQ_MINUTES = Duration.minutes(5);

export class Observabilite extends Construct {
  readonly sujet: Topic;
  readonly alarmes: Alarm[] = [];
  private readonly action: SnsAction;

  constructor(scope: Construct, id: string, p: ProprietesObservabilite) {
    super(scope, id);
    this.sujet = this.creerSujet(p.config);
    this.action = new SnsAction(this.sujet);
    this.alarmesDesExecutions(p.machine);
    this.alarmesDesFigures();
    this.alarmesDuBalayeur(p.balayeur);
    this.alarmesDesFonctions(p.fonctions);
    this.alarme(
      'LivraisonsWebhooksEnEchec',
      "Webhook delivery messages our side failed to handle 5 times are in the dead-letter queue: the deliveries stay due and the sweeper queues them again once it runs cleanly; read the delivery function's log (lambdas/pipeline/livreur.ts)",
      p.livraisonsEnEchec.metricApproximateNumberOfMessagesVisible({ period: CINQ_MINUTES, statistic: 'Maximum' }),
      SEUILS.livraisonsEnEchec,
    );
    this.alarme('Api5xx', 'The API answered 5xx', p.api.metricServerError({ period: CINQ_MINUTES, statistic: 'Sum' }), SEUILS.api5xx);
    this.creerTableau(p);
  }

  /** The alarms' topic, encrypted with a key of its own. */
  private creerSujet(config: ConfigurationStage): Topic {
    const cle = new Key(this, 'CleSujet', {
      description: 'Retouche alarms topic encryption',
      enableKeyRotation: true,
      removalPolicy: politiqueDonnees(config),
    });
    const sujet = new Topic(this, 'Alarmes', { displayName: `Retouche ${config.stage} alarms`, masterKey: cle, enforceSSL: true });
    // CloudWatch publishes alarms to the encrypted topic.
    cle.grantEncryptDecrypt(new ServicePrincipal('cloudwatch.amazonaws.com'));
    if (config.emailAlarmes) sujet.addSubscription(new EmailSubscription(config.emailAlarmes));
    return sujet;
  }

  private alarme(nom: string, description: string, metrique: IMetric, seuil: number, options: OptionsAlarme = {}): Alarm {
    const a = new Alarm(this, nom, {
      alarmDescription: description,
      metric: metrique,
      threshold: seuil,
      evaluationPeriods: 1,
      comparisonOperator: options.comparaison ?? ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: options.donneesManquantes ?? TreatMissingData.NOT_BREACHING,
    });
    a.addAlarmAction(this.action);
    this.alarmes.push(a);
    return a;
  }

  /** A figure of the functions' (lambdas/core/infra/mesures.ts), emitted by Powertools with the `service` dimension only. */
  private figure(nom: string, statistic: string, period: Duration): Metric {
    return new Metric({ namespace: ESPACE_MESURES, metricName: nom, dimensionsMap: { service: servicePowertools(this) }, period, statistic });
  }

  /** Executions that ended past what their own Catch handles. */
  private alarmesDesExecutions(machine: StateMachine): void {
    this.alarme(
      'ExecutionsEchouees',
      'A refund or a batch ZIP failed past its retries; the sweeper finishes the job (see the runbook: docs/architecture.md, "Operators")',
      machine.metricFailed({ period: CINQ_MINUTES, statistic: 'Sum' }),
      SEUILS.executionsEchouees,
    );
    this.alarme(
      'ExecutionsInterrompues',
      'Job executions timed out or were aborted: the sweeper runs such jobs again or refunds them',
      new MathExpression({
        expression: 'a + b',
        usingMetrics: { a: machine.metricTimedOut({ period: CINQ_MINUTES }), b: machine.metricAborted({ period: CINQ_MINUTES }) },
        period: CINQ_MINUTES,
      }),
      SEUILS.executionsInterrompues,
    );
  }

  /** Work past its guaranteed bound, as the sweeper counts it, and the engine's refused calls. */
  private alarmesDesFigures(): void {
    this.alarme(
      'TravauxEnRetard',
      'Jobs still open past the guaranteed bound: the sweeper could not finish them (see the runbook: docs/architecture.md, "Operators")',
      this.figure(MESURES.travauxEnRetard, 'Maximum', CINQ_MINUTES),
      SEUILS.travauxEnRetard,
    );
    this.alarme(
      'LotsEnRetard',
      'Batches still en_cours past the guaranteed bound: the sweeper could not close them (see the runbook: docs/architecture.md, "Operators")',
      this.figure(MESURES.lotsEnRetard, 'Maximum', CINQ_MINUTES),
      SEUILS.lotsEnRetard,
    );
    this.alarme(
      'EffacementsEnRetard',
      'Erasures asked while their work ran are still not done past their bound: personal data is kept against a request (see the runbook: docs/architecture.md, "Operators")',
      this.figure(MESURES.effacementsEnRetard, 'Maximum', CINQ_MINUTES),
      SEUILS.effacementsEnRetard,
    );
    this.alarme(
      'AccesModeleRefuses',
      'The engine was refused a model or detector call (AccessDeniedException): a model not enabled for the account, or a grant missing. Every job fails until it is fixed: run npm run --silent admin -- check-models (docs/deployment.md, "Before the first job")',
      this.figure(MESURES.accesRefuses, 'Sum', CINQ_MINUTES),
      SEUILS.accesRefuses,
    );
  }

  /** The last line: a sweeper that throws, or that does not run. */
  private alarmesDuBalayeur(balayeur: LambdaFunction): void {
    this.alarme(
      'BalayeurEnErreur',
      'The sweeper threw: open jobs and batches may stay open until it runs cleanly',
      balayeur.metricErrors({ period: CINQ_MINUTES, statistic: 'Sum' }),
      SEUILS.erreursBalayeur,
    );
    this.alarme(
      'BalayeurAbsent',
      `The sweeper did not run for ${PERIODE_BALAYEUR_ABSENT.toMinutes()} minutes: nothing finishes what a failure leaves open`,
      this.figure(MESURES.travauxEnRetard, 'SampleCount', PERIODE_BALAYEUR_ABSENT),
      SEUILS.balayeurAbsent,
      { comparaison: ComparisonOperator.LESS_THAN_THRESHOLD, donneesManquantes: TreatMissingData.BREACHING },
    );
  }

  /** One alarm per function (a math expression may sum at most 10 metrics), so the alarm names the culprit. */
  private alarmesDesFonctions(fonctions: LambdaFunction[]): void {
    for (const fn of fonctions) {
      const nom = fn.node.path.split('/').slice(1).join('');
      this.alarme(
        `Erreurs${nom}`,
        `${fn.node.path}: the function threw (job errors are answered or refunded, not thrown)`,
        fn.metricErrors({ period: CINQ_MINUTES, statistic: 'Sum' }),
        SEUILS.erreursFonction,
      );
      this.alarme(
        `Limitations${nom}`,
        `${fn.node.path}: invocations were throttled (concurrency)`,
        fn.metricThrottles({ period: CINQ_MINUTES, statistic: 'Sum' }),
        SEUILS.limitations,
      );
    }
  }

  /** Refunds are counted per tool (lambdas/core/infra/mesures.ts): a graph, not an alarm. */
  private remboursements(): MathExpression {
    const quinze = Duration.minutes(15);
    const parOutil = Object.fromEntries(
      OUTILS.map((outil) => [
        outil,
        new Metric({
          namespace: ESPACE_MESURES,
          metricName: MESURES.remboursements,
          dimensionsMap: { service: servicePowertools(this), outil },
          period: quinze,
          statistic: 'Sum',
        }),
      ]),
    );
    return new MathExpression({ expression: OUTILS.join(' + '), usingMetrics: parOutil, period: quinze, label: 'Refunds' });
  }

  private creerTableau(p: ProprietesObservabilite): Dashboard {
    return new Dashboard(this, 'Tableau', {
      defaultInterval: Duration.hours(24),
      widgets: [
        [
          new TextWidget({
            markdown: `# Retouche ${p.config.stage}\nJobs, refunds, the sweeper, API and functions. Alarms go to the SNS topic of this stack.`,
            width: 24,
            height: 2,
          }),
        ],
        [
          new GraphWidget({
            title: 'Jobs (executions)',
            left: [p.machine.metricStarted(), p.machine.metricSucceeded(), p.machine.metricFailed()],
            width: 12,
          }),
          new GraphWidget({ title: 'Refunds', left: [this.remboursements()], width: 12 }),
        ],
        [
          new GraphWidget({
            title: 'Sweeper: late jobs and batches (max), jobs and batches it took over (sum)',
            left: [
              this.figure(MESURES.travauxEnRetard, 'Maximum', CINQ_MINUTES).with({ label: 'Late jobs' }),
              this.figure(MESURES.lotsEnRetard, 'Maximum', CINQ_MINUTES).with({ label: 'Late batches' }),
              this.figure(MESURES.effacementsEnRetard, 'Maximum', CINQ_MINUTES).with({ label: 'Late erasures' }),
            ],
            right: [this.figure(MESURES.reprises, 'Sum', CINQ_MINUTES).with({ label: 'Taken over' })],
            width: 24,
          }),
        ],
        [
          new GraphWidget({ title: 'API requests and errors', left: [p.api.metricCount(), p.api.metricClientError(), p.api.metricServerError()], width: 12 }),
          new GraphWidget({
            title: 'API latency (p50, p99)',
            left: [p.api.metricLatency({ statistic: 'p50' }), p.api.metricLatency({ statistic: 'p99' })],
            width: 12,
          }),
        ],
        [
          new GraphWidget({ title: 'Lambda errors', left: [...p.fonctions, p.balayeur].map((fn) => fn.metricErrors()), width: 12 }),
          new GraphWidget({ title: 'Lambda duration p99', left: [...p.fonctions, p.balayeur].map((fn) => fn.metricDuration({ statistic: 'p99' })), width: 12 }),
        ],
      ],
    });
  }
}
