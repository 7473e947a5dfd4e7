/**
 * The local stand-in for the web site's Amazon Cognito user pool: cognito-local, a child process on
 * 127.0.0.1 keeping its users under `<data folder>/cognito/`, with one pool and one app client made at
 * the first start and found again at the next. The site and the handlers talk to it exactly as to
 * Cognito (the SDK's JSON protocol, its JWKS), so sign-up, verification, sign-in and password reset
 * follow the one code path they have on AWS.
 *
 * Cognito would email the verification and reset codes; the emulator prints them in a box, which is
 * read here and handed to `surCode` (npm start prints one plain line per code). The child exits when
 * this process's end of its stdin closes, so even a SIGKILL of `npm start` leaves no emulator behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import {
  CognitoIdentityProviderClient,
  CreateUserPoolClientCommand,
  CreateUserPoolCommand,
  DescribeUserPoolClientCommand,
  DescribeUserPoolCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { identifiantsLocaux } from './dynamodb';
import { portLibre } from './ports';

const RACINE = resolve(fileURLToPath(new URL('..', import.meta.url)));
const DEMARRAGE_MAX_MS = 30_000;

export interface CodeEnvoye {
  /** The address Cognito would have emailed. */
  email: string;
  code: string;
}

export interface CognitoLocal {
  /** The emulator's endpoint: the SDK's `endpoint`, and the site's. */
  endpoint: string;
  pool: string;
  client: string;
  /** The ID tokens' issuer (RETOUCHE_SESSION_EMETTEUR). */
  emetteur: string;
  /** An SDK client on the emulator (admin operations, tests). */
  sdk: CognitoIdentityProviderClient;
  arreter(): Promise<void>;
}

/**
 * Reads the emulator's log: the line that says it listens, and the boxes of codes it "sends"
 * ("Destination: a@b.c" then "Code: 123456"); the rest is its own chatter, left out.
 */
const lireJournal = (enfant: ChildProcess, surCode: (c: CodeEnvoye) => void, pret: () => void) => {
  let destination: string | undefined;
  createInterface({ input: enfant.stdout! }).on('line', (brute) => {
    const ligne = stripVTControlCharacters(brute);
    if (ligne.includes('Cognito Local running on')) pret();
    const email = /Destination:\s+(\S+)/.exec(ligne)?.[1];
    if (email) destination = email;
    const code = /Code:\s+(\S+)/.exec(ligne)?.[1];
    if (code && destination) {
      surCode({ email: destination, code });
      destination = undefined;
    }
  });
};

/** The pool and client made at this data folder's first start, or new ones if the emulator lost them. */
const poolEtClient = async (sdk: CognitoIdentityProviderClient, fichier: string): Promise<{ pool: string; client: string }> => {
  if (existsSync(fichier)) {
    const ids = JSON.parse(readFileSync(fichier, 'utf8')) as { pool: string; client: string };
    try {
      await sdk.send(new DescribeUserPoolCommand({ UserPoolId: ids.pool }));
      await sdk.send(new DescribeUserPoolClientCommand({ UserPoolId: ids.pool, ClientId: ids.client }));
      return ids;
    } catch {
      // gone (the folder was cleaned by hand): made again below
    }
  }
  // What lib/site.ts asks of the pool on AWS: email as the user name, verified by a code, 8 characters at least.
  const { UserPool } = await sdk.send(
    new CreateUserPoolCommand({
      PoolName: 'retouche',
      UsernameAttributes: ['email'],
      AutoVerifiedAttributes: ['email'],
      Policies: { PasswordPolicy: { MinimumLength: 8, RequireLowercase: true, RequireUppercase: true, RequireNumbers: true, RequireSymbols: false } },
    }),
  );
  const { UserPoolClient } = await sdk.send(
    new CreateUserPoolClientCommand({
      UserPoolId: UserPool!.Id!,
      ClientName: 'site',
      ExplicitAuthFlows: ['ALLOW_USER_PASSWORD_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'],
    }),
  );
  const ids = { pool: UserPool!.Id!, client: UserPoolClient!.ClientId! };
  writeFileSync(fichier, JSON.stringify(ids));
  return ids;
};

export const demarrerCognito = async (config: { dossier: string; surCode?: (c: CodeEnvoye) => void }): Promise<CognitoLocal> => {
  const dossier = join(config.dossier, 'cognito');
  mkdirSync(join(dossier, '.cognito'), { recursive: true });
  const port = await portLibre();
  const endpoint = `http://127.0.0.1:${port}`;
  writeFileSync(
    join(dossier, '.cognito', 'config.json'),
    JSON.stringify({ ServerConfig: { hostname: '127.0.0.1', port }, TokenConfig: { IssuerDomain: endpoint } }, null, 2),
  );
  const enfant = spawn(
    process.execPath,
    ['--require', join(RACINE, 'local', 'cognito-enfant.cjs'), join(RACINE, 'node_modules', 'cognito-local', 'lib', 'bin', 'start.js')],
    {
      cwd: dossier,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, AWS_SDK_JS_SUPPRESS_MAINTENANCE_MODE_MESSAGE: '1', NO_COLOR: '1', NODE_OPTIONS: '' },
    },
  );
  let erreurs = '';
  enfant.stderr!.on('data', (morceau: Buffer) => (erreurs = (erreurs + morceau.toString()).slice(-4000)));
  const arreter = async () => {
    if (enfant.exitCode !== null || enfant.signalCode !== null) return;
    const fin = new Promise((r) => enfant.once('exit', r));
    enfant.kill('SIGTERM');
    await fin;
  };
  try {
    await new Promise<void>((resoudre, rejeter) => {
      const delai = setTimeout(() => rejeter(new Error(`the local Cognito did not start within ${DEMARRAGE_MAX_MS / 1000} s: ${erreurs}`)), DEMARRAGE_MAX_MS);
      enfant.once('exit', (code) => rejeter(new Error(`the local Cognito stopped at its start (exit ${code}): ${erreurs}`)));
      lireJournal(enfant, config.surCode ?? (() => undefined), () => {
        clearTimeout(delai);
        resoudre();
      });
    });
    const sdk = new CognitoIdentityProviderClient({ endpoint, region: 'us-east-1', credentials: identifiantsLocaux });
    const { pool, client } = await poolEtClient(sdk, join(dossier, 'ids.json'));
    return { endpoint, pool, client, emetteur: `${endpoint}/${pool}`, sdk, arreter };
  } catch (erreur) {
    await arreter();
    throw erreur;
  }
};
