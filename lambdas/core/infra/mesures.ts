/**
 * Business metrics (CloudWatch embedded metric format through Powertools). Locally and in tests,
 * POWERTOOLS_METRICS_DISABLED keeps stdout quiet. The names are read by lib/observabilite.ts, so the
 * alarms and the code that emits cannot disagree.
 *
 * A refunded job is a metric (per tool), not an alarm. What alarms is work the sweeper found older
 * than the guaranteed bound (core/domaine/balayage.ts): it should never happen.
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

export const ESPACE_MESURES = 'Retouche';
export const SERVICE_MESURES = process.env.POWERTOOLS_SERVICE_NAME ?? 'retouche';

export const MESURES = {
  /** Jobs ended `echec` and refunded; dimension `outil`. */
  remboursements: 'Remboursements',
  /** Open jobs (en_attente, en_cours) older than the bound, seen by the sweeper. */
  travauxEnRetard: 'TravauxEnRetard',
  /** Batches still en_cours older than the bound, seen by the sweeper. */
  lotsEnRetard: 'LotsEnRetard',
  /** Erasures asked while their work ran, still not done past their bound (core/domaine/balayage.ts). */
  effacementsEnRetard: 'EffacementsEnRetard',
  /** Jobs the sweeper started, ran again, refunded, and batches it closed. */
  reprises: 'Reprises',
  /**
   * Calls the engine's role was refused (AccessDeniedException from Bedrock or Rekognition): a model
   * not enabled for the account (its first use goes through AWS Marketplace), or a grant missing. Every
   * job then fails: it alarms at the first one.
   */
  accesRefuses: 'AccesModeleRefuses',
} as const;

export const mesures = new Metrics({ namespace: ESPACE_MESURES, serviceName: SERVICE_MESURES });

export const compterRemboursement = (outil: string): void => {
  const mesure = mesures.singleMetric();
  mesure.addDimension('outil', outil);
  mesure.addMetric(MESURES.remboursements, MetricUnit.Count, 1);
};

/** One sweep's figures: published every run (zeros included), so a missing datapoint means the sweeper did not run. */
export const publierBalayage = (bilan: { travauxEnRetard: number; lotsEnRetard: number; effacementsEnRetard: number; reprises: number }): void => {
  const mesure = mesures.singleMetric();
  mesure.addMetric(MESURES.travauxEnRetard, MetricUnit.Count, bilan.travauxEnRetard);
  mesure.addMetric(MESURES.lotsEnRetard, MetricUnit.Count, bilan.lotsEnRetard);
  mesure.addMetric(MESURES.effacementsEnRetard, MetricUnit.Count, bilan.effacementsEnRetard);
  mesure.addMetric(MESURES.reprises, MetricUnit.Count, bilan.reprises);
};

/** One call of the engine refused by AWS (moteurs/bedrock/erreurs.ts). */
export const compterAccesRefuse = (): void => {
  const mesure = mesures.singleMetric();
  mesure.addMetric(MESURES.accesRefuses, MetricUnit.Count, 1);
};
