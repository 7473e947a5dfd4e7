/**
 * One structured logger for every function (Powertools: JSON lines with the request id, the cold
 * start, the service name). Locally it writes the same lines; `POWERTOOLS_LOG_LEVEL` tunes it.
 *
 * Nothing personal reaches a line, whatever a caller passes: an S3 key of ours can hold a customer's
 * file name (a result is stored under its download name), and an SDK error carries the key it was
 * about (`Key`), the item a condition failed on (`Item`), or the raw answer. So every value is
 * redacted on its way out (`caviarder`): our keys lose everything after their prefix, members that
 * name files or hold records are dropped, and errors are written through the same rules.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { PREFIXES } from '../modele/retention';

/** Members never written: S3 keys and copy sources, file names, records and raw answers. */
const MEMBRES_CAVIARDES = new Set([
  'Key',
  'key',
  'cle',
  'cles',
  'CopySource',
  'nom',
  'noms',
  'fichier',
  'nom_fichier',
  'nomFichier',
  'Item',
  'Items',
  'Attributes',
  '$response',
  'CancellationReasons',
]);

/** An S3 key of ours in any text: its prefix stays, the rest of the text after it goes (a file name may hold spaces). */
const CLE_S3 = new RegExp(
  `\\b(${Object.values(PREFIXES)
    .map((p) => p.replace('/', ''))
    .join('|')})/[^\\n"'<>]*`,
  'g',
);

export const caviarderTexte = (texte: string): string => texte.replace(CLE_S3, '$1/[redacted]');

/** The JSON replacer the logger runs on every member of every line, before its own rules. */
export const caviarder = (membre: string, valeur: unknown): unknown => {
  if (MEMBRES_CAVIARDES.has(membre) && valeur !== undefined) return '[redacted]';
  if (typeof valeur === 'string') return caviarderTexte(valeur);
  if (valeur instanceof Error) {
    // Written here rather than by Powertools, whose error format would come after this replacer: the
    // members below go through it again, so they are redacted as any other.
    const { name, message, stack, cause, ...autres } = valeur as Error & Record<string, unknown>;
    return { name, message, stack, ...(cause !== undefined ? { cause } : {}), ...autres };
  }
  return valeur;
};

export const journal = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'retouche', jsonReplacerFn: caviarder });
