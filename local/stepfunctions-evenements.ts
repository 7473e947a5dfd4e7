/**
 * The local Step Functions' side towards the functions (local/stepfunctions.ts): each Task state's
 * input given to its handler as Lambda would give it (JSON in and out, a Lambda context, a Lambda
 * error's name and cause as Retry and Catch see them), the faults tests inject around it, and the
 * interpreter that runs the very definition CDK deploys.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { StateMachine } from 'aws-local-stepfunctions';
import type { Course } from './stepfunctions-etat';

type JSONValue = Parameters<StateMachine['run']>[0];

export type HandlerTache = (evenement: unknown, contexte: Context) => Promise<unknown>;

/**
 * A fault for one call of one task: `avant` throws this error instead of calling the handler (the
 * invocation failed), `apres` calls the handler and then throws it (the work was done but its answer
 * was lost: a Lambda timeout or a dropped connection), `perte` makes the execution vanish at that
 * point, as when the process running it dies.
 */
export type Panne = { quand: 'avant' | 'apres'; erreur: Error } | { quand: 'perte' };
export type InjecteurPannes = (etat: string, entree: { travail?: string }) => Panne | undefined | Promise<Panne | undefined>;

/** Thrown inside an execution that is being lost: it must stop without any further state. */
class ExecutionPerdue extends Error {}

const PLACEHOLDER = /^\$\{(\w+)FunctionArn\}$/;

const contexteLambda = (region: string, compte: string, fonction: string): Context =>
  ({
    awsRequestId: randomUUID(),
    functionName: fonction,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${region}:${compte}:function:${fonction}`,
    memoryLimitInMB: '1024',
    logGroupName: `/aws/lambda/${fonction}`,
    logStreamName: 'local',
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => 900_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  }) as Context;

interface Invocation {
  region: string;
  compte: string;
  panne?: InjecteurPannes;
  /** The execution of this input is lost (a `perte` fault). */
  perdre?: (entree: unknown) => void;
}

/** One Task state's call of its handler, as Lambda makes it. */
const tache =
  (inv: Invocation, nomEtat: string, fonction: string, handler: HandlerTache) =>
  async (entree: JSONValue): Promise<JSONValue> => {
    const faute = await inv.panne?.(nomEtat, entree as { travail?: string });
    try {
      if (faute?.quand === 'perte') {
        inv.perdre?.(entree);
        throw new ExecutionPerdue();
      }
      if (faute?.quand === 'avant') throw faute.erreur;
      // A Lambda only ever sees JSON: what the handler returns goes through JSON too.
      const sortie = await handler(JSON.parse(JSON.stringify(entree)), contexteLambda(inv.region, inv.compte, fonction));
      if (faute?.quand === 'apres') throw faute.erreur;
      return sortie === undefined ? null : (JSON.parse(JSON.stringify(sortie)) as JSONValue);
    } catch (erreur) {
      if (erreur instanceof ExecutionPerdue) {
        // Never settles: the execution stops here, as its process died, and is aborted.
        return new Promise<JSONValue>(() => undefined);
      }
      const e = erreur as Error;
      const telleQueLambda = new Error(JSON.stringify({ errorType: e.name, errorMessage: e.message }));
      telleQueLambda.name = e.name;
      throw telleQueLambda;
    }
  };

/** Fills `${XFunctionArn}` and maps each Task state to its handler, from the definition itself. */
const preparerDefinition = (texte: string, handlers: Readonly<Record<string, HandlerTache>>, inv: Invocation) => {
  const definition = JSON.parse(texte) as { States: Record<string, { Type: string; Resource?: string }> };
  const taches: Record<string, (entree: JSONValue) => Promise<JSONValue>> = {};
  for (const [nomEtat, etat] of Object.entries(definition.States)) {
    if (etat.Type !== 'Task' || !etat.Resource) continue;
    const fonction = PLACEHOLDER.exec(etat.Resource)?.[1];
    if (!fonction) throw new Error(`state ${nomEtat}: resource ${etat.Resource} is not a \${XFunctionArn} placeholder`);
    const handler = handlers[fonction];
    if (!handler) throw new Error(`state ${nomEtat}: no local handler for ${fonction}`);
    etat.Resource = `arn:aws:lambda:${inv.region}:${inv.compte}:function:${fonction}`;
    taches[nomEtat] = tache(inv, nomEtat, fonction, handler);
  }
  return { definition, taches };
};

/**
 * The interpreter on the definition `texte`: what starts one run of it, with the context object the
 * service gives an execution. `pauseReessaiMs` replaces the definition's pauses between retries.
 */
export const interpreteur = (texte: string, handlers: Readonly<Record<string, HandlerTache>>, inv: Invocation, pauseReessaiMs?: number) => {
  const { definition, taches } = preparerDefinition(texte, handlers, inv);
  const machine = new StateMachine(definition as never, { validationOptions: { checkArn: true, checkPaths: true } });
  const pauses = pauseReessaiMs === undefined ? undefined : Object.fromEntries(Object.keys(definition.States).map((etat) => [etat, pauseReessaiMs]));
  return (entree: string, contexte: { arn: string; nom: string; debut: Date }): Course =>
    machine.run(JSON.parse(entree), {
      overrides: { taskResourceLocalHandlers: taches, ...(pauses ? { retryIntervalOverrides: pauses } : {}) },
      context: { Execution: { Id: contexte.arn, Name: contexte.nom, Input: JSON.parse(entree), StartTime: contexte.debut.toISOString(), RoleArn: '' } },
    });
};
