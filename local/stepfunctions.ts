/**
 * The local Step Functions: a small server speaking the service's JSON protocol (StartExecution,
 * DescribeExecution) on 127.0.0.1, so the handlers use the real SFNClient exactly as on AWS, and an
 * embedded ASL interpreter (aws-local-stepfunctions) that runs the very file CDK deploys.
 *
 * Each Task state's `${XFunctionArn}` resource is mapped to the in-process handler of the same name,
 * called like Lambda would call it. What AWS adds around a Lambda error is reproduced: the error's
 * name is what Retry/Catch match, and Catch's `Cause` is the JSON `{errorType, errorMessage}`.
 * Executions end as on AWS: SUCCEEDED, FAILED (with the error and cause of the state that failed),
 * TIMED_OUT (the definition's TimeoutSeconds) or ABORTED; they live in memory, so a stopped stack's
 * executions are gone, as if the process had died: DescribeExecution then says they do not exist.
 *
 * The executions and their rules are in stepfunctions-etat.ts, the wire format in
 * stepfunctions-protocole.ts, the interpreter and the calls of the task handlers in
 * stepfunctions-evenements.ts.
 */
import { readFileSync } from 'node:fs';
import { abandonnerTout, attendreInactivite, demarrerExecution, perdre, type Execution } from './stepfunctions-etat';
import { interpreteur, type HandlerTache, type InjecteurPannes } from './stepfunctions-evenements';
import { servirStepFunctions } from './stepfunctions-protocole';

export type { HandlerTache, InjecteurPannes, Panne } from './stepfunctions-evenements';

export interface OptionsStepFunctions {
  /** Path of the ASL file (statemachines/travail.asl.json). */
  definition: string;
  nomMachine: string;
  /** Handler per function name: `Preparer` answers `${PreparerFunctionArn}`. */
  handlers: Readonly<Record<string, HandlerTache>>;
  /** Pause between retries, in ms, instead of the definition's (tests keep them short). */
  pauseReessaiMs?: number;
  /** Fault injection: StartExecution answers 500 for these execution names. */
  echecDemarrage?: (nom: string) => boolean;
  /** Fault injection around each task (tests): see `Panne`. */
  panne?: InjecteurPannes;
  port?: number;
}

export interface StepFunctionsLocal {
  endpoint: string;
  arnMachine: string;
  executions: ReadonlyMap<string, Execution>;
  /** Resolves once no execution is running (tests). */
  attendreInactivite(): Promise<void>;
  arreter(): Promise<void>;
}

const REGION = 'us-east-1';
const COMPTE = '000000000000';

export const demarrerStepFunctions = async (options: OptionsStepFunctions): Promise<StepFunctionsLocal> => {
  const executions = new Map<string, Execution>();
  const lancer = interpreteur(
    readFileSync(options.definition, 'utf8'),
    options.handlers,
    { region: REGION, compte: COMPTE, panne: options.panne, perdre: (entree) => perdre(executions, entree) },
    options.pauseReessaiMs,
  );
  const arnMachine = `arn:aws:states:${REGION}:${COMPTE}:stateMachine:${options.nomMachine}`;
  const machine = { region: REGION, compte: COMPTE, nomMachine: options.nomMachine, arnMachine, echecDemarrage: options.echecDemarrage, lancer };
  const demarrer = (corps: Parameters<typeof demarrerExecution>[2]) => demarrerExecution(executions, machine, corps);
  const { serveur, port } = await servirStepFunctions({ arnMachine, executions, demarrer }, options.port ?? 0);

  return {
    endpoint: `http://127.0.0.1:${port}`,
    arnMachine,
    executions,
    attendreInactivite: () => attendreInactivite(executions),
    arreter: async () => {
      abandonnerTout(executions);
      await new Promise<void>((r) => serveur.close(() => r()));
    },
  };
};
