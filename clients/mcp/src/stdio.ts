/**
 * The MCP server on stdin/stdout, for a desktop assistant that starts it as a command
 * (`npx retouche mcp`): stdout carries the protocol only, anything said goes to stderr. It serves until
 * the assistant closes its stdin (answering what it was already asked first, so that a script piping
 * requests in gets every answer), or a Ctrl-C.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Retouche } from '../../sdk/src/index';
import { lecteurImages } from './serveur';
import { creerServeurMcp } from './serveur-sdk';

/**
 * A call may wait this long: assistants' clients give a tool call about a minute (the MCP SDK's default
 * request timeout is 60 s), and progress notifications keep it alive for those that count them.
 */
export const ATTENTE_MAX_STDIO_S = 50;

/**
 * `cleManquante`: the server was started without a key; it still answers `initialize` and `tools/list`,
 * and each tool call says this (how to set RETOUCHE_CLE). Relative paths resolve against the working directory.
 */
export const servirStdio = async (retouche: Retouche, arret: AbortSignal, cleManquante?: string): Promise<void> => {
  const serveur = creerServeurMcp({
    retouche,
    fichiersLocaux: true,
    attenteMaxS: ATTENTE_MAX_STDIO_S,
    lireImage: lecteurImages(),
    dossier: process.cwd(),
    ...(cleManquante === undefined ? {} : { cleManquante }),
  });
  const transport = new StdioServerTransport();
  await serveur.connect(transport);
  const ouvertes = requetesOuvertes(transport);
  await new Promise<void>((resolve) => {
    transport.onclose = resolve;
    arret.addEventListener('abort', () => resolve(), { once: true });
    process.stdin.once('end', () => void ouvertes.toutesRepondues().then(resolve));
  });
  await serveur.close();
};

/**
 * The requests received and not yet answered. The transport reads stdin's lines as they come, so every
 * request is counted before stdin's end is seen.
 */
const requetesOuvertes = (transport: StdioServerTransport) => {
  const ouvertes = new Set<string | number>();
  let surVide: (() => void) | undefined;
  const recevoir = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage) => {
    if ('id' in message && 'method' in message) ouvertes.add(message.id);
    recevoir?.(message);
  };
  const envoyer = transport.send.bind(transport);
  transport.send = async (message: JSONRPCMessage) => {
    await envoyer(message);
    if ('id' in message && message.id !== undefined && !('method' in message) && ouvertes.delete(message.id) && ouvertes.size === 0) surVide?.();
  };
  return { toutesRepondues: () => (ouvertes.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => (surVide = resolve))) };
};
