/**
 * The local Step Functions' state (local/stepfunctions.ts): its executions in memory and the rules
 * the service keeps on them (one name, one execution; how a run ends becomes its status; an execution
 * lost with its process vanishes). Running the states is the interpreter's, answering the protocol's.
 */
import { randomUUID } from 'node:crypto';

export type Statut = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED';

export interface Execution {
  arn: string;
  nom: string;
  entree: string;
  debut: Date;
  fin?: Date;
  statut: Statut;
  sortie?: unknown;
  erreur?: { Error: string; Cause: string };
  termine: Promise<void>;
  abandonner?: () => void;
}

/** An error the service answers: its type is the exception class the SDK raises. */
export class ErreurService extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly statut = 400,
  ) {
    super(message);
  }
}

/** A run of the interpreter, as aws-local-stepfunctions gives it. */
export interface Course {
  abort: () => void;
  result: Promise<unknown>;
}

export interface MachineLocale {
  region: string;
  compte: string;
  nomMachine: string;
  arnMachine: string;
  /** Fault injection: StartExecution answers 500 for these execution names. */
  echecDemarrage?: (nom: string) => boolean;
  /** Starts the interpreter on the input, with the execution's context object. */
  lancer: (entree: string, contexte: { arn: string; nom: string; debut: Date }) => Course;
}

/** The execution's status once its run settles. */
const suivre = (execution: Execution, course: Course) =>
  course.result.then(
    (sortie) => {
      Object.assign(execution, { statut: 'SUCCEEDED', sortie, fin: new Date() });
    },
    (erreur: Error) => {
      const fin = new Date();
      if (erreur.name === 'ExecutionTimeoutError') return void Object.assign(execution, { statut: 'TIMED_OUT', fin });
      if (erreur.name === 'ExecutionAbortedError') return void Object.assign(execution, { statut: 'ABORTED', fin });
      // The error of the state that failed (a Fail state's Error/Cause, or an uncaught task error).
      const cause = erreur.name === 'ExecutionError' && erreur.cause instanceof Error ? erreur.cause : erreur;
      Object.assign(execution, { statut: 'FAILED', fin, erreur: { Error: cause.name, Cause: cause.message } });
    },
  );

/** StartExecution: a new execution, or the running one of that name and input. */
export const demarrerExecution = (
  executions: Map<string, Execution>,
  m: MachineLocale,
  corps: { stateMachineArn?: string; name?: string; input?: string },
): Execution => {
  if (corps.stateMachineArn !== m.arnMachine) throw new ErreurService('StateMachineDoesNotExist', `State Machine Does Not Exist: '${corps.stateMachineArn}'`);
  const nom = corps.name ?? randomUUID();
  const entree = corps.input ?? '{}';
  const arn = `arn:aws:states:${m.region}:${m.compte}:execution:${m.nomMachine}:${nom}`;
  const existante = executions.get(arn);
  if (existante) {
    // As on AWS: the same name and input while running is the same execution; anything else is refused.
    if (existante.statut === 'RUNNING' && existante.entree === entree) return existante;
    throw new ErreurService('ExecutionAlreadyExists', `Execution Already Exists: '${arn}'`);
  }
  if (m.echecDemarrage?.(nom)) throw new ErreurService('ServiceUnavailable', 'Injected fault: the service is unavailable.', 500);
  const debut = new Date();
  const execution: Execution = { arn, nom, entree, debut, statut: 'RUNNING', termine: Promise.resolve() };
  const course = m.lancer(entree, { arn, nom, debut });
  execution.abandonner = course.abort;
  execution.termine = suivre(execution, course);
  executions.set(arn, execution);
  return execution;
};

/** The execution whose input this is vanishes from the service, like a process that died. */
export const perdre = (executions: Map<string, Execution>, entree: unknown) => {
  for (const [arn, execution] of executions) {
    const travail = (JSON.parse(execution.entree) as { travail?: string }).travail;
    if (execution.statut === 'RUNNING' && travail !== undefined && travail === (entree as { travail?: string }).travail) {
      executions.delete(arn);
      setImmediate(() => execution.abandonner?.());
    }
  }
};

export const attendreInactivite = async (executions: ReadonlyMap<string, Execution>) => {
  for (;;) {
    const enCours = [...executions.values()].filter((e) => e.statut === 'RUNNING');
    if (enCours.length === 0) return;
    await Promise.all(enCours.map((e) => e.termine));
  }
};

/** What runs dies with the stack, as with a process that stops: the sweeper finishes it later. */
export const abandonnerTout = (executions: ReadonlyMap<string, Execution>) => {
  for (const execution of executions.values()) if (execution.statut === 'RUNNING') execution.abandonner?.();
};
