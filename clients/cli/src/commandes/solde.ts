/** `retouche solde`: the account's balance. */
import type { Command } from 'commander';
import type { Contexte, OptionsGlobales } from '../contexte';

export const solde = (programme: Command, { flux, signal, client, json }: Contexte): void => {
  programme
    .command('solde')
    .description("the account's balance in credits")
    .option('--json', 'print the answer as JSON on stdout')
    .action(async (options: { json?: boolean }, commande: Command) => {
      const solde = await client(commande.optsWithGlobals<OptionsGlobales>()).solde({ signal });
      if (options.json) json(solde);
      else flux.stdout.write(`${solde.credits} credits\n`);
    });
};
