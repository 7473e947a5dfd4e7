/**
 * `npm start` behaves like a service: one stack per data folder, a busy port is one line, a stack
 * killed with SIGKILL leaves no DynamoDB Local behind and its folder is taken over by the next start,
 * Ctrl-C stops everything. Real processes, started as `npm start` starts them; the cases run in order
 * and share one data folder (DynamoDB Local takes seconds to start).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { portLibre } from '../../local/ports';
import { FICHIER_VERROU } from '../../local/verrou';
import { lire as lireCompte } from '../../lambdas/core/depots/comptes';
import { clientDocument } from '../../lambdas/core/infra/client-dynamodb';
import { clientDynamoLocal } from '../../local/dynamodb';
import { FICHIER_PILE } from '../../local/pile';
import { imageTest } from '../support/images';

const RACINE = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const executer = promisify(execFile);

interface Stack {
  enfant: ChildProcess;
  sortie(): string;
  erreurs(): string;
  fin: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const lances = new Set<ChildProcess>();
let racine: string;

const lancer = (dossier: string, port: number, env: Record<string, string> = {}, cwd = RACINE): Stack => {
  const enfant = spawn(process.execPath, ['--import', 'tsx', join(RACINE, 'local/start.ts')], {
    cwd,
    env: { ...process.env, PORT: String(port), RETOUCHE_DATA_DIR: dossier, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so afterAll can take down whatever it started, Java included.
    detached: true,
  });
  lances.add(enfant);
  let sortie = '';
  let erreurs = '';
  enfant.stdout!.on('data', (m: Buffer) => (sortie += m.toString()));
  enfant.stderr!.on('data', (m: Buffer) => (erreurs += m.toString()));
  const fin = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    enfant.once('exit', (code, signal) => {
      lances.delete(enfant);
      r({ code, signal });
    }),
  );
  return { enfant, sortie: () => sortie, erreurs: () => erreurs, fin };
};

const attendre = async <T>(quoi: () => T | undefined | false | Promise<T | undefined | false>, ms: number, raison: () => string): Promise<T> => {
  const limite = Date.now() + ms;
  for (;;) {
    const valeur = await quoi();
    if (valeur) return valeur;
    if (Date.now() > limite) throw new Error(`timed out: ${raison()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

/** Started and answering; fails at once if it exits instead. */
const pret = async (stack: Stack): Promise<void> => {
  let sortie: { code: number | null } | undefined;
  void stack.fin.then((f) => (sortie = f));
  await attendre(
    () => {
      if (sortie) throw new Error(`the stack exited (${sortie.code}): ${stack.erreurs()}`);
      return stack.sortie().includes('Retouche is running on');
    },
    30_000,
    () => `stack not ready:\n${stack.sortie()}\n${stack.erreurs()}`,
  );
};

/** Processes whose command line names this folder (DynamoDB Local runs with -dbPath <folder>/dynamodb). */
const processusDe = async (dossier: string): Promise<{ pid: number; args: string }[]> => {
  const { stdout } = await executer('ps', ['-ww', '-eo', 'pid=,args=']);
  return stdout
    .split('\n')
    .map((ligne) => /^\s*(\d+)\s+(.*)$/.exec(ligne))
    .filter((m): m is RegExpExecArray => !!m && m[2]!.includes(dossier) && Number(m[1]) !== process.pid)
    .map((m) => ({ pid: Number(m[1]), args: m[2]! }));
};
/** Java itself (its watchdog, a sh, names the folder too). */
const javaDe = async (dossier: string) => (await processusDe(dossier)).filter((p) => /^(\S*\/)?java\s/.test(p.args));

const get = async (port: number, chemin: string, cle?: string) => {
  const reponse = await fetch(`http://127.0.0.1:${port}/api/v1${chemin}`, { headers: cle ? { Authorization: `Bearer ${cle}` } : {} });
  return { statut: reponse.status, corps: (await reponse.json()) as Record<string, unknown> };
};

const admin = async (dossier: string, ...args: string[]) => {
  const { stdout } = await executer(process.execPath, ['--import', 'tsx', 'exploitation/admin.ts', ...args], {
    cwd: RACINE,
    env: { ...process.env, RETOUCHE_DATA_DIR: dossier },
  });
  return JSON.parse(stdout) as Record<string, unknown>;
};

/** The folder's files and their modification times: what a refused start must leave as it was. */
const etat = (dossier: string): Record<string, number> => {
  const fichiers: Record<string, number> = {};
  const parcourir = (d: string) => {
    for (const nom of readdirSync(d)) {
      const chemin = join(d, nom);
      const s = statSync(chemin);
      if (s.isDirectory()) parcourir(chemin);
      // DynamoDB Local's own files change under the running stack; everything else is ours.
      else if (!chemin.includes(`${join(dossier, 'dynamodb')}`)) fichiers[chemin] = s.mtimeMs;
    }
  };
  parcourir(dossier);
  return fichiers;
};

let dossier: string;
let port: number;
let premiere: Stack;
let cle: string;

beforeAll(async () => {
  racine = mkdtempSync(join(tmpdir(), 'retouche-service-'));
  dossier = join(racine, 'donnees');
  port = await portLibre();
  premiere = lancer(dossier, port);
  await pret(premiere);
  cle = (await admin(dossier, 'create-account', '--credits', '5')).key as string;
  expect((await get(port, '/solde', cle)).corps).toEqual({ credits: 5 });
});

afterAll(async () => {
  // Whatever a failed case left: each stack's process group (Node, the watchdog, Java)…
  for (const enfant of lances) {
    try {
      process.kill(-enfant.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  // …and any DynamoDB Local of these folders, should one have escaped its group.
  if (racine) for (const { pid } of await javaDe(racine)) process.kill(pid, 'SIGKILL');
  if (racine) rmSync(racine, { recursive: true, force: true });
});

describe('npm start as a service', () => {
  it('prints an admin command that works as printed, from the project folder, with the data folder it was started on', async () => {
    const ligne = premiere
      .sortie()
      .split('\n')
      .find((l) => l.includes('admin -- create-account'))!
      .trim();
    expect(ligne).toContain(`RETOUCHE_DATA_DIR=${dossier}`);
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.RETOUCHE_DATA_DIR;
    const { stdout } = await executer('bash', ['-c', ligne], { cwd: RACINE, env });
    const compte = JSON.parse(stdout) as { key: string; credits: number };
    expect(compte.credits).toBe(100);
    expect((await get(port, '/solde', compte.key)).corps).toEqual({ credits: 100 });
  });

  it('refuses a second start on a folder in use, at once, naming the folder and the pid, without touching the first', async () => {
    const avant = etat(dossier);
    const javaAvant = await javaDe(dossier);
    expect(javaAvant).toHaveLength(1);

    const t0 = Date.now();
    const seconde = lancer(dossier, await portLibre());
    const { code } = await seconde.fin;
    expect(code).toBe(1);
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(seconde.erreurs().trim().split('\n')).toHaveLength(1);
    expect(seconde.erreurs()).toContain(dossier);
    expect(seconde.erreurs()).toContain(`pid ${premiere.enfant.pid}`);
    expect(seconde.sortie()).toBe('');

    expect(etat(dossier)).toEqual(avant);
    expect(await javaDe(dossier)).toEqual(javaAvant);
    expect((await get(port, '/outils')).statut).toBe(200);
    expect((await get(port, '/solde', cle)).corps).toEqual({ credits: 5 });
  });

  it('a busy port is one line and exit code 1, with nothing left running', async () => {
    const autre = join(racine, 'port-occupe');
    const stack = lancer(autre, port);
    const { code } = await stack.fin;
    expect(code).toBe(1);
    expect(stack.erreurs()).toBe(`Port ${port} is already in use: set PORT to a free port, e.g. PORT=${port + 1} npm start\n`);
    expect(stack.erreurs()).not.toMatch(/^ {4}at /m);
    expect(await processusDe(autre)).toEqual([]);
    // Its lock is released: the folder is free for the next start.
    expect(existsSync(join(autre, FICHIER_VERROU))).toBe(false);
  });

  it('SIGKILL leaves no DynamoDB Local behind; the next start takes the folder over and keeps the data', async () => {
    const verrou = readFileSync(join(dossier, FICHIER_VERROU), 'utf8');
    expect(JSON.parse(verrou).pid).toBe(premiere.enfant.pid);
    premiere.enfant.kill('SIGKILL');
    expect((await premiere.fin).signal).toBe('SIGKILL');
    await attendre(
      async () => (await processusDe(dossier)).length === 0,
      5_000,
      () => 'DynamoDB Local outlived its stack',
    );
    // The dead stack's lock is still there, and is taken over without a word.
    expect(readFileSync(join(dossier, FICHIER_VERROU), 'utf8')).toBe(verrou);

    const reprise = lancer(dossier, port);
    await pret(reprise);
    expect(reprise.erreurs()).not.toMatch(/already used/);
    expect(JSON.parse(readFileSync(join(dossier, FICHIER_VERROU), 'utf8')).pid).toBe(reprise.enfant.pid);
    expect((await get(port, '/solde', cle)).corps).toEqual({ credits: 5 });
    premiere = reprise;
  });

  it('SIGINT stops everything: exit code 0, no Java left, the folder free', async () => {
    const t0 = Date.now();
    premiere.enfant.kill('SIGINT');
    const { code } = await premiere.fin;
    expect(code).toBe(0);
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(await javaDe(dossier)).toEqual([]);
    expect(existsSync(join(dossier, FICHIER_VERROU))).toBe(false);
  });
});

describe('the admin command finds the stack a newcomer started', () => {
  /** The admin CLI run from `ici` (a folder laid out like the project), without RETOUCHE_DATA_DIR. */
  const adminIci = async (ici: string, ...args: string[]) => {
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.RETOUCHE_DATA_DIR;
    try {
      const { stdout, stderr } = await executer(process.execPath, ['--import', 'tsx', join(RACINE, 'exploitation/admin.ts'), ...args], { cwd: ici, env });
      return { code: 0, stdout, stderr };
    } catch (e) {
      const echec = e as { code: number; stdout: string; stderr: string };
      return { code: echec.code, stdout: echec.stdout, stderr: echec.stderr };
    }
  };

  it('the one stack running, whatever its RETOUCHE_DATA_DIR; several are named; none is said; --help is the usage', async () => {
    // A project folder of its own (its register, .retouche-piles/, and default data folder are there).
    const ici = mkdtempSync(join(racine, 'projet-'));
    symlinkSync(join(RACINE, 'node_modules'), join(ici, 'node_modules'));
    const aide = await adminIci(ici, '--help');
    expect(aide.code).toBe(0);
    expect(aide.stdout).toContain('usage: npm run --silent admin -- <command>');
    expect((await adminIci(ici, 'create-account', '--credits', '1')).stderr).toContain('No local stack is running (none on .retouche/');

    const [a, b] = [join(ici, 'donnees-a'), join(ici, 'donnees-b')];
    const [portA, portB] = [await portLibre(), await portLibre()];
    const pileA = lancer(a, portA, {}, ici);
    await pret(pileA);
    const seule = await adminIci(ici, 'create-account', '--credits', '3');
    expect(seule.code, seule.stderr).toBe(0);
    expect(seule.stderr).toContain(`Using the one stack running, http://localhost:${portA}/api/v1 (RETOUCHE_DATA_DIR=${a})`);
    const compte = JSON.parse(seule.stdout) as { key: string };
    expect((await get(portA, '/solde', compte.key)).corps).toEqual({ credits: 3 });

    const pileB = lancer(b, portB, {}, ici);
    await pret(pileB);
    const deux = await adminIci(ici, 'create-account', '--credits', '3');
    expect(deux.code).toBe(1);
    expect(deux.stderr).toContain('Several local stacks are running');
    for (const dossier of [a, b]) expect(deux.stderr).toContain(`RETOUCHE_DATA_DIR=${dossier}`);

    for (const pile of [pileA, pileB]) {
      pile.enfant.kill('SIGINT');
      await pile.fin;
    }
    expect((await adminIci(ici, 'create-account', '--credits', '1')).stderr).toContain('No local stack is running (none on .retouche/');
  });
});

describe('a batch interrupted by kill -9, as a new user would do it', () => {
  it('ends after the next npm start on the same folder: every job once, the balance and the pending count exact, nothing done by hand', async () => {
    const ici = join(racine, 'lot-interrompu');
    const p = await portLibre();
    let stack = lancer(ici, p, { RETOUCHE_LOCAL_DELAY_MS: '1500' });
    await pret(stack);
    const nouveau = await admin(ici, 'create-account', '--credits', '100');
    const cleLot = nouveau.key as string;
    const image = (await imageTest(1)).toString('base64');
    const reponse = await fetch(`http://127.0.0.1:${p}/api/v1/travaux`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${cleLot}`, 'Content-Type': 'application/json', 'Idempotency-Key': 'lot-interrompu' },
      body: JSON.stringify({ outil: 'ciel', images: Array.from({ length: 8 }, (_, i) => ({ base64: image, nom: `photo-${i}.jpg` })) }),
    });
    expect(reponse.status).toBe(202);
    const lot = ((await reponse.json()) as { lot: string }).lot;
    // Killed while its jobs run (each takes 1.5 s in the model).
    await attendre(
      async () => ((await get(p, `/lots/${lot}`, cleLot)).corps.travaux as { statut: string }[]).some((t) => t.statut === 'en_cours'),
      10_000,
      () => 'no job started',
    );
    stack.enfant.kill('SIGKILL');
    await stack.fin;

    stack = lancer(ici, p, { RETOUCHE_LOCAL_DELAY_MS: '100' });
    await pret(stack);
    const fin = await attendre(
      async () => {
        const { corps } = await get(p, `/lots/${lot}`, cleLot);
        return corps.statut !== 'en_cours' && corps;
      },
      40_000,
      () => 'the batch never ended after the restart',
    );
    expect(fin).toMatchObject({ statut: 'termine', total: 8, termines: 8, echecs: 0, en_cours: 0, zip: { url: expect.any(String) } });
    expect((await get(p, '/solde', cleLot)).corps).toEqual({ credits: 100 - 8 * 2 });
    // The pending count, read where the pending limit reads it.
    const { dynamodb, table } = JSON.parse(readFileSync(join(ici, FICHIER_PILE), 'utf8')) as { dynamodb: string; table: string };
    expect(await lireCompte({ ddb: clientDocument(clientDynamoLocal(dynamodb)), table }, nouveau.account as string)).toMatchObject({
      credits: 84,
      travaux_ouverts: 0,
    });
    stack.enfant.kill('SIGINT');
    expect((await stack.fin).code).toBe(0);
  });
});
