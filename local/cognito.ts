/**
 * The local stand-in for the web site's Amazon Cognito user pool: cognito-local, a child process on
 * 127.0.0.1 keeping its users under `<data folder>/cognito/`, with one pool and one app client made at
 * the first start and found again at the next. The site and the handlers talk to it exactly as to
 * Cognito (the SDK's JSON protocol, its JWKS), so sign-up, verification, sign-in and password reset
 * follow the one code path they have on AWS.
 *
 * Its tokens are signed with a key this data folder made at its first start (`cognito/cle-jetons.json`,
 * readable by its owner only), never with the private key cognito-local ships in its package, which
 * anyone can read: local/cognito-enfant.cjs makes the emulator sign with ours, the start checks the
 * emulator serves it, and the stack's session verifier trusts this key alone (`jwks`), not whatever the
 * emulator's JWKS says.
 *
 * Cognito would email the verification and reset codes; the emulator prints them in a box, which is
 * read here and handed to `surCode` (npm start prints one plain line per code). The child exits when
 * this process's end of its stdin closes, so even a SIGKILL of `npm start` leaves no emulator behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
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
import type { Jwks, JwkWithKid } from 'aws-jwt-verify/jwk';
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
  /** The public half of this data folder's signing key: the only key a local session is verified with. */
  jwks: Jwks;
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

interface CleJetons {
  /** PKCS#8 PEM. */
  privee: string;
  /** The public key as a JWK, with its `kid` (one per data folder), `alg` and `use`. */
  jwk: JwkWithKid;
}

/**
 * The tokens' signing key, made at this data folder's first start (or the first since an earlier version,
 * whose users then sign in again as usual: only their current tokens, signed with the package's key, stop
 * being accepted). Written only if absent, so a start racing another keeps the key that won.
 */
const cleJetons = (fichier: string): CleJetons => {
  if (!existsSync(fichier)) {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const { n, e } = publicKey.export({ format: 'jwk' });
    const cle: CleJetons = {
      privee: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      jwk: { kty: 'RSA', n: n!, e: e!, kid: `retouche-local-${randomBytes(8).toString('hex')}`, alg: 'RS256', use: 'sig' },
    };
    try {
      writeFileSync(fichier, JSON.stringify(cle), { mode: 0o600, flag: 'wx' });
    } catch (erreur) {
      if ((erreur as NodeJS.ErrnoException).code !== 'EEXIST') throw erreur;
    }
  }
  return JSON.parse(readFileSync(fichier, 'utf8')) as CleJetons;
};

/** Refuses an emulator that does not serve this folder's key (a cognito-local whose key loading the preload no longer catches). */
const verifierCleServie = async (endpoint: string, pool: string, cle: CleJetons) => {
  const reponse = await fetch(`${endpoint}/${pool}/.well-known/jwks.json`);
  const { keys } = (await reponse.json()) as Jwks;
  if (keys.length !== 1 || keys[0]!.kid !== cle.jwk.kid || keys[0]!.n !== cle.jwk.n)
    throw new Error(
      `the local Cognito does not sign with this data folder's key (local/cognito-enfant.cjs no longer replaces cognito-local's): it serves ${JSON.stringify(keys.map((k) => k.kid))}`,
    );
};

export const demarrerCognito = async (config: { dossier: string; surCode?: (c: CodeEnvoye) => void }): Promise<CognitoLocal> => {
  const dossier = join(config.dossier, 'cognito');
  mkdirSync(join(dossier, '.cognito'), { recursive: true });
  const fichierCle = join(dossier, 'cle-jetons.json');
  const cle = cleJetons(fichierCle);
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
      env: { ...process.env, AWS_SDK_JS_SUPPRESS_MAINTENANCE_MODE_MESSAGE: '1', NO_COLOR: '1', NODE_OPTIONS: '', RETOUCHE_COGNITO_CLE: fichierCle },
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
    await verifierCleServie(endpoint, pool, cle);
    return { endpoint, pool, client, emetteur: `${endpoint}/${pool}`, jwks: { keys: [cle.jwk] }, sdk, arreter };
  } catch (erreur) {
    await arreter();
    throw erreur;
  }
};
