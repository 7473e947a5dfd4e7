/**
 * What differs between stages, read from the CDK context (`cdk deploy -c stage=prod`). Everything
 * else is the same everywhere, so a stage that works is the stage that ships.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';

export interface ConfigurationStage {
  /** Stage name: part of the stack name (`Retouche-<stage>`). */
  stage: string;
  /** Production stages keep their data when the stack or a resource is deleted. */
  production: boolean;
  /** The engine of the tool step: `bedrock` (production models) or `local` (sharp previews, free). */
  moteur: 'bedrock' | 'local';
  /** How result links are served: CloudFront signed URLs, or the API itself (LocalStack fallback). */
  liens: 'cloudfront' | 'api';
  /** Optional e-mail address subscribed to the alarms topic. */
  emailAlarmes?: string;
  /**
   * Optional reserved concurrency of the tool step: at most this many model calls at once, the
   * rest wait in the state machine's backoff. Off by default: a new account's concurrency quota
   * (10) cannot spare any.
   */
  concurrenceOutil?: number;
}

/** Stages that hold customers' data unless told otherwise. */
const STAGES_PRODUCTION = new Set(['prod', 'production']);

type LireContexte = (cle: string) => unknown;

const choix = <T extends string>(valeur: unknown, permis: readonly T[], defaut: T, cle: string): T => {
  if (valeur === undefined) return defaut;
  if (typeof valeur === 'string' && (permis as readonly string[]).includes(valeur)) return valeur as T;
  throw new Error(`context ${cle} must be one of ${permis.join(', ')} (got ${String(valeur)})`);
};

export const configurationDepuisContexte = (lire: LireContexte): ConfigurationStage => {
  const stage = String(lire('stage') ?? 'dev');
  if (!/^[a-z][a-z0-9-]{0,20}$/.test(stage)) throw new Error(`context stage must be lower-case letters, digits or - (got ${stage})`);
  const production = lire('production') === undefined ? STAGES_PRODUCTION.has(stage) : String(lire('production')) === 'true';
  const email = lire('emailAlarmes');
  const concurrence = lire('concurrenceOutil');
  if (concurrence !== undefined && !(Number.isInteger(Number(concurrence)) && Number(concurrence) >= 1)) {
    throw new Error(`context concurrenceOutil must be a positive integer (got ${String(concurrence)})`);
  }
  return {
    stage,
    production,
    moteur: choix(lire('moteur'), ['bedrock', 'local'] as const, 'bedrock', 'moteur'),
    liens: choix(lire('liens'), ['cloudfront', 'api'] as const, 'cloudfront', 'liens'),
    ...(typeof email === 'string' && email ? { emailAlarmes: email } : {}),
    ...(concurrence !== undefined ? { concurrenceOutil: Number(concurrence) } : {}),
  };
};

/** Data survives a `cdk destroy` on production stages only. */
export const politiqueDonnees = (c: ConfigurationStage): RemovalPolicy => (c.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY);

/** Logs are evidence for support and billing disputes: kept longer in production. */
export const retentionJournaux = (c: ConfigurationStage): RetentionDays =>
  c.production ? RetentionDays.THREE_MONTHS : RetentionDays.TWO_WEEKS;
