/** `retouche outils`: the stage's tools, one line each with its cost and settings. */
import type { Command } from 'commander';
import type { Contexte, OptionsGlobales } from '../contexte';

export const outils = (programme: Command, { flux, signal, client, json, message }: Contexte): void => {
  programme
    .command('outils')
    .description('the tools this stage offers, their cost and settings')
    .option('--json', 'print the answer as JSON on stdout')
    .action(async (options: { json?: boolean }, commande: Command) => {
      const catalogue = await client(commande.optsWithGlobals<OptionsGlobales>()).catalogue({ signal });
      if (options.json) return void json(catalogue);
      const { outils } = catalogue;
      if (catalogue.apercu) message('This stage runs the preview engine (no trained model): results are marked "Preview".');
      for (const outil of outils) {
        const champs = outil.champs.map((c) => `${c.nom}${c.requis ? '*' : ''}${c.valeurs ? `=${c.valeurs.join('|')}` : ''}`).join(' ');
        flux.stdout.write(
          `${outil.id.padEnd(11)} ${String(outil.cout).padStart(2)} credits  ${outil.resume}${champs ? `\n${' '.repeat(24)}settings: ${champs}` : ''}\n`,
        );
      }
    });
};
