/**
 * Which local stacks are running, for the commands that act on one (admin, credentials). A stack
 * started with RETOUCHE_DATA_DIR is easy to lose: the README's admin line, run without it, looked in
 * `.retouche/` and answered that no stack was running. So `npm start` notes its data folder and URL
 * in the project's register (`.retouche-piles/`, beside the default data folder) while it runs, and
 * the commands, when RETOUCHE_DATA_DIR is not set and nothing runs on the default folder, take the one
 * stack that runs, or name them all when there are several.
 *
 * A note is live while the data folder's lock (verrou.ts) is held by the pid it names: a stack killed
 * by SIGKILL leaves its note behind, which is then ignored and removed.
 */
import { mkdirSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { occupant } from './verrou';

/** The register, and the default data folder, relative to where the command runs (npm runs scripts from the project folder). */
const registre = () => resolve('.retouche-piles');
export const DOSSIER_PAR_DEFAUT = '.retouche';

export interface PileActive {
  pid: number;
  dossier: string;
  url: string;
}

/** Notes this process's stack; returns the (synchronous) removal, for an 'exit' handler. */
export const inscrire = (dossier: string, url: string): (() => void) => {
  mkdirSync(registre(), { recursive: true });
  const fichier = join(registre(), `${process.pid}.json`);
  writeFileSync(fichier, JSON.stringify({ pid: process.pid, dossier, url } satisfies PileActive));
  return () => {
    try {
      unlinkSync(fichier);
    } catch {
      // already gone
    }
  };
};

/** The stacks running now, from the register (dead notes are removed on the way). */
export const pilesActives = (): PileActive[] => {
  let noms: string[];
  try {
    noms = readdirSync(registre()).filter((n) => /^\d+\.json$/.test(n));
  } catch {
    return [];
  }
  return noms.flatMap((nom) => {
    const fichier = join(registre(), nom);
    try {
      const note = JSON.parse(readFileSync(fichier, 'utf8')) as PileActive;
      if (occupant(note.dossier) === note.pid) return [note];
      unlinkSync(fichier);
    } catch {
      // unreadable or removed meanwhile: not a running stack
    }
    return [];
  });
};

export type Choix = { dossier: string; avis?: string } | { refus: string };

/**
 * The data folder a command acts on: RETOUCHE_DATA_DIR when set; else the default folder if a stack
 * runs on it (or none runs anywhere); else the one stack running, said on stderr by the caller; with
 * several, a refusal that names them.
 */
export const choisirDossier = (): Choix => {
  if (process.env.RETOUCHE_DATA_DIR !== undefined) return { dossier: resolve(process.env.RETOUCHE_DATA_DIR) };
  const defaut = resolve(DOSSIER_PAR_DEFAUT);
  if (occupant(defaut) !== undefined) return { dossier: defaut };
  const actives = pilesActives();
  if (actives.length === 1)
    return { dossier: actives[0]!.dossier, avis: `Using the one stack running, ${actives[0]!.url} (RETOUCHE_DATA_DIR=${actives[0]!.dossier}).` };
  if (actives.length > 1)
    return {
      refus: `Several local stacks are running: ${actives.map((a) => `RETOUCHE_DATA_DIR=${a.dossier} (${a.url})`).join(', ')}. Put the one you mean before the command, e.g. RETOUCHE_DATA_DIR=${actives[0]!.dossier} npm run …`,
    };
  return { dossier: defaut };
};
