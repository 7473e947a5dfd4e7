/**
 * Retouche's tools (serveur.ts) on the official MCP SDK's server: what `npx retouche mcp` serves on stdio
 * (stdio.ts), and what the stage's function falls back on for any message it does not answer itself
 * (http.ts, http-sdk.ts).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { INSTRUCTIONS, NOM_SERVEUR, outilsMcp, TITRE_SERVEUR, VERSION_SERVEUR, type OptionsServeurMcp } from './serveur';

export const creerServeurMcp = (options: OptionsServeurMcp): McpServer => {
  const serveur = new McpServer({ name: NOM_SERVEUR, version: VERSION_SERVEUR, title: TITRE_SERVEUR }, { instructions: INSTRUCTIONS });
  for (const { nom, executer, inputSchema, ...config } of outilsMcp(options)) {
    // The SDK calls a tool without arguments with its `extra` alone.
    if (inputSchema) serveur.registerTool(nom, { ...config, inputSchema }, (args, extra) => executer(args, extra));
    else serveur.registerTool(nom, config, (extra) => executer({}, extra));
  }
  return serveur;
};
