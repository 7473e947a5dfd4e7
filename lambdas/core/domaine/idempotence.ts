/**
 * `Idempotency-Key` on `POST /travaux` (our extension): the same key and body give back the first
 * answer, charged once. The record is written in the very transaction that debits (facturation.ts),
 * so an answer exists exactly when a debit does.
 *
 * An erasure of the work a key started (core/domaine/effacement/) keeps the key for its 24 hours but drops
 * the stored answer (it names the jobs and the photos' names): a replay is then a 409 `work_erased`,
 * and starts and charges nothing, rather than starting the work again (depots/idempotence.ts,
 * `marquerEfface`).
 *
 * Why not Powertools' Idempotency utility: it stores its record in its own write, before and after
 * the handler, so a crash between the debit and that write would charge a replay twice (or lose the
 * answer); ours is one item of the debit's TransactWriteItems. It also has no notion of an erasure
 * that must keep the key and forget the answer.
 */
import { createHash } from 'node:crypto';
import type { Dependances } from '../infra/dependances';
import * as idempotence from '../depots/idempotence';
import { ErreurApi } from '../modele/erreurs';
import type { Lancement } from '../modele/enregistrements';

const CLE_IDEMPOTENCE = /^[\x21-\x7e]{1,255}$/;

export interface RequeteIdempotente {
  compte: string;
  contentType: string | undefined;
  corps: Buffer;
  cleIdempotence: string | undefined;
  /** Sent with a test key: a key used in test and then live (or the reverse) is a different request, refused, never replayed across. */
  test?: boolean;
}

export const verifierCleIdempotence = (cle: string | undefined): void => {
  if (cle !== undefined && !CLE_IDEMPOTENCE.test(cle)) {
    throw new ErreurApi('invalid_parameter', 'Idempotency-Key must be 1 to 255 visible ASCII characters.', { parametre: 'Idempotency-Key' });
  }
};

const empreinteRequete = (requete: RequeteIdempotente): string =>
  createHash('sha256')
    .update(requete.test ? 'test\n' : '')
    .update(requete.contentType ?? '')
    .update('\n')
    .update(requete.corps)
    .digest('hex');

/** The answer already given to this key, or undefined; the same key with another body is a 422. */
export const reponseDejaDonnee = async (d: Pick<Dependances, 'ddb' | 'table'>, requete: RequeteIdempotente): Promise<Lancement | undefined> => {
  if (requete.cleIdempotence === undefined) return undefined;
  const trace = await idempotence.lire(d, requete.compte, requete.cleIdempotence);
  if (!trace) return undefined;
  if (trace.empreinte !== empreinteRequete(requete)) {
    throw new ErreurApi('idempotency_key_reused', 'This Idempotency-Key was already used with a different request.');
  }
  if (trace.reponse === undefined) {
    throw new ErreurApi(
      'work_erased',
      `The work this Idempotency-Key started was erased${trace.efface_le ? ` on ${trace.efface_le}` : ''}: nothing was started or charged. To start it again, send the request with a new Idempotency-Key.`,
      { efface_le: trace.efface_le ?? null },
    );
  }
  return JSON.parse(trace.reponse) as Lancement;
};

/** The transaction item that remembers the answer (written with the debit, never alone). */
export const elementIdempotence = (table: string, requete: RequeteIdempotente & { cleIdempotence: string }, reponse: Lancement, maintenant: Date) =>
  idempotence.elementCreer(
    table,
    requete.compte,
    requete.cleIdempotence,
    { empreinte: empreinteRequete(requete), reponse: JSON.stringify(reponse) },
    maintenant,
  );
