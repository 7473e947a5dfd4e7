/**
 * `retouche`: the command line of the Retouche API, on the TypeScript SDK (clients/sdk). It lists the
 * tools, reads the balance and the latest jobs, starts a job or a batch, waits for it with progress on
 * stderr and writes the result files beside each other, one per input, named after it. `retouche webhooks`
 * manages the account's webhooks (our extension): list, add (its secret printed this once), remove,
 * rotate the secret, send a test event, read and resend deliveries.
 *
 * Exit status: 0 when every job ended `termine`; 1 when one failed (it was refunded: the message says so);
 * 2 for bad usage or an API error (its `error.code` and message are printed); 130 after a Ctrl-C, which
 * loses nothing since the jobs run on the server (`retouche suivre <id>` picks them up).
 *
 * This module is the dispatcher: the global options, one module per command in commandes/ (what they
 * share: contexte.ts), and the exit status an error makes.
 */
import { Command, CommanderError, Option } from 'commander';
import { ErreurRetouche } from '../../sdk/src/index';
import { lancer } from './commandes/lancer';
import { mcp } from './commandes/mcp';
import { outils } from './commandes/outils';
import { solde } from './commandes/solde';
import { suivre } from './commandes/suivre';
import { travaux } from './commandes/travaux';
import { webhooks } from './commandes/webhooks';
import { API_PAR_DEFAUT, creerContexte, ErreurUsage, Interruption, SORTIE, type Contexte, type Flux } from './contexte';

export { API_PAR_DEFAUT, SORTIE, type Flux } from './contexte';
export { Progres } from './progres';

/** The commands, in the order the help lists them. */
const COMMANDES: readonly ((programme: Command, ctx: Contexte) => void)[] = [outils, solde, travaux, lancer, suivre, mcp, webhooks];

export const main = async (argv: string[], flux: Flux = { stdout: process.stdout, stderr: process.stderr }, env = process.env): Promise<number> => {
  const arret = new AbortController();
  const ctx = creerContexte(flux, env, arret.signal);
  const surSigint = () => {
    // A second Ctrl-C is the user's insistence: whatever still hangs (a slow download), leave now.
    if (arret.signal.aborted) process.exit(SORTIE.interruption);
    arret.abort(new Interruption(ctx.enCours));
  };
  process.on('SIGINT', surSigint);

  const programme = new Command('retouche')
    .description('Retouche API from the command line: property photo retouching and listing texts.')
    .addOption(new Option('--api <url>', `the API's base URL (env RETOUCHE_API, default ${API_PAR_DEFAUT})`))
    .addOption(new Option('--cle <cle>', 'the API key, rtch_… (env RETOUCHE_CLE)'))
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: (t) => flux.stdout.write(t), writeErr: (t) => flux.stderr.write(t) });
  for (const commande of COMMANDES) commande(programme, ctx);

  try {
    await programme.parseAsync(argv, { from: 'user' });
    return ctx.statut;
  } catch (erreur) {
    return statutDErreur(ctx, erreur, arret.signal.aborted ? arret.signal.reason : erreur);
  } finally {
    process.off('SIGINT', surSigint);
  }
};

/** What the user is told of an error that ended the run, and the exit status it makes (`cause`: the Ctrl-C's, when there was one). */
const statutDErreur = ({ message }: Contexte, erreur: unknown, cause: unknown): number => {
  if (cause instanceof Interruption) {
    message(
      cause.id
        ? `\nInterrupted. Nothing is lost: the work goes on on the server. Pick it up with: retouche suivre ${cause.id}`
        : '\nInterrupted before the job was started or known; `retouche travaux` lists what was started.',
    );
    return SORTIE.interruption;
  }
  if (erreur instanceof CommanderError) {
    // Help and version are no error; anything else commander refuses is bad usage.
    return erreur.exitCode === 0 ? SORTIE.ok : SORTIE.usage;
  }
  if (erreur instanceof ErreurRetouche) {
    message(`Error ${erreur.code}${erreur.statut ? ` (HTTP ${erreur.statut})` : ''}: ${erreur.message}`);
    // A single problem's detail repeats the message: only what it does not already say.
    for (const detail of erreur.details) if (!erreur.message.includes(detail.message)) message(`  ${detail.chemin}: ${detail.message}`);
    return SORTIE.usage;
  }
  if (erreur instanceof ErreurUsage) {
    message(`Error: ${erreur.message}`);
    return SORTIE.usage;
  }
  message(`Error: ${erreur instanceof Error ? erreur.message : String(erreur)}`);
  return SORTIE.usage;
};
