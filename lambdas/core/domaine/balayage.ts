/**
 * The sweeper: the one owner of unfinished work. Run on a schedule (every minute on AWS, at start and
 * every few seconds locally), it reads every job still `en_attente` or `en_cours` and every batch
 * still `en_cours` (the sparse `ouverts` index), and finishes each from the truth — the job record
 * and its execution's status (DescribeExecution):
 *
 *   execution running                 → leave it (the execution's own timeout bounds it)
 *   never started (job en_attente)    → start it
 *   lost, aborted, or ended while the job is still open
 *                                     → run it again once (execution `<id>-2`), if that run still
 *                                       fits in the bound; otherwise refund once
 *   failed (its refund failed)        → refund once, with the job's own error
 *   timed out                         → refund once
 *   (timed out or aborted: only once the step it had invoked cannot be running any more — Step
 *    Functions stops an execution, not the Lambda invocation it waits on; until then, leave it)
 *   batch whose jobs all ended, with no live ZIP claim → write its ZIP and close it
 *   ended batch one of whose jobs was erased           → write its ZIP again without it
 *   erasure asked while its job or batch ran, or cut short → erase it once it has ended (effacement.ts)
 *   upload unused past its time, or erased with its job  → remove it (televersements.ts)
 *   webhook delivery due with no attempt made            → queue it again (webhooks/livraison.ts)
 *
 * Refunds and batch closes go through cycle.ts and lots.ts, which are idempotent, so a sweep that
 * races a step, or dies halfway and is repeated, changes nothing twice.
 *
 * The bound: a job's execution lasts at most DUREE_MAX_EXECUTION_MS (the state machine's
 * TimeoutSeconds); a job is started or run again only while that still ends before
 * BORNE_RELANCE_MS after its creation, and refunded after. So every job has ended within
 * BORNE_TRAVAIL_MS of its creation, and every batch within BORNE_LOT_MS (its last job's end, a ZIP
 * claim that may have to expire, and the ZIP), as long as the sweeper runs.
 */
import { erreurDepuisEchec, nouvelleTentative, rembourserTravail, TENTATIVES_MAX } from './cycle';
import type { AvecExecutions, AvecFileWebhooks, AvecObjets, AvecS3, AvecTable } from '../infra/dependances';
import { CODES_TRAVAIL } from '../modele/erreurs';
import { decrireExecution, demarrerExecution, type ExecutionDecrite } from '../infra/executions';
import { journal } from '../infra/journal';
import { traiterDemandeEffacement } from './effacement/demandes';
import { MARGE_RETRAIT_MS, retirerTeleversement } from './televersements';
import { finaliserLot } from './lots';
import { relancerLivraisons } from './webhooks/livraison';
import { compterRemboursement } from '../infra/mesures';
import { numeroTentative, type EnregistrementLot, type EnregistrementTravail, type ErreurDuTravail } from '../modele/enregistrements';
import * as effacements from '../depots/effacements';
import * as lots from '../depots/lots';
import * as televersements from '../depots/televersements';
import * as travaux from '../depots/travaux';
import * as tour from '../depots/tour-balayage';
import { randomUUID } from 'node:crypto';

const MINUTE = 60_000;
/** The state machine's TimeoutSeconds (statemachines/travail.asl.json; a unit test keeps them equal). */
export const DUREE_MAX_EXECUTION_MS = 30 * MINUTE;
/**
 * The longest a step that writes a job's files may run (the tool function's timeout, 5 minutes in
 * lib/flux.ts, with a margin): after an execution stopped, a step it invoked may run on that long.
 */
export const DUREE_MAX_TACHE_MS = 6 * MINUTE;
/** A job is (re)started only if its execution can still end by then. */
export const BORNE_RELANCE_MS = 60 * MINUTE;
/** How often the sweeper runs on AWS (the EventBridge schedule in lib/flux.ts). */
export const PERIODE_BALAYAGE_MS = 1 * MINUTE;
/** Work younger than this is left to its own request or step (on AWS; the local stack uses seconds). */
export const AGE_MINIMUM_MS = 2 * MINUTE;
/** Every job has ended (termine, or echec and refunded) within this time of its creation. */
export const BORNE_TRAVAIL_MS = BORNE_RELANCE_MS + 2 * PERIODE_BALAYAGE_MS;
/** Every batch has ended within this time: its last job's bound, an expired ZIP claim, the ZIP itself. */
export const BORNE_LOT_MS = BORNE_TRAVAIL_MS + AGE_MINIMUM_MS + lots.DUREE_RECLAMATION_MS + 12 * MINUTE;
/**
 * An erasure asked while its work ran is done within this time of the request: the work ends within
 * BORNE_LOT_MS of its creation (earlier than the request), a ZIP claim may have to expire, then one sweep.
 */
export const BORNE_EFFACEMENT_MS = BORNE_LOT_MS + lots.DUREE_RECLAMATION_MS + 2 * PERIODE_BALAYAGE_MS;

/**
 * The sweeper function's timeout (lib/flux.ts): a run that died without giving its turn back
 * (depots/tour-balayage.ts) holds it no longer than this.
 */
export const DUREE_MAX_BALAYAGE_MS = 10 * MINUTE;

/** DescribeExecution is throttled (15/s refill): a run examines the oldest jobs first, up to this many. */
const MAX_PAR_PASSAGE = 500;
const EN_PARALLELE = 4;

export type Decision = { action: 'laisser' } | { action: 'demarrer' } | { action: 'relancer' } | { action: 'rembourser'; erreur: ErreurDuTravail };

const erreur = (code: keyof typeof CODES_TRAVAIL, message: string = CODES_TRAVAIL[code]): Decision => ({
  action: 'rembourser',
  erreur: { code, message },
});

/** What to do with an open job, from its record, its execution and its age. Pure: unit-tested alone. */
export const decider = (
  travail: Pick<EnregistrementTravail, 'statut' | 'tentative'>,
  execution: ExecutionDecrite,
  ageMs: number,
  maintenant: number = Date.now(),
): Decision => {
  // A stopped execution's tool step may still be writing: refunding, running again or erasing now
  // would let it write after us (pipeline/outil.ts checks too, just before it writes).
  const tacheEnCours = execution.arretee_le !== undefined && maintenant - execution.arretee_le < DUREE_MAX_TACHE_MS;
  if ((execution.statut === 'TIMED_OUT' || execution.statut === 'ABORTED') && tacheEnCours) return { action: 'laisser' };
  const tientDansLaBorne = ageMs + DUREE_MAX_EXECUTION_MS <= BORNE_RELANCE_MS;
  const peutRelancer = numeroTentative(travail) < TENTATIVES_MAX && tientDansLaBorne;
  const perdu = erreur('erreur_interne', 'The job was interrupted and could not be finished; its credits were refunded.');
  switch (execution.statut) {
    case 'RUNNING':
    case 'PENDING_REDRIVE':
      return { action: 'laisser' };
    case 'ABSENTE':
      if (travail.statut === 'en_attente') {
        return tientDansLaBorne ? { action: 'demarrer' } : erreur('demarrage_impossible', 'The job could not be started; its credits were refunded.');
      }
      return peutRelancer ? { action: 'relancer' } : perdu;
    case 'FAILED':
      return { action: 'rembourser', erreur: erreurDepuisEchec(execution.erreur) };
    case 'TIMED_OUT':
      return erreur('moteur_indisponible', 'The job took too long and was stopped; its credits were refunded.');
    case 'ABORTED':
    case 'SUCCEEDED':
      return peutRelancer ? { action: 'relancer' } : perdu;
  }
};

export interface OptionsBalayage {
  /** Work younger than this is not looked at. */
  ageMinimumMs: number;
}

export interface BilanBalayage {
  examines: number;
  demarres: number;
  relances: number;
  rembourses: number;
  lotsFinalises: number;
  travauxEnRetard: number;
  lotsEnRetard: number;
  /** Erasures recorded while their work ran, done in this pass. */
  effacements: number;
  /** Erasures still waiting past BORNE_EFFACEMENT_MS: a legal duty left undone, it alarms. */
  effacementsEnRetard: number;
  /** Uploads removed: unused past their time, or erased with their job once their URL was dead. */
  televersementsRetires: number;
  /** Webhook deliveries due past the minimum age with no attempt (a lost message, a worker that died), queued again. */
  livraisonsRelancees: number;
}

/** The sweeper does what every step and erasure does: S3 both ways, executions started, the webhook queue told. */
export type DepsBalayage = AvecTable & AvecS3 & AvecObjets & AvecExecutions & AvecFileWebhooks;

const enParallele = async (ids: AsyncGenerator<string>, fn: (id: string) => Promise<void>): Promise<void> => {
  const ouvriers = Array.from({ length: EN_PARALLELE }, async () => {
    for (;;) {
      const { value, done } = await ids.next();
      if (done) return;
      try {
        await fn(value);
      } catch (e) {
        // One stuck item must not stop the sweep; the next run tries it again.
        journal.error('sweeper: could not finish an item; the next run tries again', { id: value, erreur: e });
      }
    }
  });
  await Promise.all(ouvriers);
};

const finaliserLotSiDernier = async (d: DepsBalayage, travail: EnregistrementTravail, bilan: BilanBalayage, lotAFinaliser: boolean) => {
  if (lotAFinaliser && travail.lot && (await finaliserLot(d, travail.lot, 'balayeur')).finalise) bilan.lotsFinalises++;
};

const traiterTravail = async (d: DepsBalayage, id: string, maintenant: Date, bilan: BilanBalayage): Promise<void> => {
  // The index is eventually consistent: the record says whether the job is still open.
  const travail = await travaux.lire(d, id);
  if (!travail || (travail.statut !== 'en_attente' && travail.statut !== 'en_cours')) return;
  bilan.examines++;
  const age = maintenant.getTime() - Date.parse(travail.cree_le);
  const decision = decider(travail, await decrireExecution(d, travail), age, maintenant.getTime());
  switch (decision.action) {
    case 'laisser':
      if (age > BORNE_TRAVAIL_MS) bilan.travauxEnRetard++;
      return;
    case 'demarrer':
      await demarrerExecution(d, travail);
      bilan.demarres++;
      return;
    case 'relancer': {
      const suivant = await nouvelleTentative(d, id);
      if (suivant) {
        await demarrerExecution(d, suivant);
        bilan.relances++;
      }
      return;
    }
    case 'rembourser': {
      const fin = await rembourserTravail(d, id, decision.erreur, 'balayeur');
      if (fin.rembourse) {
        compterRemboursement(travail.outil);
        bilan.rembourses++;
      }
      await finaliserLotSiDernier(d, travail, bilan, fin.lot_a_finaliser);
      return;
    }
  }
};

const traiterLot = async (d: DepsBalayage, id: string, maintenant: Date, ageMinimumMs: number, bilan: BilanBalayage): Promise<void> => {
  const lot: EnregistrementLot | undefined = await lots.lire(d, id);
  if (!lot || (lot.statut !== 'en_cours' && !lot.zip_a_refaire)) return;
  const finiDepuis = lot.derniere_fin ? maintenant.getTime() - Date.parse(lot.derniere_fin) : maintenant.getTime() - Date.parse(lot.cree_le);
  // A ZIP to write anew after an erasure is late from the erasure (its derniere_fin), not from the batch's creation.
  const age = lot.zip_a_refaire ? finiDepuis : maintenant.getTime() - Date.parse(lot.cree_le);
  const reclame = lot.finaliseur !== undefined && (lot.reclame_jusqua ?? 0) > maintenant.getTime();
  // A batch whose last job just ended is left to that job's own ZIP step for a while.
  if (lot.restants === 0 && finiDepuis >= ageMinimumMs && !reclame) {
    if ((await finaliserLot(d, id, 'balayeur')).finalise) {
      bilan.lotsFinalises++;
      return;
    }
  }
  if (age > BORNE_LOT_MS) bilan.lotsEnRetard++;
};

export const balayer = async (d: DepsBalayage, options: OptionsBalayage): Promise<BilanBalayage> => {
  const maintenant = d.horloge();
  const avant = new Date(maintenant.getTime() - options.ageMinimumMs);
  const bilan: BilanBalayage = {
    examines: 0,
    demarres: 0,
    relances: 0,
    rembourses: 0,
    lotsFinalises: 0,
    travauxEnRetard: 0,
    lotsEnRetard: 0,
    effacements: 0,
    effacementsEnRetard: 0,
    televersementsRetires: 0,
    livraisonsRelancees: 0,
  };
  // Jobs first: refunding a batch's last job may close the batch right away.
  await enParallele(travaux.ouverts(d, avant, MAX_PAR_PASSAGE), (id) => traiterTravail(d, id, maintenant, bilan));
  await enParallele(lots.ouverts(d, avant, MAX_PAR_PASSAGE), (id) => traiterLot(d, id, maintenant, options.ageMinimumMs, bilan));
  // Last: the jobs and batches just ended above can be erased in the same pass. A request younger
  // than the minimum age may be an erasure still under way in its own HTTP call.
  await enParallele(effacements.ouvertes(d, avant, MAX_PAR_PASSAGE), async (id) => {
    const issue = await traiterDemandeEffacement(d, id);
    if (issue.statut === 'efface') bilan.effacements++;
    else if (issue.statut === 'differe' && issue.demande_le && maintenant.getTime() - Date.parse(issue.demande_le) > BORNE_EFFACEMENT_MS)
      bilan.effacementsEnRetard++;
  });
  // Uploads are due by their own time (indexed by it), whatever the minimum age.
  await enParallele(televersements.ouverts(d, new Date(maintenant.getTime() - MARGE_RETRAIT_MS), MAX_PAR_PASSAGE), async (id) => {
    if ((await retirerTeleversement(d, id)) === 'retire') bilan.televersementsRetires++;
  });
  // Webhook deliveries whose attempt is overdue: queued again (the delivery function drops a duplicate).
  bilan.livraisonsRelancees = await relancerLivraisons(d, avant, MAX_PAR_PASSAGE);
  return bilan;
};

/**
 * One sweep, if no other is under way (the turn of depots/tour-balayage.ts); undefined when another
 * run holds the turn: this minute's tick is dropped, as the next one comes anyway.
 */
export const balayerASonTour = async (d: DepsBalayage, options: OptionsBalayage): Promise<BilanBalayage | undefined> => {
  const jeton = randomUUID();
  if (!(await tour.prendre(d, jeton, new Date(d.horloge().getTime() + DUREE_MAX_BALAYAGE_MS)))) return undefined;
  try {
    return await balayer(d, options);
  } finally {
    await tour.rendre(d, jeton);
  }
};
