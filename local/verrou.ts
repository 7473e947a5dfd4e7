/**
 * One running stack per data folder. Two stacks on one folder would each start a DynamoDB Local on the
 * same files and overwrite each other's pile.json, so `npm start` takes this lock before starting
 * anything and a second start is refused, naming the pid that holds the folder.
 *
 * The lock is a file created only if absent, holding the owner's pid (and, on Linux, the owner's start
 * time, so a pid reused after a reboot or a wrap-around is not mistaken for the owner); `kill(pid, 0)`
 * tells a live owner from a dead one. A lock whose owner is gone — a stack killed by SIGKILL leaves it
 * behind — is taken over silently. Released on a normal stop (and on any exit that runs handlers).
 */
import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const FICHIER_VERROU = 'verrou.json';

interface Contenu {
  pid: number;
  /** Start time of the process in clock ticks since boot (/proc/<pid>/stat, field 22); Linux only. */
  debut?: string;
}

export class DossierOccupe extends Error {
  constructor(
    readonly dossier: string,
    readonly pid: number,
  ) {
    super(`${dossier} is already used by a running Retouche stack (pid ${pid}): stop it first, or set RETOUCHE_DATA_DIR to another folder.`);
    this.name = 'DossierOccupe';
  }
}

export interface Verrou {
  fichier: string;
  /** Removes the lock if it is still this process's; synchronous, so it can run in an 'exit' handler. */
  liberer(): void;
}

const debutProcessus = (pid: number): string | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count the fields after its last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
};

/** The lock's text, or undefined when there is none. */
const lireTexte = (fichier: string): string | undefined => {
  try {
    return readFileSync(fichier, 'utf8');
  } catch (erreur) {
    if ((erreur as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw erreur;
  }
};

/** The owner a lock's text names; undefined for a text no start writes (then the lock is stale). */
const proprietaire = (texte: string): Contenu | undefined => {
  try {
    const contenu = JSON.parse(texte) as Contenu;
    return Number.isInteger(contenu.pid) && contenu.pid > 0 ? contenu : undefined;
  } catch {
    return undefined;
  }
};

const vivant = ({ pid, debut }: Contenu): boolean => {
  try {
    process.kill(pid, 0);
  } catch (erreur) {
    // EPERM: the pid exists but belongs to another user.
    if ((erreur as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const actuel = debut === undefined ? undefined : debutProcessus(pid);
  return actuel === undefined || actuel === debut;
};

/** The pid of the live stack that holds `dossier`, if one does. */
export const occupant = (dossier: string): number | undefined => {
  const texte = lireTexte(join(dossier, FICHIER_VERROU));
  const contenu = texte === undefined ? undefined : proprietaire(texte);
  return contenu && vivant(contenu) ? contenu.pid : undefined;
};

const ignorer = (action: () => void) => {
  try {
    action();
  } catch {
    // already gone
  }
};

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Takes the lock of `dossier` (which must exist), or throws DossierOccupe. A refused start writes
 * nothing: the owner is checked before any file is made.
 */
export const prendreVerrou = async (dossier: string): Promise<Verrou> => {
  const fichier = join(dossier, FICHIER_VERROU);
  const moi = JSON.stringify({ pid: process.pid, debut: debutProcessus(process.pid) } satisfies Contenu);
  const provisoire = join(dossier, `.${FICHIER_VERROU}.${process.pid}`);
  /** Creates `nom` holding this process's lock text, whole or not at all; false if `nom` exists. */
  const creer = (nom: string): boolean => {
    // Written aside, then linked in place (link fails if the name exists): a plain exclusive create
    // would show other starts an empty file for a moment, which they would take for a dead lock.
    writeFileSync(provisoire, moi);
    try {
      linkSync(provisoire, nom);
      return true;
    } catch (erreur) {
      if ((erreur as NodeJS.ErrnoException).code !== 'EEXIST') throw erreur;
      return false;
    } finally {
      ignorer(() => unlinkSync(provisoire));
    }
  };
  const verrou: Verrou = {
    fichier,
    liberer: () => {
      if (lireTexte(fichier) === moi) ignorer(() => unlinkSync(fichier));
    },
  };

  for (let essai = 0; essai < 100; essai++) {
    const present = lireTexte(fichier);
    const occupant = present === undefined ? undefined : proprietaire(present);
    // Checked before any file is made: a refused start writes nothing.
    if (occupant && occupant.pid !== process.pid && vivant(occupant)) throw new DossierOccupe(dossier, occupant.pid);
    if (present === undefined) {
      if (creer(fichier)) return verrou;
      continue; // another start was quicker: look at its lock
    }
    // A dead lock. Two starts may see the same one: a takeover guard (made the same way) lets one of
    // them remove it, and only if it is still the same dead lock.
    const garde = `${fichier}.reprise`;
    if (creer(garde)) {
      try {
        if (lireTexte(fichier) === present) ignorer(() => unlinkSync(fichier));
      } finally {
        ignorer(() => unlinkSync(garde));
      }
      continue;
    }
    const gardien = lireTexte(garde);
    const autre = gardien === undefined ? undefined : proprietaire(gardien);
    // A start that died holding the guard leaves it behind: drop it. Otherwise wait for the other start.
    if (gardien !== undefined && !(autre && vivant(autre))) {
      if (lireTexte(garde) === gardien) ignorer(() => unlinkSync(garde));
    } else await pause(20);
  }
  throw new Error(`Could not take the lock ${fichier}: remove it if no Retouche stack uses ${dossier}.`);
};
