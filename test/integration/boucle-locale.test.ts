/**
 * Every process `npm start` starts listens on the loopback only: DynamoDB Local accepts any
 * credentials, s3rver checks no signatures, so a socket on 0.0.0.0 or :: would let anyone on the
 * network edit credits, keys and files. The stack is started as `npm start` starts it; its listening
 * sockets are found from the kernel's tables (/proc/net/tcp, /proc/net/tcp6), kept when their inode is
 * one of the file descriptors of Node or of a process under it (Java), and each must be bound to
 * 127.0.0.1 or ::1.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FICHIER_PILE } from '../../local/pile';

const RACINE = resolve(fileURLToPath(new URL('../..', import.meta.url)));

interface Ecoute {
  adresse: string;
  port: number;
  inode: string;
}

/** An address of /proc/net/tcp{,6}: hex words of 32 bits, each in the host's (little-endian) byte order. */
const adresseLisible = (hex: string): string => {
  const octets: number[] = [];
  for (let mot = 0; mot < hex.length; mot += 8) {
    const m = hex.slice(mot, mot + 8);
    for (let i = 6; i >= 0; i -= 2) octets.push(parseInt(m.slice(i, i + 2), 16));
  }
  if (octets.length === 4) return octets.join('.');
  const groupes = Array.from({ length: 8 }, (_, i) => ((octets[2 * i]! << 8) | octets[2 * i + 1]!).toString(16));
  const mappee = groupes.slice(0, 5).every((g) => g === '0') && groupes[5] === 'ffff';
  if (mappee) return `::ffff:${octets.slice(12).join('.')}`;
  // The longest run of zero groups (two or more) becomes '::', as ss and inet_ntop write it.
  let debut = -1;
  let longueur = 0;
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && groupes[j] === '0') j++;
    if (j - i > longueur && j - i > 1) [debut, longueur] = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  if (debut < 0) return groupes.join(':');
  return `${groupes.slice(0, debut).join(':')}::${groupes.slice(debut + longueur).join(':')}`;
};

/** Sockets in LISTEN state (st 0A) of this network namespace. */
const ecoutes = (): Ecoute[] =>
  ['/proc/net/tcp', '/proc/net/tcp6'].flatMap((fichier) =>
    readFileSync(fichier, 'utf8')
      .split('\n')
      .slice(1)
      .map((ligne) => ligne.trim().split(/\s+/))
      .filter((c) => c.length > 9 && c[3] === '0A')
      .map((c) => {
        const [ip, port] = c[1]!.split(':') as [string, string];
        return { adresse: adresseLisible(ip), port: parseInt(port, 16), inode: c[9]! };
      }),
  );

/** The process and everything under it (its children, theirs…), from /proc/<pid>/stat. */
const descendance = (racine: number): number[] => {
  const parents = new Map<number, number>();
  for (const nom of readdirSync('/proc')) {
    if (!/^\d+$/.test(nom)) continue;
    try {
      const stat = readFileSync(`/proc/${nom}/stat`, 'utf8');
      // pid (comm) state ppid …: comm may hold spaces and parentheses, so read after the last ')'.
      parents.set(Number(nom), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const tous = [racine];
  for (let i = 0; i < tous.length; i++) for (const [pid, ppid] of parents) if (ppid === tous[i]) tous.push(pid);
  return tous;
};

/** The socket inodes a process holds open. */
const socketsDe = (pid: number): Set<string> => {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const cible = readlinkSync(`/proc/${pid}/fd/${fd}`);
      const m = /^socket:\[(\d+)\]$/.exec(cible);
      if (m) inodes.add(m[1]!);
    } catch {
      // closed meanwhile
    }
  }
  return inodes;
};

const commande = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);

let racine: string;
let enfant: ChildProcess;
let sortie = '';
let erreurs = '';
let fin: Promise<unknown>;

beforeAll(async () => {
  racine = mkdtempSync(join(tmpdir(), 'retouche-boucle-'));
  enfant = spawn(process.execPath, ['--import', 'tsx', 'local/start.ts'], {
    cwd: RACINE,
    env: { ...process.env, PORT: '0', RETOUCHE_DATA_DIR: racine },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: afterAll takes down whatever it started if it does not stop by itself.
    detached: true,
  });
  enfant.stdout!.on('data', (m: Buffer) => (sortie += m.toString()));
  enfant.stderr!.on('data', (m: Buffer) => (erreurs += m.toString()));
  fin = new Promise((r) => enfant.once('exit', r));
  let sorti = false;
  void fin.then(() => (sorti = true));
  const limite = Date.now() + 60_000;
  while (!sortie.includes('Retouche is running on')) {
    if (sorti) throw new Error(`npm start exited:\n${sortie}\n${erreurs}`);
    if (Date.now() > limite) throw new Error(`npm start not ready within 60 s:\n${sortie}\n${erreurs}`);
    await new Promise((r) => setTimeout(r, 50));
  }
});

afterAll(async () => {
  if (enfant && enfant.exitCode === null && enfant.signalCode === null) {
    enfant.kill('SIGTERM');
    const delai = setTimeout(() => {
      try {
        process.kill(-enfant.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }, 5_000);
    await fin;
    clearTimeout(delai);
  }
  if (racine) rmSync(racine, { recursive: true, force: true });
});

describe('the local stack listens on the loopback only', () => {
  it('every listening socket of npm start and of its children (DynamoDB Local included) is bound to 127.0.0.1 or ::1', () => {
    const pids = descendance(enfant.pid!);
    const parPid = new Map(pids.map((pid) => [pid, socketsDe(pid)]));
    const sockets = ecoutes()
      .map((e) => ({ ...e, pids: pids.filter((pid) => parPid.get(pid)!.has(e.inode)) }))
      .filter((e) => e.pids.length > 0)
      .map((e) => ({ adresse: e.adresse, port: e.port, processus: e.pids.map((pid) => commande(pid)[0]?.split('/').pop()).join(',') }));

    // The check sees the stack: the gateway (Node) and DynamoDB Local (Java) are among the sockets found.
    const pile = JSON.parse(readFileSync(join(racine, FICHIER_PILE), 'utf8')) as { urlBase: string; dynamodb: string; s3: string };
    const portDe = (url: string) => Number(new URL(url).port);
    const java = pids.find((pid) => /(^|\/)java$/.test(commande(pid)[0] ?? ''));
    expect(java, 'DynamoDB Local (java) runs under npm start').toBeDefined();
    expect(sockets.map((s) => s.port)).toEqual(expect.arrayContaining([portDe(pile.urlBase), portDe(pile.dynamodb), portDe(pile.s3)]));
    expect(sockets.find((s) => s.port === portDe(pile.dynamodb))?.processus).toBe('java');
    // Gateway, S3 front, s3rver, Step Functions API, DynamoDB Local at least.
    expect(sockets.length).toBeGreaterThanOrEqual(5);

    const boucle = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);
    expect(sockets.filter((s) => !boucle.has(s.adresse))).toEqual([]);
  });
});
