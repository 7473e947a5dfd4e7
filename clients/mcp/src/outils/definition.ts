/**
 * What a tool of the MCP server is, and what it is given: shared by the tool modules (outils/) and the
 * two ways they are served (serveur-sdk.ts, http.ts), apart from serveur.ts, which lists the tools, so
 * that a tool module imports its types without importing the list back.
 */
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/mini';
import type { Retouche } from '../../../sdk/src/index';

export interface OptionsServeurMcp {
  /** The SDK client, with the user's key and `source: 'mcp'`. */
  retouche: Retouche;
  /** Whether `lancer` takes paths of files on this machine (stdio only: a remote server cannot read them). */
  fichiersLocaux: boolean;
  /**
   * The longest one `attendre` call waits, in seconds: an assistant's call must end well before its
   * client gives up (about a minute for most) and, remotely, before API Gateway's 29 s.
   */
  attenteMaxS: number;
  /**
   * Reads a result image for the assistant to look at (an `image` content beside its link), up to
   * `octetsMax` bytes: undefined when it is larger, or cannot be read. Without it, answers carry links only.
   * Both transports give `lecteurImages(fetch)`.
   */
  lireImage?: LecteurImage;
  /**
   * Set when the server was started without an API key (stdio, no RETOUCHE_CLE): every tool call says
   * how to set one instead of calling the API (`outils`, public, still answers, and says it too).
   */
  cleManquante?: string;
  /** Where relative file paths resolve (stdio): the server's working directory, `process.cwd()` by default. */
  dossier?: string;
}

/** A result image's bytes and media type, or undefined (too large, unreadable, not an image). */
export type LecteurImage = (url: string, octetsMax: number, signal: AbortSignal) => Promise<{ octets: Uint8Array; type: string } | undefined>;

/** What a tool's body gets of the call besides its arguments: the part of the MCP SDK's `extra` it reads. */
export interface ContexteAppel {
  signal: AbortSignal;
  _meta?: { progressToken?: string | number };
  sendNotification: (notification: {
    method: 'notifications/progress';
    params: { progressToken: string | number; progress: number; total: number; message: string };
  }) => Promise<void>;
}

/** A tool's input: zod schemas by argument name, as the MCP SDK's `registerTool` takes them. */
export type FormeEntree = Record<string, z.core.$ZodType>;

/** A tool: its name, what the SDK's `registerTool` takes (by the SDK's names), and its body. */
export interface OutilMcp<F extends FormeEntree = FormeEntree> {
  nom: string;
  title: string;
  description: string;
  /** None for a tool without arguments. */
  inputSchema?: F;
  annotations: ToolAnnotations;
  executer: (args: z.infer<z.ZodMiniObject<F>>, extra: ContexteAppel) => Promise<CallToolResult>;
}

/** Types each tool's arguments from its schemas (a list of OutilMcp<FormeEntree> alone would not). */
export const definirOutil = <F extends FormeEntree>(definition: OutilMcp<F>): OutilMcp => definition as unknown as OutilMcp;

/** The argument of the tools that take a job or batch. */
export const ID = z.uuid().check(z.describe('The id of a job or of a batch, as `lancer` or `travaux` gave it.'));
