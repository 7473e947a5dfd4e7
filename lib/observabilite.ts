/**
 * Operations: alarms on what costs customers or money (failed executions, Lambda errors and
 * throttles, API 5xx, refunds above normal), all sent to one SNS topic, and a dashboard.
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
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { OUTILS } from '../lambdas/core/outils';
import { politiqueDonnees, type ConfigurationStage } from './configuration';

/** Refunds per 15 minutes that are "above normal": a model or a dependency is failing for many jobs. */
export const SEUIL_REMBOURSEMENTS = 10;

export interface ProprietesObservabilite {
  config: ConfigurationStage;
  api: RestApi;
  machine: StateMachine;
  fonctions: LambdaFunction[];
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

    const alarme = (nom: string, description: string, metrique: IMetric, seuil: number) => {
      const a = new Alarm(this, nom, {
        alarmDescription: description,
        metric: metrique,
        threshold: seuil,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
      a.addAlarmAction(action);
      this.alarmes.push(a);
      return a;
    };

    const cinq = Duration.minutes(5);
    alarme('ExecutionsEchouees', 'Job executions failed (a failed job is refunded, but the definition or a step is broken)',
      p.machine.metricFailed({ period: cinq, statistic: 'Sum' }), 1);
    alarme('ExecutionsInterrompues', 'Job executions timed out or were aborted: their refund did not run',
      new MathExpression({
        expression: 'a + b',
        usingMetrics: { a: p.machine.metricTimedOut({ period: cinq }), b: p.machine.metricAborted({ period: cinq }) },
        period: cinq,
      }), 1);
    // One alarm per function (a math expression may sum at most 10 metrics), so the alarm names the culprit.
    for (const fn of p.fonctions) {
      const nom = fn.node.path.split('/').slice(1).join('');
      alarme(`Erreurs${nom}`, `${fn.node.path}: the function threw (job errors are answered or refunded, not thrown)`,
        fn.metricErrors({ period: cinq, statistic: 'Sum' }), 3);
      alarme(`Limitations${nom}`, `${fn.node.path}: invocations were throttled (concurrency)`,
        fn.metricThrottles({ period: cinq, statistic: 'Sum' }), 1);
    }
    alarme('Api5xx', 'The API answered 5xx', p.api.metricServerError({ period: cinq, statistic: 'Sum' }), 5);
    // Refunds are counted per tool (lambdas/core/mesures.ts); the alarm watches their sum.
    const quinze = Duration.minutes(15);
    const parOutil = Object.fromEntries(
      OUTILS.map((outil) => [
        outil,
        new Metric({ namespace: 'Retouche', metricName: 'Remboursements', dimensionsMap: { service: 'retouche', outil }, period: quinze, statistic: 'Sum' }),
      ]),
    );
    const remboursements = new MathExpression({ expression: OUTILS.join(' + '), usingMetrics: parOutil, period: quinze, label: 'Refunds' });
    alarme('RemboursementsAnormaux', `More than ${SEUIL_REMBOURSEMENTS} refunds in 15 minutes: a model or a dependency fails for many jobs`,
      remboursements, SEUIL_REMBOURSEMENTS);

    new Dashboard(this, 'Tableau', {
      defaultInterval: Duration.hours(24),
      widgets: [
        [new TextWidget({ markdown: `# Retouche ${p.config.stage}\nJobs, refunds, API and functions. Alarms go to the SNS topic of this stack.`, width: 24, height: 2 })],
        [
          new GraphWidget({
            title: 'Jobs (executions)',
            left: [p.machine.metricStarted(), p.machine.metricSucceeded(), p.machine.metricFailed()],
            width: 12,
          }),
          new GraphWidget({ title: 'Refunds', left: [remboursements], width: 12 }),
        ],
        [
          new GraphWidget({ title: 'API requests and errors', left: [p.api.metricCount(), p.api.metricClientError(), p.api.metricServerError()], width: 12 }),
          new GraphWidget({ title: 'API latency (p50, p99)', left: [p.api.metricLatency({ statistic: 'p50' }), p.api.metricLatency({ statistic: 'p99' })], width: 12 }),
        ],
        [
          new GraphWidget({ title: 'Lambda errors', left: p.fonctions.map((fn) => fn.metricErrors()), width: 12 }),
          new GraphWidget({ title: 'Lambda duration p99', left: p.fonctions.map((fn) => fn.metricDuration({ statistic: 'p99' })), width: 12 }),
        ],
      ],
    });
  }
}
