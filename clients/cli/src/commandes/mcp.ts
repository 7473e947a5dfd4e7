/** `retouche mcp`: serves Retouche to an AI assistant over MCP on stdio (clients/mcp/src/stdio.ts). */
import type { Command } from 'commander';
import type { Contexte, OptionsGlobales } from '../contexte';

export const mcp = (programme: Command, { env, signal, client, message }: Contexte): void => {
  programme
    .command('mcp')
    .description('serve Retouche to an AI assistant over MCP on stdin/stdout (its jobs say source "mcp")')
    .action(async (_options: unknown, commande: Command) => {
      const globales = commande.optsWithGlobals<OptionsGlobales>();
      // Without a key the server still starts (an assistant lists its tools), and each call says how to set one.
      const sansCle = !(globales.cle ?? env['RETOUCHE_CLE']);
      const retouche = client(sansCle ? { ...globales, cle: 'rtch_absente' } : globales, 'mcp');
      const cleManquante = sansCle
        ? 'No API key: this Retouche server was started without RETOUCHE_CLE. Set it in the assistant\'s configuration of the server, e.g. "env": {"RETOUCHE_CLE": "rtch_…"} in claude_desktop_config.json, or `claude mcp add retouche -e RETOUCHE_CLE=rtch_… -- npx retouche mcp`, then restart the server. A key comes from the web site\'s API page or the operator.'
        : undefined;
      // Loaded here only: the other commands do not pay for the MCP SDK.
      const { servirStdio } = await import('../../../mcp/src/stdio');
      message(
        `Retouche MCP server on stdio, for ${retouche.base}.${sansCle ? ' No API key (RETOUCHE_CLE): tool calls will say how to set one.' : ''} Stop it with Ctrl-C.`,
      );
      await servirStdio(retouche, signal, cleManquante);
    });
};
