/** `retouche suivre <id>`: picks up a job or batch started before (or interrupted), as `lancer --attendre` waits. */
import type { Command } from 'commander';
import type { Contexte, OptionsAttente, OptionsGlobales } from '../contexte';
import { attendreEtEcrire } from '../resultats';

export const suivre = (programme: Command, ctx: Contexte): void => {
  const { signal, client } = ctx;
  programme
    .command('suivre')
    .description('wait for an existing job or batch and write its results')
    .argument('<id>', 'a job or batch id')
    .option('--sortie <dossier>', 'where results are written', '.')
    .option('--json', 'print the final job or batch as JSON on stdout')
    .action(async (id: string, options: OptionsAttente, commande: Command) => {
      const retouche = client(commande.optsWithGlobals<OptionsGlobales>());
      ctx.statut = await attendreEtEcrire(ctx, retouche, await retouche.lire(id, { signal }), options);
    });
};
