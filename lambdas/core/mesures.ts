/**
 * Business metrics (CloudWatch embedded metric format through Powertools). The refund count feeds
 * the "refunds above normal" alarm. Locally and in tests, POWERTOOLS_METRICS_DISABLED keeps stdout quiet.
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

export const mesures = new Metrics({ namespace: 'Retouche', serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'retouche' });

export const compterRemboursement = (outil: string): void => {
  const mesure = mesures.singleMetric();
  mesure.addDimension('outil', outil);
  mesure.addMetric('Remboursements', MetricUnit.Count, 1);
};
