/**
 * The README's quick start and the walk through of docs/walkthrough.md, run as written. Their shell blocks
 * (between `<!-- demarrage:debut -->` and `<!-- demarrage:fin -->`, `<!-- parcours:debut -->` and
 * `<!-- parcours:fin -->`) are read from the documents themselves, so the two cannot drift, and run by bash, as a
 * new user runs them: from a folder laid out like the project (links to its folders and manifest, so `npm run …`
 * works there and what they write stays in that folder), beside `npm start` started in that folder with its
 * default data folder. The walk through runs with a photo of a furnished bedroom and `OUTIL=staging`, where it
 * must stop at the first job, then with a 13 MB photo of a house, all the way. Only `OUTIL` is changed; the port
 * (3000 may be taken on the machine running the tests) is given as a user gives it, in `PORT`.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { portLibre } from '../../local/ports';
import { lireZip } from '../support/zip';
import { photoGrande } from '../support/photo';

const RACINE = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const executer = promisify(execFile);

/** The shell block of a document between `<!-- <nom>:debut -->` and `<!-- <nom>:fin -->`, as it shows it. */
const blocDe = (fichier: string, nom: string): string => {
  const motif = new RegExp(`<!-- ${nom}:debut -->\\s*\`\`\`sh\\n([\\s\\S]*?)\`\`\`\\s*<!-- ${nom}:fin -->`);
  const bloc = motif.exec(readFileSync(join(RACINE, fichier), 'utf8'));
  if (!bloc) throw new Error(`${fichier} has no shell block between <!-- ${nom}:debut --> and <!-- ${nom}:fin -->`);
  return bloc[1]!;
};

/** What the project needs to run `npm start` and `npm run …` from another folder: its code and its manifest. */
const LIENS = ['package.json', 'tsconfig.json', 'node_modules', 'bin', 'lib', 'lambdas', 'local', 'exploitation', 'statemachines', 'docs', 'test', 'clients'];

let dossier: string;
let pile: ChildProcess | undefined;
let port: number;

beforeAll(async () => {
  dossier = mkdtempSync(join(tmpdir(), 'retouche-readme-'));
  for (const nom of LIENS) symlinkSync(join(RACINE, nom), join(dossier, nom));
  port = await portLibre();
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port) };
  delete env.RETOUCHE_DATA_DIR;
  pile = spawn('npm', ['start'], { cwd: dossier, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let sortie = '';
  pile.stdout!.on('data', (m: Buffer) => (sortie += m.toString()));
  pile.stderr!.on('data', (m: Buffer) => (sortie += m.toString()));
  const limite = Date.now() + 60_000;
  while (!sortie.includes('Retouche is running on')) {
    if (Date.now() > limite || pile.exitCode !== null) throw new Error(`npm start did not start:\n${sortie}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}, 120_000);

afterAll(async () => {
  // Ctrl-C to its process group, as a user stops it.
  if (pile?.pid && pile.exitCode === null) {
    const fin = new Promise((r) => pile!.once('exit', r));
    process.kill(-pile.pid, 'SIGINT');
    await fin;
  }
  rmSync(dossier, { recursive: true, force: true });
});

/**
 * Runs a shell block as a user pastes it into bash, against this test's stack: the documents take the port from
 * `PORT` (3000 when unset), as the user who started `npm start` on another port sets it; nothing is rewritten.
 */
const executerBloc = async (bloc: string) => {
  expect(bloc).toMatch(/API=http:\/\/localhost:(\$PORT|\$\{PORT:-3000\})\/api\/v1/);
  expect(bloc).not.toContain('localhost:3000');
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port) };
  delete env.RETOUCHE_DATA_DIR;
  // The command and the MCP server on stdio take the API from the RETOUCHE_API the README's blocks export.
  delete env.RETOUCHE_API;
  // About 20 s here; a command that stops working makes a polling loop wait for ever, hence the bound.
  return executer('bash', ['-c', bloc], { cwd: dossier, env, timeout: 150_000, maxBuffer: 64 * 1024 * 1024 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (erreur: { code?: number; stdout?: string; stderr?: string; killed?: boolean; message: string }) => {
      if (erreur.killed || typeof erreur.code !== 'number') throw new Error(`the block did not end: ${erreur.message}\n${erreur.stderr ?? ''}`);
      return { code: erreur.code, stdout: erreur.stdout ?? '', stderr: erreur.stderr ?? '' };
    },
  );
};

/** The walk through of docs/walkthrough.md (it sets -e in its own subshell), with `OUTIL` set. */
const parcourir = (outil: string) => {
  const parcours = blocDe('docs/walkthrough.md', 'parcours');
  expect(parcours).toContain('\nOUTIL=ciel\n');
  return executerBloc(parcours.replace('\nOUTIL=ciel\n', `\nOUTIL=${outil}\n`));
};

describe("the README's quick start, as written", () => {
  it('turns the white sky of a facade from the test photos blue, and saves the result', async () => {
    const { code, stdout, stderr } = await executerBloc(blocDe('README.md', 'demarrage'));
    expect(code, `${stdout}\n--- stderr:\n${stderr}`).toBe(0);
    expect(stdout).toContain('termine\n');
    const photo = await sharp(join(RACINE, 'test/photos/facade-ciel-blanc_polyhaven-cambridge-a.jpg')).metadata();
    const { data, info } = await sharp(join(dossier, 'ciel.jpg')).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([photo.width, photo.height]);
    // The top row, white in the photo, is a sky blue in the result.
    let bleus = 0;
    for (let x = 0; x < info.width; x++) {
      const [r, v, b] = [data[x * 3]!, data[x * 3 + 1]!, data[x * 3 + 2]!];
      if (b > r + 20 && b > v) bleus++;
    }
    expect(bleus / info.width).toBeGreaterThan(0.5);
  }, 120_000);
});

describe("the README's other ways in, pasted after the quick start as it says", () => {
  it('the command writes a batch of two, the SDK writes a listing, and both MCP transports read the balance they left', async () => {
    const blocs = ['demarrage', 'commande', 'sdk', 'mcp-stdio', 'mcp-http'].map((nom) => blocDe('README.md', nom));
    const { code, stdout, stderr } = await executerBloc(blocs.join('\n'));
    expect(code, `${stdout}\n--- stderr:\n${stderr}`).toBe(0);
    expect(readdirSync(join(dossier, 'resultats')).sort()).toEqual([
      'facade-ciel-blanc_polyhaven-cambridge-b-ciel.jpg',
      'facade-ciel-bleu_polyhaven-palermo-ciel.jpg',
    ]);
    expect(stdout).toMatch(/^termine .*Lyon/m);
    // 20 credits, less the quick start's 2, the batch's 4 and the listing's 3: over stdio, then over HTTP.
    expect(stdout.match(/"text":"11 credits\."/g)).toHaveLength(2);
  }, 180_000);
});

describe('the walk through of docs/walkthrough.md, as written', () => {
  it("stops at a job its photo does not suit (a furnished bedroom for staging) with the job's error, its refund and which photo suits which tool, and nothing after it", async () => {
    writeFileSync(join(dossier, 'photo.jpg'), readFileSync(join(RACINE, 'test/photos/chambre_pxhere-607447.jpg')));
    const { code, stdout, stderr } = await parcourir('staging');
    const tout = `${stdout}\n--- stderr:\n${stderr}`;
    expect(code, tout).toBe(1);
    expect(stderr, tout).toContain('The job ended in echec, sol_introuvable: This room is already furnished');
    expect(stderr).toContain('Its 5 credits were given back (rembourse: true).');
    expect(stderr).toContain('a furnished room vider, an empty');
    // Nothing ran past the failed job: no result saved, no confused command after it.
    expect(stdout).not.toContain('saved');
    expect(tout).not.toMatch(/TypeError|Invalid URL|badly used|Usage|usage/);
    // And the refund is in the balance.
    const cle = (JSON.parse(readFileSync(join(dossier, 'compte.json'), 'utf8')) as { key: string }).key;
    const solde = await fetch(`http://localhost:${port}/api/v1/solde`, { headers: { authorization: `Bearer ${cle}` } });
    expect(await solde.json()).toEqual({ credits: 100 });
  }, 300_000);

  it('runs from top to bottom with a 13 MB photo: the upload, the job, its result under its own name, inline images, a batch and its ZIP, a listing text, the batch erased', async () => {
    writeFileSync(join(dossier, 'photo.jpg'), await photoGrande());
    const { code, stdout, stderr } = await parcourir('ciel');
    expect(code, `${stdout.slice(-3000)}\n--- stderr:\n${stderr.slice(-3000)}`).toBe(0);
    const parcours = blocDe('docs/walkthrough.md', 'parcours');

    // The job ran on the full-size photo and its result is saved under its own name, with its extension.
    expect(stdout).toContain('ciel: termine\n');
    expect(stdout).toContain('inline: termine\n');
    const sauve = /saved (.+\.jpg)\n/.exec(stdout)?.[1];
    expect(sauve, stdout.slice(-2000)).toBeDefined();
    expect(await sharp(join(dossier, sauve!)).metadata()).toMatchObject({ format: 'jpeg', width: 6000, height: 4000 });
    expect(stdout).toContain('"Trusted"');
    // The batch's ZIP holds its two results.
    expect((await lireZip(readFileSync(join(dossier, 'lot.zip')))).size).toBe(2);
    // The balance the README announces is the one the account has, and erasing the batch leaves it there.
    const annonce = /\$API\/solde\s+# (\{"credits":\d+\}) with ciel$/m.exec(parcours)?.[1];
    expect(annonce).toBeDefined();
    expect(stdout).toContain(`${annonce!}\n`);
    expect(stdout).toMatch(/"lots":\["[0-9a-f-]{36}"\]/);
    expect(stdout.trimEnd().endsWith('404')).toBe(true);
    // Everything it wrote in the project folder (the API key among it) is ignored by git: nothing to commit by mistake.
    const ignores = readFileSync(join(RACINE, '.gitignore'), 'utf8')
      .split('\n')
      .filter((l) => l.trim() && !l.startsWith('#'))
      .map((l) => new RegExp(`^${l.replace(/^\//, '').replace(/\/$/, '').replaceAll('.', '\\.').replaceAll('*', '[^/]*')}$`));
    const ecrits = readdirSync(dossier).filter((nom) => !LIENS.includes(nom));
    expect(ecrits).toContain('compte.json');
    for (const nom of ecrits)
      expect(
        ignores.some((motif) => motif.test(nom)),
        `${nom} is not in .gitignore`,
      ).toBe(true);
  }, 300_000);
});
