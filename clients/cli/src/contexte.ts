/**
 * What every command of `retouche` shares for one run: the streams, the environment, the Ctrl-C signal,
 * the client made from the global options, the exit status and the id a Ctrl-C names. Apart from
 * index.ts so that the command modules (commandes/) import it without importing the dispatcher back.
 */
import { Retouche } from '../../sdk/src/index';

export const API_PAR_DEFAUT = 'http://localhost:3000/api/v1';

/** Exit statuses, one meaning each, so that scripts can tell a failed photo from a broken call. */
export const SORTIE = { ok: 0, echec: 1, usage: 2, interruption: 130 } as const;

/** What the command writes to: the real streams, or a test's. */
export interface Flux {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

/** Thrown by a Ctrl-C: it carries the id to pick up, so that the message can name it. */
export class Interruption extends Error {
  constructor(readonly id: string | undefined) {
    super('interrupted');
  }
}

/** Bad usage found by the command itself (not by commander nor the API): exit 2, like commander's own. */
export class ErreurUsage extends Error {}

export interface OptionsGlobales {
  api?: string;
  cle?: string;
}

export interface OptionsAttente {
  sortie: string;
  json?: boolean;
}

export interface Contexte {
  flux: Flux;
  env: NodeJS.ProcessEnv;
  /** One for the whole run: a Ctrl-C aborts whatever is in flight (a poll, an upload, a download). */
  signal: AbortSignal;
  /** The id a Ctrl-C should name: unknown until the job or batch is started (or found). */
  enCours: string | undefined;
  /** The exit status of a run that ends without an error. */
  statut: number;
  /** A line on stderr: what is said to the user, so that stdout carries only the answer. */
  message: (texte: string) => void;
  json: (valeur: unknown) => void;
  /** The client for the global options (--api, --cle) or the environment; bad usage without a key or with a bad URL. */
  client: (options: OptionsGlobales, source?: 'mcp') => Retouche;
}

export const creerContexte = (flux: Flux, env: NodeJS.ProcessEnv, signal: AbortSignal): Contexte => ({
  flux,
  env,
  signal,
  enCours: undefined,
  statut: SORTIE.ok,
  message: (texte) => void flux.stderr.write(`${texte}\n`),
  json: (valeur) => void flux.stdout.write(`${JSON.stringify(valeur, null, 2)}\n`),
  client: (options, source) => {
    const cle = options.cle ?? env['RETOUCHE_CLE'];
    if (!cle) throw new ErreurUsage('No API key: set RETOUCHE_CLE or pass --cle rtch_…');
    let base = options.api ?? env['RETOUCHE_API'] ?? API_PAR_DEFAUT;
    try {
      base = new URL(base).href;
    } catch {
      throw new ErreurUsage(`Not a URL: --api ${base}`);
    }
    return new Retouche({ base, cle, ...(source ? { source } : {}) });
  },
});
