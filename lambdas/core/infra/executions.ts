/**
 * A job's executions of the state machine. The execution's name is the job id (`-2` for the one
 * allowed re-run), so starting a job twice is harmless: Step Functions answers a second
 * StartExecution of the same name and input with the same execution, or ExecutionAlreadyExists.
 * Its status (DescribeExecution) is the truth the sweeper reads (balayage.ts).
 */
import { DescribeExecutionCommand, ExecutionAlreadyExists, ExecutionDoesNotExist, StartExecutionCommand } from '@aws-sdk/client-sfn';
import type { Dependances } from './dependances';
import { signaler } from './signalement';
import { numeroTentative, type EnregistrementTravail } from '../modele/enregistrements';
import type { IdOutil } from '../modele/outils';

/** Input of one execution of the state machine. */
export interface EntreeExecution {
  travail: string;
  compte: string;
  lot: string | null;
  outil: IdOutil;
  /**
   * Which run of the job this execution is (1, or 2 for the sweeper's re-run): a step of an older run
   * that is still going (a timed-out or aborted execution's Lambda runs on) must not write for the newer.
   */
  tentative?: number;
}

type TravailExecutable = Pick<EnregistrementTravail, 'id' | 'compte' | 'lot' | 'outil'> & { tentative?: number };

export const entreeExecution = (t: TravailExecutable): EntreeExecution => ({
  travail: t.id,
  compte: t.compte,
  lot: t.lot,
  outil: t.outil,
  tentative: numeroTentative(t),
});

export const nomExecution = (t: Pick<TravailExecutable, 'id' | 'tentative'>): string => (numeroTentative(t) <= 1 ? t.id : `${t.id}-${t.tentative}`);

/** arn:…:stateMachine:<machine> → arn:…:execution:<machine>:<name> */
export const arnExecution = (machine: string, nom: string): string => `${machine.replace(':stateMachine:', ':execution:')}:${nom}`;

/** Starts the job's current execution; already started is fine. */
export const demarrerExecution = async (
  d: Pick<Dependances, 'sfn' | 'machine'>,
  travail: TravailExecutable,
  options: { abortSignal?: AbortSignal } = {},
): Promise<void> => {
  try {
    await d.sfn.send(
      new StartExecutionCommand({ stateMachineArn: d.machine, name: nomExecution(travail), input: JSON.stringify(entreeExecution(travail)) }),
      options,
    );
  } catch (erreur) {
    if (erreur instanceof ExecutionAlreadyExists) return;
    throw erreur;
  }
};

export type StatutExecution = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED' | 'PENDING_REDRIVE' | 'ABSENTE';

export interface ExecutionDecrite {
  statut: StatutExecution;
  /** For a FAILED execution: the error and cause its last state reported. */
  erreur?: { Error?: string; Cause?: string };
  /** When an ended execution stopped (epoch ms): a task it had invoked may run on after that (balayage.ts). */
  arretee_le?: number;
}

export const decrireExecution = async (
  d: Pick<Dependances, 'sfn' | 'machine'>,
  travail: Pick<TravailExecutable, 'id' | 'tentative'>,
): Promise<ExecutionDecrite> => {
  try {
    const sortie = await d.sfn.send(new DescribeExecutionCommand({ executionArn: arnExecution(d.machine, nomExecution(travail)) }));
    return {
      statut: (sortie.status ?? 'RUNNING') as StatutExecution,
      ...(sortie.status === 'FAILED' ? { erreur: { Error: sortie.error, Cause: sortie.cause } } : {}),
      ...(sortie.stopDate ? { arretee_le: sortie.stopDate.getTime() } : {}),
    };
  } catch (erreur) {
    if (erreur instanceof ExecutionDoesNotExist) return { statut: 'ABSENTE' };
    throw erreur;
  }
};

/**
 * Starts every job's execution, ten at a time, giving up at `echeance`. A job whose start fails or
 * does not fit in time stays `en_attente`: the sweeper starts it. Never throws: the debit is done
 * and the answer must go out.
 */
export const demarrerExecutions = async (d: Pick<Dependances, 'sfn' | 'machine'>, travaux: TravailExecutable[], echeance: number): Promise<void> => {
  for (let debut = 0; debut < travaux.length; debut += 10) {
    const reste = echeance - Date.now();
    if (reste <= 0) {
      await signaler('warn', 'no time left to start executions: the sweeper starts the rest', { restants: travaux.length - debut });
      return;
    }
    await Promise.all(
      travaux.slice(debut, debut + 10).map(async (travail) => {
        try {
          await demarrerExecution(d, travail, { abortSignal: AbortSignal.timeout(reste) });
        } catch (erreur) {
          await signaler('warn', 'could not start an execution: the job stays en_attente for the sweeper', { travail: travail.id, erreur });
        }
      }),
    );
  }
};
