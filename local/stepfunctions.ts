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
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { StateMachine } from 'aws-local-stepfunctions';

type JSONValue = Parameters<StateMachine['run']>[0];

export type HandlerTache = (evenement: unknown, contexte: Context) => Promise<unknown>;

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

type Statut = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED';

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

interface Execution {
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
const PLACEHOLDER = /^\$\{(\w+)FunctionArn\}$/;

const contexteLambda = (fonction: string): Context =>
  ({
    awsRequestId: randomUUID(),
    functionName: fonction,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${REGION}:${COMPTE}:function:${fonction}`,
    memoryLimitInMB: '1024',
    logGroupName: `/aws/lambda/${fonction}`,
    logStreamName: 'local',
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => 900_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  }) as Context;

/** Fills `${XFunctionArn}` and maps each Task state to its handler, from the definition itself. */
const preparerDefinition = (texte: string, handlers: OptionsStepFunctions['handlers'], panne?: InjecteurPannes, perdre?: (entree: unknown) => void) => {
  const definition = JSON.parse(texte) as { States: Record<string, { Type: string; Resource?: string }> };
  const taches: Record<string, (entree: JSONValue) => Promise<JSONValue>> = {};
  for (const [nomEtat, etat] of Object.entries(definition.States)) {
    if (etat.Type !== 'Task' || !etat.Resource) continue;
    const fonction = PLACEHOLDER.exec(etat.Resource)?.[1];
    if (!fonction) throw new Error(`state ${nomEtat}: resource ${etat.Resource} is not a \${XFunctionArn} placeholder`);
    const handler = handlers[fonction];
    if (!handler) throw new Error(`state ${nomEtat}: no local handler for ${fonction}`);
    etat.Resource = `arn:aws:lambda:${REGION}:${COMPTE}:function:${fonction}`;
    taches[nomEtat] = async (entree) => {
      const faute = await panne?.(nomEtat, entree as { travail?: string });
      try {
        if (faute?.quand === 'perte') {
          perdre?.(entree);
          throw new ExecutionPerdue();
        }
        if (faute?.quand === 'avant') throw faute.erreur;
        // A Lambda only ever sees JSON: what the handler returns goes through JSON too.
        const sortie = await handler(JSON.parse(JSON.stringify(entree)), contexteLambda(fonction));
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
  }
  return { definition, taches };
};

const lireCorps = async (requete: IncomingMessage): Promise<string> => {
  const morceaux: Buffer[] = [];
  for await (const morceau of requete) morceaux.push(morceau as Buffer);
  return Buffer.concat(morceaux).toString('utf8');
};

class ErreurService extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly statut = 400,
  ) {
    super(message);
  }
}

export const demarrerStepFunctions = async (options: OptionsStepFunctions): Promise<StepFunctionsLocal> => {
  const executions = new Map<string, Execution>();
  const perdre = (entree: unknown) => {
    // The execution whose input this is vanishes from the service, like a process that died.
    for (const [arn, execution] of executions) {
      const travail = (JSON.parse(execution.entree) as { travail?: string }).travail;
      if (execution.statut === 'RUNNING' && travail !== undefined && travail === (entree as { travail?: string }).travail) {
        executions.delete(arn);
        setImmediate(() => execution.abandonner?.());
      }
    }
  };
  const { definition, taches } = preparerDefinition(readFileSync(options.definition, 'utf8'), options.handlers, options.panne, perdre);
  const machine = new StateMachine(definition as never, { validationOptions: { checkArn: true, checkPaths: true } });
  const arnMachine = `arn:aws:states:${REGION}:${COMPTE}:stateMachine:${options.nomMachine}`;
  const pauses =
    options.pauseReessaiMs === undefined ? undefined : Object.fromEntries(Object.keys(definition.States).map((etat) => [etat, options.pauseReessaiMs!]));

  const demarrer = (corps: { stateMachineArn?: string; name?: string; input?: string }) => {
    if (corps.stateMachineArn !== arnMachine) throw new ErreurService('StateMachineDoesNotExist', `State Machine Does Not Exist: '${corps.stateMachineArn}'`);
    const nom = corps.name ?? randomUUID();
    const entree = corps.input ?? '{}';
    const arn = `arn:aws:states:${REGION}:${COMPTE}:execution:${options.nomMachine}:${nom}`;
    const existante = executions.get(arn);
    if (existante) {
      // As on AWS: the same name and input while running is the same execution; anything else is refused.
      if (existante.statut === 'RUNNING' && existante.entree === entree) return existante;
      throw new ErreurService('ExecutionAlreadyExists', `Execution Already Exists: '${arn}'`);
    }
    if (options.echecDemarrage?.(nom)) throw new ErreurService('ServiceUnavailable', 'Injected fault: the service is unavailable.', 500);
    const debut = new Date();
    const execution: Execution = { arn, nom, entree, debut, statut: 'RUNNING', termine: Promise.resolve() };
    const course = machine.run(JSON.parse(entree), {
      overrides: { taskResourceLocalHandlers: taches, ...(pauses ? { retryIntervalOverrides: pauses } : {}) },
      context: { Execution: { Id: arn, Name: nom, Input: JSON.parse(entree), StartTime: debut.toISOString(), RoleArn: '' } },
    });
    execution.abandonner = course.abort;
    execution.termine = course.result.then(
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
    executions.set(arn, execution);
    return execution;
  };

  const decrire = (corps: { executionArn?: string }) => {
    const execution = executions.get(corps.executionArn ?? '');
    if (!execution) throw new ErreurService('ExecutionDoesNotExist', `Execution Does Not Exist: '${corps.executionArn}'`);
    return {
      executionArn: execution.arn,
      stateMachineArn: arnMachine,
      name: execution.nom,
      status: execution.statut,
      startDate: execution.debut.getTime() / 1000,
      ...(execution.fin ? { stopDate: execution.fin.getTime() / 1000 } : {}),
      input: execution.entree,
      ...(execution.statut === 'SUCCEEDED' ? { output: JSON.stringify(execution.sortie) } : {}),
      ...(execution.erreur ? { error: execution.erreur.Error, cause: execution.erreur.Cause } : {}),
    };
  };

  const serveur: Server = createServer(async (requete, reponse) => {
    const repondre = (statut: number, corps: unknown, type?: string) => {
      reponse.writeHead(statut, { 'Content-Type': 'application/x-amz-json-1.0', ...(type ? { 'x-amzn-ErrorType': type } : {}) });
      reponse.end(JSON.stringify(corps));
    };
    try {
      const action = String(requete.headers['x-amz-target'] ?? '').replace(/^AWSStepFunctions\./, '');
      const corps = JSON.parse((await lireCorps(requete)) || '{}');
      if (action === 'StartExecution') {
        const execution = demarrer(corps);
        repondre(200, { executionArn: execution.arn, startDate: execution.debut.getTime() / 1000 });
      } else if (action === 'DescribeExecution') {
        repondre(200, decrire(corps));
      } else {
        throw new ErreurService('UnknownOperationException', `The local Step Functions does not implement ${action}.`);
      }
    } catch (erreur) {
      const e = erreur instanceof ErreurService ? erreur : new ErreurService('InternalFailure', (erreur as Error).message, 500);
      repondre(e.statut, { __type: e.type, message: e.message }, e.type);
    }
  });
  await new Promise<void>((r) => serveur.listen(options.port ?? 0, '127.0.0.1', r));
  const adresse = serveur.address();
  const port = typeof adresse === 'object' && adresse ? adresse.port : 0;

  const attendreInactivite = async () => {
    for (;;) {
      const enCours = [...executions.values()].filter((e) => e.statut === 'RUNNING');
      if (enCours.length === 0) return;
      await Promise.all(enCours.map((e) => e.termine));
    }
  };

  return {
    endpoint: `http://127.0.0.1:${port}`,
    arnMachine,
    executions,
    attendreInactivite,
    arreter: async () => {
      // What runs dies with the stack, as with a process that stops: the sweeper finishes it later.
      for (const execution of executions.values()) if (execution.statut === 'RUNNING') execution.abandonner?.();
      await new Promise<void>((r) => serveur.close(() => r()));
    },
  };
};
