/**
 * `Idempotency-Key` on `POST /travaux` (our extension): the same key and body give back the first
 * answer, charged once. The record is written in the very transaction that debits (facturation.ts),
 * so an answer exists exactly when a debit does.
 *
 * An erasure of the work a key started (core/effacement.ts) keeps the key for its 24 hours but drops
 * the stored answer (it names the jobs and the photos' names): a replay is then a 409 `work_erased`,
 * and starts and charges nothing, rather than starting the work again.
 */
import { createHash } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Dependances } from './dependances';
import { ErreurApi } from './erreurs';
import type { Lancement } from './modele';
import { CONSERVATION_IDEMPOTENCE_HEURES } from './retention';
import { cles, ttlDans } from './depots/table';

/** How long an `Idempotency-Key` is remembered. */
export const DUREE_IDEMPOTENCE_SECONDES = CONSERVATION_IDEMPOTENCE_HEURES * 3600;

const CLE_IDEMPOTENCE = /^[\x21-\x7e]{1,255}$/;

export interface RequeteIdempotente {
  compte: string;
  contentType: string | undefined;
  corps: Buffer;
  cleIdempotence: string | undefined;
}

interface EnregistrementIdempotence {
  empreinte: string;
  /** The answer given; gone once the work was erased. */
  reponse?: string;
  efface_le?: string;
}

export const verifierCleIdempotence = (cle: string | undefined): void => {
  if (cle !== undefined && !CLE_IDEMPOTENCE.test(cle)) {
    throw new ErreurApi('invalid_parameter', 'Idempotency-Key must be 1 to 255 visible ASCII characters.', { parametre: 'Idempotency-Key' });
  }
};

const empreinteRequete = (requete: RequeteIdempotente): string =>
  createHash('sha256')
    .update(requete.contentType ?? '')
    .update('\n')
    .update(requete.corps)
    .digest('hex');

/** The answer already given to this key, or undefined; the same key with another body is a 422. */
export const reponseDejaDonnee = async (d: Pick<Dependances, 'ddb' | 'table'>, requete: RequeteIdempotente): Promise<Lancement | undefined> => {
  if (requete.cleIdempotence === undefined) return undefined;
  const { Item } = await d.ddb.send(
    new GetCommand({ TableName: d.table, Key: cles.idempotence(requete.compte, requete.cleIdempotence), ConsistentRead: true }),
  );
  const trace = Item as EnregistrementIdempotence | undefined;
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

/**
 * The key of erased work: its answer goes, the key and the request's hash stay until they expire, so a
 * replay is told the work was erased. Never creates a record: an expired key stays expired.
 */
export const marquerEfface = async (d: Pick<Dependances, 'ddb' | 'table'>, compte: string, cle: string, effaceLe: Date): Promise<void> => {
  try {
    await d.ddb.send(
      new UpdateCommand({
        TableName: d.table,
        Key: cles.idempotence(compte, cle),
        UpdateExpression: 'SET efface_le = if_not_exists(efface_le, :maintenant) REMOVE reponse',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':maintenant': effaceLe.toISOString() },
      }),
    );
  } catch (erreur) {
    if ((erreur as Error).name !== 'ConditionalCheckFailedException') throw erreur;
  }
};

/** The transaction item that remembers the answer (written with the debit, never alone). */
export const elementIdempotence = (table: string, requete: RequeteIdempotente & { cleIdempotence: string }, reponse: Lancement, maintenant: Date) => ({
  Put: {
    TableName: table,
    Item: {
      ...cles.idempotence(requete.compte, requete.cleIdempotence),
      type: 'idempotence',
      empreinte: empreinteRequete(requete),
      reponse: JSON.stringify(reponse),
      expire_a: ttlDans(maintenant, DUREE_IDEMPOTENCE_SECONDES),
    },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});
