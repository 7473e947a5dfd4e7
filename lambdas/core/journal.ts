/**
 * One structured logger for every function (Powertools: JSON lines with the request id, the cold
 * start, the service name). Locally it writes the same lines; `POWERTOOLS_LOG_LEVEL` tunes it.
 */
import { Logger } from '@aws-lambda-powertools/logger';

export const journal = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'retouche' });
