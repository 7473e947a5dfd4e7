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

export class Observabilite extends Construct {
  readonly sujet: Topic;
  readonly alarmes: Alarm[] = [];

  constructor(scope: Construct, id: string, p: ProprietesObservabilite) {
    super(scope, id);
    const cle = new Key(this, 'CleSujet', {
      description: 'Retouche alarms topic encryption',
      enableKeyRotation: true,
      removalPolicy: politiqueDonnees(p.config),
    });
    this.sujet = new Topic(this, 'Alarmes', { displayName: `Retouche ${p.config.stage} alarms`, masterKey: cle, enforceSSL: true });
    // CloudWatch publishes alarms to the encrypted topic.
    cle.grantEncryptDecrypt(new ServicePrincipal('cloudwatch.amazonaws.com'));
    if (p.config.emailAlarmes) this.sujet.addSubscription(new EmailSubscription(p.config.emailAlarmes));
    const action = new SnsAction(this.sujet);

    const alarme = (nom: string, description: string, metrique: IMetric, seuil: number, options: OptionsAlarme = {}) => {
      const a = new Alarm(this, nom, {
        alarmDescription: description,
        metric: metrique,
        threshold: seuil,
        evaluationPeriods: 1,
        comparisonOperator: options.comparaison ?? ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: options.donneesManquantes ?? TreatMissingData.NOT_BREACHING,
      });
      a.addAlarmAction(action);
      this.alarmes.push(a);
      return a;
    };

    const cinq = Duration.minutes(5);
    alarme(
      'ExecutionsEchouees',
      'A refund or a batch ZIP failed past its retries; the sweeper finishes the job (see the runbook: docs/architecture.md, "Operators")',
      p.machine.metricFailed({ period: cinq, statistic: 'Sum' }),
      SEUILS.executionsEchouees,
    );
    alarme(
      'ExecutionsInterrompues',
      'Job executions timed out or were aborted: the sweeper runs such jobs again or refunds them',
      new MathExpression({
        expression: 'a + b',
        usingMetrics: { a: p.machine.metricTimedOut({ period: cinq }), b: p.machine.metricAborted({ period: cinq }) },
        period: cinq,
      }),
      SEUILS.executionsInterrompues,
    );

    // The sweeper's figures (lambdas/core/infra/mesures.ts), emitted by Powertools with the `service` dimension only.
    const figure = (nom: string, statistic: string, period: Duration) =>
      new Metric({ namespace: ESPACE_MESURES, metricName: nom, dimensionsMap: { service: servicePowertools(this) }, period, statistic });
    alarme(
      'TravauxEnRetard',
      'Jobs still open past the guaranteed bound: the sweeper could not finish them (see the runbook: docs/architecture.md, "Operators")',
      figure(MESURES.travauxEnRetard, 'Maximum', cinq),
      SEUILS.travauxEnRetard,
    );
    alarme(
      'LotsEnRetard',
      'Batches still en_cours past the guaranteed bound: the sweeper could not close them (see the runbook: docs/architecture.md, "Operators")',
      figure(MESURES.lotsEnRetard, 'Maximum', cinq),
      SEUILS.lotsEnRetard,
    );
    alarme(
      'EffacementsEnRetard',
      'Erasures asked while their work ran are still not done past their bound: personal data is kept against a request (see the runbook: docs/architecture.md, "Operators")',
      figure(MESURES.effacementsEnRetard, 'Maximum', cinq),
      SEUILS.effacementsEnRetard,
    );
    alarme(
      'AccesModeleRefuses',
      'The engine was refused a model or detector call (AccessDeniedException): a model not enabled for the account, or a grant missing. Every job fails until it is fixed: run npm run --silent admin -- check-models (docs/deployment.md, "Before the first job")',
      figure(MESURES.accesRefuses, 'Sum', cinq),
      SEUILS.accesRefuses,
    );
    alarme(
      'BalayeurEnErreur',
      'The sweeper threw: open jobs and batches may stay open until it runs cleanly',
      p.balayeur.metricErrors({ period: cinq, statistic: 'Sum' }),
      SEUILS.erreursBalayeur,
    );
    alarme(
      'BalayeurAbsent',
      `The sweeper did not run for ${PERIODE_BALAYEUR_ABSENT.toMinutes()} minutes: nothing finishes what a failure leaves open`,
      figure(MESURES.travauxEnRetard, 'SampleCount', PERIODE_BALAYEUR_ABSENT),
      SEUILS.balayeurAbsent,
      { comparaison: ComparisonOperator.LESS_THAN_THRESHOLD, donneesManquantes: TreatMissingData.BREACHING },
    );

    // One alarm per function (a math expression may sum at most 10 metrics), so the alarm names the culprit.
    for (const fn of p.fonctions) {
      const nom = fn.node.path.split('/').slice(1).join('');
      alarme(
        `Erreurs${nom}`,
        `${fn.node.path}: the function threw (job errors are answered or refunded, not thrown)`,
        fn.metricErrors({ period: cinq, statistic: 'Sum' }),
        SEUILS.erreursFonction,
      );
      alarme(
        `Limitations${nom}`,
        `${fn.node.path}: invocations were throttled (concurrency)`,
        fn.metricThrottles({ period: cinq, statistic: 'Sum' }),
        SEUILS.limitations,
      );
    }
    alarme(
      'LivraisonsWebhooksEnEchec',
      "Webhook delivery messages our side failed to handle 5 times are in the dead-letter queue: the deliveries stay due and the sweeper queues them again once it runs cleanly; read the delivery function's log (lambdas/pipeline/livreur.ts)",
      p.livraisonsEnEchec.metricApproximateNumberOfMessagesVisible({ period: cinq, statistic: 'Maximum' }),
      SEUILS.livraisonsEnEchec,
    );
    alarme('Api5xx', 'The API answered 5xx', p.api.metricServerError({ period: cinq, statistic: 'Sum' }), SEUILS.api5xx);

    // Refunds are counted per tool (lambdas/core/infra/mesures.ts): a graph, not an alarm.
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
    const remboursements = new MathExpression({ expression: OUTILS.join(' + '), usingMetrics: parOutil, period: quinze, label: 'Refunds' });

    new Dashboard(this, 'Tableau', {
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
          new GraphWidget({ title: 'Refunds', left: [remboursements], width: 12 }),
        ],
        [
          new GraphWidget({
            title: 'Sweeper: late jobs and batches (max), jobs and batches it took over (sum)',
            left: [
              figure(MESURES.travauxEnRetard, 'Maximum', cinq).with({ label: 'Late jobs' }),
              figure(MESURES.lotsEnRetard, 'Maximum', cinq).with({ label: 'Late batches' }),
              figure(MESURES.effacementsEnRetard, 'Maximum', cinq).with({ label: 'Late erasures' }),
            ],
            right: [figure(MESURES.reprises, 'Sum', cinq).with({ label: 'Taken over' })],
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
