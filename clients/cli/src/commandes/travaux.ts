/** `retouche travaux`: the account's latest jobs, a page at a time. */
import { InvalidArgumentError, type Command } from 'commander';
import type { Travail } from '../../../sdk/src/index';
import type { Contexte, OptionsGlobales } from '../contexte';

export const travaux = (programme: Command, { flux, signal, client, json, message }: Contexte): void => {
  programme
    .command('travaux')
    .description("the account's latest jobs, newest first")
    .option('--limite <n>', 'how many, 1 to 100 (default 20)', entier)
    .option('--outil <outil>', 'only the jobs of this tool')
    .option('--apres <curseur>', 'the next page: the cursor the page before named')
    .option('--json', 'print the answer as JSON on stdout')
    .action(async (options: { limite?: number; outil?: string; apres?: string; json?: boolean }, commande: Command) => {
      const parametres = {
        ...(options.limite === undefined ? {} : { limite: options.limite }),
        ...(options.outil === undefined ? {} : { outil: options.outil as Travail['outil'] }),
        ...(options.apres === undefined ? {} : { apres: options.apres }),
      };
      const page = await client(commande.optsWithGlobals<OptionsGlobales>()).pageTravaux(parametres, { signal });
      if (options.json) return void json(page);
      for (const t of page.travaux)
        flux.stdout.write(`${t.id}  ${t.outil.padEnd(10)} ${t.statut.padEnd(10)} ${t.cree_le}  ${t.nom ?? ''}${t.apercu ? '  (preview)' : ''}\n`);
      if (page.suivant) message(`More: retouche travaux${options.limite ? ` --limite ${options.limite}` : ''} --apres ${page.suivant}`);
    });
};

/** `--limite 5`: an integer, refused by commander (exit 2) otherwise. */
const entier = (valeur: string) => {
  if (!/^\d+$/.test(valeur)) throw new InvalidArgumentError('an integer is expected.');
  return Number(valeur);
};
