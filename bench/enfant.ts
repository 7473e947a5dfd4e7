/**
 * A benchmark's run in a fresh Node process, as a cold Lambda container would make it: the benchmark's own script
 * again, with `--enfant` and its arguments, from the project's root; what the child prints as JSON lines, parsed.
 * Its other output (a library's warnings) is ignored; its error output is given back when it fails.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const RACINE = join(fileURLToPath(import.meta.url), '..', '..');

/** Runs `script` (a benchmark's `fileURLToPath(import.meta.url)`) with `--enfant` and `args`; its JSON lines. */
export const lancerEnfant = <T>(script: string, args: readonly string[]): Promise<T[]> =>
  new Promise((resoudre, rejeter) => {
    const fils = spawn(process.execPath, ['--import', 'tsx', script, '--enfant', ...args], { cwd: RACINE, stdio: ['ignore', 'pipe', 'pipe'] });
    let [sortie, erreurs] = ['', ''];
    fils.stdout.on('data', (d: Buffer) => (sortie += d));
    fils.stderr.on('data', (d: Buffer) => (erreurs += d));
    fils.on('error', rejeter);
    fils.on('close', (code) => {
      if (code !== 0) return rejeter(new Error(`child ${args.join(' ')} exited with ${code}:\n${erreurs}`));
      resoudre(
        sortie
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as T),
      );
    });
  });
