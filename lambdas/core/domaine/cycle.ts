/**
 * A job's life after the debit: `en_attente` → `en_cours` → `termine` | `echec` (refunded). This is
 * the one place that ends a job; the state machine's steps and the sweeper (balayage.ts) call it.
 *
 * Every step is one DynamoDB transaction guarded by the job's current state, so a step that Step
 * Functions retries after it already took effect, or that the sweeper repeats, changes nothing the
 * second time: credits are refunded once, batch counters and the account's pending count move once.
 * A job stays in the `ouverts` index until it ends, which is how the sweeper finds unfinished work.
 * The records and their guarded writes are depots/travaux.ts's, depots/comptes.ts's and
 * depots/lots.ts's; this module composes them. Every call that finds or leaves the job ended
 * announces `travail.fini` to the account's webhooks (webhooks/annonces.ts: once, however often asked).
 */
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { resultatsDuTravail } from '../modele/cles-s3';
import type { AvecFileWebhooks, AvecS3, AvecTable } from '../infra/dependances';
import * as comptes from '../depots/comptes';
import * as lots from '../depots/lots';
import { avecReessais, raisonsAnnulation, type ElementTransaction } from '../depots/transactions';
import * as travaux from '../depots/travaux';
import { CODES_TRAVAIL, ErreurTravail, type CodeTravail } from '../modele/erreurs';
import { estSaTentative, numeroTentative, type EnregistrementTravail, type ErreurDuTravail, type Resultat } from '../modele/enregistrements';
import type { SortieOutil } from '../modele/sorties';
import { annoncerFinTravail } from './webhooks/annonces';

/** Ending a job: its records, and its announcement (`travail.fini`) on the webhook queue. */
export type DepsFin = AvecTable & AvecFileWebhooks;

/** What the state machine's Choice reads after a job ends: is it the last of its batch? */
export interface FinTravail {
  lot_a_finaliser: boolean;
}

/** `en_attente` → `en_cours`. Returns the job; a retry on an `en_cours` job is a no-op. */
export const commencerTravail = async (d: AvecTable, id: string): Promise<EnregistrementTravail> => {
  const commence = await travaux.commencer(d, id, d.horloge());
  if (commence) return commence;
  const travail = await travaux.lire(d, id);
  if (travail?.statut === 'en_cours') return travail;
  // Already closed (e.g. refunded when its start looked failed): nothing left to run.
  throw new ErreurTravail('erreur_interne', `job ${id} is ${travail?.statut ?? 'missing'} and cannot start`);
};

/**
 * A job's end, `element` (depots/travaux.ts), sent with what moves with it in the same transaction:
 * the account's pending count and the credits given back, the batch's counters. False when the job's
 * own guard failed (it is the first item): another call ended it, or another run has it.
 */
const ecrireFin = async (
  d: AvecTable,
  travail: EnregistrementTravail,
  element: ElementTransaction,
  issue: 'termines' | 'echecs',
  credits: number,
): Promise<boolean> => {
  const elements: ElementTransaction[] = [element, comptes.elementFinTravail(d.table, travail.compte, credits, travail.test)];
  if (travail.lot) elements.push(lots.elementFinTravail(d.table, travail.lot, issue, d.horloge()));
  try {
    await avecReessais(d, { TransactItems: elements });
    return true;
  } catch (erreur) {
    if (raisonsAnnulation(erreur)?.[0]?.Code !== 'ConditionalCheckFailed') throw erreur;
    return false;
  }
};

const estFin = async (d: Pick<AvecTable, 'ddb' | 'table'>, travail: EnregistrementTravail): Promise<FinTravail> => {
  if (!travail.lot) return { lot_a_finaliser: false };
  const lot = await lots.lire(d, travail.lot);
  // Several jobs may see restants = 0 (the last two ending together): finaliserLot lets one through.
  return { lot_a_finaliser: lot !== undefined && lot.restants === 0 && lot.statut === 'en_cours' };
};

/**
 * What the tool step produced, as it travels in the execution's state: result formats and the S3 key of
 * the listing text, never the content itself (pipeline/etape.ts says why).
 */
const lireTexte = async (d: AvecS3, cle: string): Promise<string> => {
  const { Body } = await d.s3.send(new GetObjectCommand({ Bucket: d.bucket, Key: cle }));
  if (!Body) throw new Error("the listing text's object has no body");
  return Body.transformToString('utf-8');
};

/**
 * Who ends a job: the execution of run `tentative` (executions.ts; an input without one is run 1, as
 * everywhere: modele/enregistrements.ts, estSaTentative), which must still be the job's current run (an
 * older run still going, its execution aborted or timed out while a step ran on, must not end a newer
 * one); or the sweeper, which decided from the job's current run.
 */
export type Fin = { tentative: number | undefined } | 'balayeur';
const parSonExecution = (travail: EnregistrementTravail, par: Fin): boolean => par === 'balayeur' || estSaTentative(travail, par.tentative);
/** The guard of the write: the run's number, none for the sweeper's end (depots/travaux.ts). */
const garde = (par: Fin): number | undefined => (par === 'balayeur' ? undefined : numeroTentative(par));

/** `en_cours` → `termine` with its results. */
export const terminerTravail = async (d: DepsFin & AvecS3, id: string, sortie: SortieOutil, par: Fin): Promise<FinTravail> => {
  const travail = await travaux.lire(d, id);
  if (!travail) throw new ErreurTravail('erreur_interne', `job ${id} is missing`);
  if (travail.statut === 'termine') {
    // A retry after the write: the announcement may be what failed (it is made once, however often asked).
    await annoncerFinTravail(d, travail);
    return estFin(d, travail);
  }
  if (!parSonExecution(travail, par)) throw new ErreurTravail('erreur_interne', `job ${id} is run by another execution`);
  const resultats: Resultat[] = resultatsDuTravail(
    travail,
    sortie.resultats.map((r) => r.format),
  );
  const texte = sortie.texte === null ? null : await lireTexte(d, sortie.texte);
  const fin = {
    resultats,
    texte,
    graine: sortie.graine,
    redaction: sortie.redaction ?? null,
    structure: sortie.structure ?? null,
    floutage: sortie.floutage ?? null,
    // An output from before the step said its engine: the job's own word, from its creation.
    apercu: sortie.apercu ?? (travail.apercu === true || travail.test === true),
  };
  if (!(await ecrireFin(d, travail, travaux.elementTerminer(d.table, id, fin, garde(par), d.horloge()), 'termines', 0))) {
    const actuel = await travaux.lire(d, id);
    if (actuel?.statut !== 'termine') throw new ErreurTravail('erreur_interne', `job ${id} is ${actuel?.statut} and cannot end`);
  }
  await annoncerFinTravail(d, travail);
  return estFin(d, travail);
};

/**
 * `en_attente` | `en_cours` → `echec`, credits given back. Safe to call any number of times, from the
 * state machine's Catch branch or from the sweeper: only the first call changes anything. A job
 * already `termine` is never refunded.
 */
export const rembourserTravail = async (d: DepsFin, id: string, erreur: ErreurDuTravail, par: Fin): Promise<FinTravail & { rembourse: boolean }> => {
  const travail = await travaux.lire(d, id);
  if (!travail) throw new ErreurTravail('erreur_interne', `job ${id} is missing`);
  if (travail.statut === 'termine' || travail.statut === 'echec') {
    await annoncerFinTravail(d, travail);
    return { ...(await estFin(d, travail)), rembourse: false };
  }
  // A newer run has the job: this older one's failure is not the job's.
  if (!parSonExecution(travail, par)) return { lot_a_finaliser: false, rembourse: false };
  const rembourse = await ecrireFin(d, travail, travaux.elementEchouer(d.table, id, erreur, garde(par), d.horloge()), 'echecs', travail.cout);
  // Ended, by this call or a concurrent one: `travail.fini` either way (delivered once).
  await annoncerFinTravail(d, travail);
  return { ...(await estFin(d, travail)), rembourse };
};

/**
 * The one re-run the sweeper may give a job whose execution was lost, aborted or ended without
 * closing it: its next execution is `tentative` 2 (executions.ts names it). Undefined when the job
 * already had its re-run or has ended meanwhile.
 */
export const nouvelleTentative = (d: AvecTable, id: string): Promise<EnregistrementTravail | undefined> => travaux.relancer(d, id, TENTATIVES_MAX);

/** A job runs at most twice: its first execution and one re-run by the sweeper. */
export const TENTATIVES_MAX = 2;

/**
 * Turns what the state machine's Catch gives (`{Error, Cause}`) into the job's `erreur`. Only known
 * codes reach the caller; anything else (a bug, a timeout) becomes `erreur_interne` so no internal
 * detail leaks into the API.
 */
export const erreurDepuisEchec = (echec: { Error?: string; Cause?: string } | undefined): ErreurDuTravail => {
  const nom = echec?.Error ?? '';
  let message: string | undefined;
  try {
    const cause = JSON.parse(echec?.Cause ?? '') as { errorMessage?: unknown };
    if (typeof cause.errorMessage === 'string') message = cause.errorMessage;
  } catch {
    message = undefined;
  }
  // A step that kept timing out (Step Functions reports a Lambda timeout as Lambda.Unknown).
  if (['States.Timeout', 'Lambda.Unknown', 'Lambda.ClientExecutionTimeoutException'].includes(nom)) {
    return { code: 'moteur_indisponible', message: CODES_TRAVAIL.moteur_indisponible };
  }
  if (Object.hasOwn(CODES_TRAVAIL, nom) && nom !== 'erreur_interne') {
    const code = nom as CodeTravail;
    return { code, message: message ?? CODES_TRAVAIL[code] };
  }
  return { code: 'erreur_interne', message: CODES_TRAVAIL.erreur_interne };
};
