/**
 * The local Step Functions' wire format (local/stepfunctions.ts): AWS JSON 1.0 as SFNClient sends it,
 * StartExecution and DescribeExecution answered in the service's shape and errors, so the handlers
 * read what they read on AWS. What an execution is and becomes is the state's.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { ErreurService, type Execution } from './stepfunctions-etat';

const lireCorps = async (requete: IncomingMessage): Promise<string> => {
  const morceaux: Buffer[] = [];
  for await (const morceau of requete) morceaux.push(morceau as Buffer);
  return Buffer.concat(morceaux).toString('utf8');
};

/** DescribeExecution's answer. */
const decrire = (execution: Execution, arnMachine: string) => ({
  executionArn: execution.arn,
  stateMachineArn: arnMachine,
  name: execution.nom,
  status: execution.statut,
  startDate: execution.debut.getTime() / 1000,
  ...(execution.fin ? { stopDate: execution.fin.getTime() / 1000 } : {}),
  input: execution.entree,
  ...(execution.statut === 'SUCCEEDED' ? { output: JSON.stringify(execution.sortie) } : {}),
  ...(execution.erreur ? { error: execution.erreur.Error, cause: execution.erreur.Cause } : {}),
});

export interface Service {
  arnMachine: string;
  executions: ReadonlyMap<string, Execution>;
  demarrer: (corps: { stateMachineArn?: string; name?: string; input?: string }) => Execution;
}

/** The server on 127.0.0.1 (`port` 0: any free one), listening once this resolves. */
export const servirStepFunctions = async (service: Service, port: number): Promise<{ serveur: Server; port: number }> => {
  const serveur: Server = createServer(async (requete, reponse) => {
    const repondre = (statut: number, corps: unknown, type?: string) => {
      reponse.writeHead(statut, { 'Content-Type': 'application/x-amz-json-1.0', ...(type ? { 'x-amzn-ErrorType': type } : {}) });
      reponse.end(JSON.stringify(corps));
    };
    try {
      const action = String(requete.headers['x-amz-target'] ?? '').replace(/^AWSStepFunctions\./, '');
      const corps = JSON.parse((await lireCorps(requete)) || '{}');
      if (action === 'StartExecution') {
        const execution = service.demarrer(corps);
        repondre(200, { executionArn: execution.arn, startDate: execution.debut.getTime() / 1000 });
      } else if (action === 'DescribeExecution') {
        const execution = service.executions.get(corps.executionArn ?? '');
        if (!execution) throw new ErreurService('ExecutionDoesNotExist', `Execution Does Not Exist: '${corps.executionArn}'`);
        repondre(200, decrire(execution, service.arnMachine));
      } else {
        throw new ErreurService('UnknownOperationException', `The local Step Functions does not implement ${action}.`);
      }
    } catch (erreur) {
      const e = erreur instanceof ErreurService ? erreur : new ErreurService('InternalFailure', (erreur as Error).message, 500);
      repondre(e.statut, { __type: e.type, message: e.message }, e.type);
    }
  });
  await new Promise<void>((r) => serveur.listen(port, '127.0.0.1', r));
  const adresse = serveur.address();
  return { serveur, port: typeof adresse === 'object' && adresse ? adresse.port : 0 };
};
