/**
 * Request rate per key ("cadence"; "debit" means charging credits only, lancement.ts): 120 per calendar minute, counted exactly in DynamoDB (one counter item per
 * key and minute, incremented only while under the limit: core/depots/cadences.ts). API Gateway usage plans are a best-effort
 * token bucket per second, which cannot promise the spec's count; this can. A refused request does
 * not count, so a client that waits `Retry-After` seconds always gets through.
 */
import type { AvecTable } from '../infra/dependances';
import * as cadences from '../depots/cadences';
import { ErreurApi } from '../modele/erreurs';

export const REQUETES_PAR_MINUTE = 120;

/**
 * Counts a request against its key's rate, or refuses it (429). The first request of a minute also
 * records when the key was last used (`noterUtilisation`, for an API key: the web site's key listing).
 */
export const compterRequete = async (d: AvecTable, empreinte: string, noterUtilisation = false): Promise<void> => {
  const maintenant = d.horloge();
  const minute = Math.floor(maintenant.getTime() / 60_000);
  const compte = await cadences.compter(d, empreinte, minute, REQUETES_PAR_MINUTE, maintenant);
  if (compte === 1 && noterUtilisation) await cadences.noterUtilisation(d, empreinte, maintenant);
  if (compte === undefined)
    throw limiteDeLaMinute(maintenant, (attente) => `More than ${REQUETES_PAR_MINUTE} requests per minute on this key: retry in ${attente} s.`);
};

/** The 429 of a count per calendar minute: retry when the next minute starts (Retry-After, and `retry_after` in the body). */
export const limiteDeLaMinute = (maintenant: Date, message: (attente: number) => string): ErreurApi => {
  const attente = Math.max(1, Math.ceil((60_000 - (maintenant.getTime() % 60_000)) / 1000));
  return new ErreurApi('rate_limited', message(attente), { retry_after: attente }, { 'Retry-After': String(attente) });
};
