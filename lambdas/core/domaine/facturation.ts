/**
 * The debit: ONE DynamoDB transaction takes the whole cost from the balance under the balance and
 * pending-jobs conditions, and writes every job (+ the batch, + the idempotency record). It commits
 * whole or not at all, so nothing is charged unless the jobs exist, and no job exists unpaid.
 *
 * A request must never commit a debit it cannot answer for (API Gateway gives up at 29 s and the
 * client may then retry and pay twice). So the debit is only attempted while enough time is left
 * (`MARGE_DEBIT_MS`), and when its answer is lost the very same transaction is sent again: it carries
 * a ClientRequestToken, and job ids are new, so a repeat either commits it now or proves it committed
 * before (a job that already exists can only be ours). Only when even that cannot be told in time is
 * the answer a 503 that says so; with an Idempotency-Key the client's retry gets the first answer.
 */
import { randomUUID } from 'node:crypto';
import type { AvecTable, Dependances } from '../infra/dependances';
import * as comptes from '../depots/comptes';
import * as lots from '../depots/lots';
import { RETENTION_SECONDES, ttlDans } from '../depots/table';
import { avecReessais, raisonsAnnulation, type ElementTransaction, type RaisonAnnulation } from '../depots/transactions';
import * as travaux from '../depots/travaux';
import { ErreurApi, soldeNegatif } from '../modele/erreurs';
import { elementIdempotence, type RequeteIdempotente } from './idempotence';
import type { EnregistrementLot, EnregistrementTravail, Lancement } from '../modele/enregistrements';
import { signaler } from '../infra/signalement';

export const MAX_TRAVAUX_EN_ATTENTE = 50;
/** A client told "too many pending jobs" should come back once some have ended. */
const ATTENTE_EN_ATTENTE_SECONDES = 30;
/** Time a debit needs to commit (normally tens of ms) and to be verified once if its answer is lost. */
export const MARGE_DEBIT_MS = 4_000;
/** What a client should wait before retrying a request we could not finish in time. */
const ATTENTE_INDISPONIBLE_SECONDES = 5;

/**
 * Why a balance below zero starts nothing, in the 402's words: it is the only case where a test key's
 * free job is refused, and the client should know it is not this request's cost.
 */
export const messageSoldeNegatif = (credits: number): string => `The balance is ${soldeNegatif(credits)}`;

export const verifierSolde = (credits: number, enAttente: number, cout: number, nombre: number): void => {
  // The debit's condition (credits >= cost, depots/comptes.ts) refuses a negative balance even at no cost.
  if (credits < cout || credits < 0) {
    const message = credits < 0 ? messageSoldeNegatif(credits) : `This request costs ${cout} credits; the balance is ${credits}.`;
    throw new ErreurApi('insufficient_credits', message, { credits, requis: cout });
  }
  if (enAttente + nombre > MAX_TRAVAUX_EN_ATTENTE) {
    throw new ErreurApi(
      'too_many_pending_jobs',
      `At most ${MAX_TRAVAUX_EN_ATTENTE} pending jobs per account; ${enAttente} are pending and this request adds ${nombre}.`,
      { en_attente: enAttente, max: MAX_TRAVAUX_EN_ATTENTE, retry_after: ATTENTE_EN_ATTENTE_SECONDES },
      { 'Retry-After': String(ATTENTE_EN_ATTENTE_SECONDES) },
    );
  }
};

const indisponible = (message: string) =>
  new ErreurApi('service_unavailable', message, { retry_after: ATTENTE_INDISPONIBLE_SECONDES }, { 'Retry-After': String(ATTENTE_INDISPONIBLE_SECONDES) });

export interface Debit {
  requete: RequeteIdempotente;
  travaux: EnregistrementTravail[];
  lot: EnregistrementLot | null;
  cout: number;
  /** The answer, recorded with the debit when the request has an Idempotency-Key. */
  reponse: Lancement;
  /** Epoch ms by which the request must have answered. */
  echeance: number;
  /**
   * Uploads that listing jobs use: claimed in the same transaction, once (core/domaine/televersements.ts). A
   * one-image job from an upload needs no claim: its id is the upload's.
   */
  utilisations?: { televersement: string; travail: string }[];
  /** How many uploads the jobs use in all (claimed, or taken as a job's id): the account's count of outstanding uploads drops by that. */
  televersements?: number;
}

const elements = (d: Pick<Dependances, 'table' | 'horloge'>, debit: Debit) => {
  const { requete, lot, cout } = debit;
  const maintenant = d.horloge();
  const expire_a = ttlDans(maintenant, RETENTION_SECONDES);
  const items: ElementTransaction[] = [
    comptes.elementDebit(d.table, requete.compte, {
      cout,
      travaux: debit.travaux.length,
      max: MAX_TRAVAUX_EN_ATTENTE,
      televersements: debit.televersements,
      test: requete.test,
    }),
    // Erasing a job erases the replay of its request too (core/domaine/effacement/).
    ...debit.travaux.map((travail) => travaux.elementCreer(d.table, travail, { idempotence: requete.cleIdempotence, expire_a })),
  ];
  if (lot) {
    items.push(lots.elementCreer(d.table, lot, expire_a));
  }
  for (const u of debit.utilisations ?? []) items.push(travaux.elementUtilisation(d.table, requete.compte, u.televersement, u.travail, expire_a));
  if (requete.cleIdempotence !== undefined) {
    items.push(elementIdempotence(d.table, { ...requete, cleIdempotence: requete.cleIdempotence }, debit.reponse, maintenant));
  }
  return items;
};

/**
 * Debits and records, or throws the answer: 402, 429, 422 `idempotency_key_reused` (a concurrent
 * request with the same key won), 503 when too little time is left or the outcome stays unknown.
 */
export const debiter = async (d: AvecTable, debit: Debit): Promise<void> => {
  if (debit.echeance - Date.now() < MARGE_DEBIT_MS) {
    throw indisponible('The request took too long to read and check; nothing was charged. Please retry.');
  }
  const entree = { TransactItems: elements(d, debit), ClientRequestToken: randomUUID() };
  // The first attempt keeps half the margin for one repeat of the same transaction.
  try {
    await avecReessais(d, entree, { echeance: debit.echeance - MARGE_DEBIT_MS / 2 });
    return;
  } catch (erreur) {
    // A cancellation is DynamoDB's answer (a condition failed): nothing was written.
    const raisons = raisonsAnnulation(erreur);
    if (raisons) return refus(erreur, raisons, debit);
    // Anything else (no answer in time, a dropped connection, a 5xx) leaves the outcome unknown.
    await signaler('warn', 'the debit got no clear answer: sending the same transaction again', { erreur });
  }
  try {
    await avecReessais(d, entree, { echeance: debit.echeance - 500 });
  } catch (erreur) {
    const raisons = raisonsAnnulation(erreur);
    if (!raisons) {
      await signaler('error', 'the debit stayed unconfirmed', { erreur });
      throw indisponible(
        'The request could not be confirmed in time and may have been recorded: retry with the same Idempotency-Key to get its answer, or look at GET /travaux.',
      );
    }
    // One of our jobs already exists: the first attempt committed — unless that job is another
    // request's, which can only be one using the same upload (its job carries the upload's id).
    const existant = travailExistant(raisons, debit);
    if (existant && (await estANous(d, existant))) return;
    return refus(erreur, raisons, debit);
  }
};

/** The first of our jobs whose Put found the job already written (the transaction's items 1…n are the jobs). */
const travailExistant = (raisons: RaisonAnnulation[], debit: Debit): EnregistrementTravail | undefined =>
  debit.travaux.find((_, i) => raisons[1 + i]?.Code === 'ConditionalCheckFailed');

const estANous = async (d: Pick<Dependances, 'ddb' | 'table'>, travail: EnregistrementTravail): Promise<boolean> => {
  const existant = await travaux.lire(d, travail.id);
  return existant?.compte === travail.compte && existant?.cree_le === travail.cree_le && existant?.index === travail.index;
};

/** A cancelled debit becomes the answer its failed condition means. */
const refus = (erreur: unknown, raisons: RaisonAnnulation[], debit: Debit): never => {
  const compte = raisons[0];
  if (compte?.Code === 'ConditionalCheckFailed') {
    // The account as it was (depots/comptes.ts, elementDebit).
    const actuel = comptes.depuisItem(compte.Item);
    const ouverts = debit.requete.test ? actuel?.travaux_ouverts_test : actuel?.travaux_ouverts;
    verifierSolde(Number(actuel?.credits ?? 0), ouverts ?? 0, debit.cout, debit.travaux.length);
  }
  // The transaction's items: the account, the jobs, the batch, the uploads, the idempotency record.
  // A job that already exists, or an upload marked used, is an upload another request used meanwhile.
  const debutUtilisations = 1 + debit.travaux.length + (debit.lot ? 1 : 0);
  const utilisee =
    travailExistant(raisons, debit)?.id ??
    (debit.utilisations ?? []).find((_, i) => raisons[debutUtilisations + i]?.Code === 'ConditionalCheckFailed')?.televersement;
  if (utilisee) {
    throw new ErreurApi('invalid_image', `The upload ${utilisee} was used by another request meanwhile; upload the file again.`, {
      televersement: utilisee,
      raison: 'deja_utilise',
    });
  }
  if (debit.requete.cleIdempotence !== undefined && raisons[raisons.length - 1]?.Code === 'ConditionalCheckFailed') {
    throw new ErreurApi('idempotency_key_reused', 'A request with this Idempotency-Key is already recorded.');
  }
  throw erreur;
};
