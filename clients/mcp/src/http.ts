/**
 * One POST to Retouche's MCP server over Streamable HTTP, stateless, answered as JSON (lambda.ts).
 *
 * The messages of an assistant's usual session — `initialize`, `notifications/initialized`, `ping`,
 * `tools/list`, and `tools/call` of one of our tools with valid arguments — are answered here, with the
 * tools of serveur.ts, exactly as the official SDK answers them, but without loading it: its server and
 * transport check every message against their protocol's schemas in full zod, and bring ajv and zod 3, which
 * made the function read 960 KB of minified JS at each cold start where any other API function reads at
 * most 300 KB (issue 40; about 320 KB now, test/cdk/bundles.test.ts says why not less). Everything else goes
 * to the SDK itself (http-sdk.ts, imported on first need): another method or notification, arguments a
 * tool's schema refuses, an unknown tool, a header, body or message the SDK's transport would refuse, any
 * field this code does not know. The SDK answers those, its errors included, as it answered every message
 * before.
 *
 * So the checks below do not refuse anything: they decide who answers, and every message they let through
 * is one the SDK accepts too (they are stricter than its schemas, never looser). test/unit/mcp-http.test.ts
 * sends the same messages both ways and compares the answers byte for byte.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/mini';
import { INSTRUCTIONS, NOM_SERVEUR, outilsMcp, TITRE_SERVEUR, VERSION_SERVEUR, type ContexteAppel, type OptionsServeurMcp } from './serveur';

import type { ReponseHttpMcp, RequeteHttpMcp } from './echange-http';

export type { ReponseHttpMcp, RequeteHttpMcp };

/**
 * The protocol versions the SDK speaks (its SUPPORTED_PROTOCOL_VERSIONS, which a test holds equal to
 * these). An `initialize` asking for another one, or a request whose MCP-Protocol-Version header names
 * another one, is the SDK's: it answers with its latest version, or refuses the header.
 */
export const VERSIONS_PROTOCOLE: readonly string[] = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];

/** A body above this goes to the SDK, which takes up to 4 MiB (a 413 beyond); our messages are a few KB. */
const OCTETS_MAX = 64 * 1024;

/** What the MCP SDK's McpServer lists for a tool without arguments. */
const ENTREE_VIDE = { type: 'object', properties: {} };

/** The answer to one POST: here if this module knows the message, else the SDK's. */
export const repondreHttp = async (requete: RequeteHttpMcp, options: OptionsServeurMcp): Promise<ReponseHttpMcp> =>
  (await repondreDirectement(requete, options)) ?? (await import('./http-sdk')).repondreAvecLeSdk(requete, options);

/** The answer without the SDK, or undefined when the message is the SDK's to answer. */
export const repondreDirectement = async (requete: RequeteHttpMcp, options: OptionsServeurMcp): Promise<ReponseHttpMcp | undefined> => {
  const message = messageReconnu(requete);
  if (!message) return undefined;
  // The transport's answer to a POST of notifications only: 202, no body (the SDK's server does nothing with this one).
  if (message.id === undefined) return { statut: 202, entetes: {}, corps: '' };
  const resultat = await resultatDe(message.methode, message.params, options);
  if (resultat === undefined) return undefined;
  // The SDK's JSON-RPC response, with its keys in its order.
  return { statut: 200, entetes: { 'content-type': 'application/json' }, corps: JSON.stringify({ result: resultat, jsonrpc: '2.0', id: message.id }) };
};

type Objet = Record<string, unknown>;

interface Message {
  methode: string;
  /** Undefined for a notification. */
  id: string | number | undefined;
  params: Objet | undefined;
}

const estObjet = (v: unknown): v is Objet => typeof v === 'object' && v !== null && !Array.isArray(v);
const estVide = (v: unknown): boolean => estObjet(v) && Object.keys(v).length === 0;
/** A JSON-RPC id or progress token, as the SDK's schemas take them: a string or a safe integer. */
const estJeton = (v: unknown): v is string | number => typeof v === 'string' || Number.isSafeInteger(v);

/**
 * The message of the POST if this module answers it, checked as the SDK's transport checks a POST (in its
 * order: Accept, Content-Type, size, JSON, JSON-RPC message, MCP-Protocol-Version), then as its server
 * checks the method's parameters.
 */
const messageReconnu = ({ methode, entetes, corps }: RequeteHttpMcp): Message | undefined => {
  if (methode !== 'POST') return undefined;
  const accepte = entetes.get('accept');
  if (!accepte?.includes('application/json') || !accepte.includes('text/event-stream')) return undefined;
  if (!/^application\/json(\s*;\s*charset=utf-8)?$/i.test(entetes.get('content-type') ?? '')) return undefined;
  if (Number(entetes.get('content-length')) > OCTETS_MAX || corps === undefined || corps.byteLength > OCTETS_MAX) return undefined;
  let brut: unknown;
  try {
    // Valid UTF-8 only: the SDK decodes other bytes with replacement characters, which are its to read.
    brut = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(corps));
  } catch {
    return undefined;
  }
  // A JSON-RPC request or notification has these keys and no other (the SDK's schemas are strict there).
  if (!estObjet(brut) || !Object.keys(brut).every((cle) => ['jsonrpc', 'id', 'method', 'params'].includes(cle))) return undefined;
  const { jsonrpc, id, method, params } = brut;
  if (jsonrpc !== '2.0' || typeof method !== 'string' || (params !== undefined && !estObjet(params))) return undefined;
  // Task-augmented requests and related-task metadata (experimental in the SDK) are its own.
  if (params && ('task' in params || !metaReconnu(params['_meta']))) return undefined;
  if (method !== 'initialize') {
    const version = entetes.get('mcp-protocol-version');
    if (version !== null && !VERSIONS_PROTOCOLE.includes(version)) return undefined;
  }
  if (!('id' in brut)) return method === 'notifications/initialized' ? { methode: method, id: undefined, params } : undefined;
  if (!estJeton(id)) return undefined;
  return parametresReconnus(method, params) ? { methode: method, id, params } : undefined;
};

const metaReconnu = (meta: unknown): boolean =>
  meta === undefined ||
  (estObjet(meta) && (meta['progressToken'] === undefined || estJeton(meta['progressToken'])) && !('io.modelcontextprotocol/related-task' in meta));

/** A method's parameters as its schema in the SDK takes them (the fields our answers read, or that the SDK would refuse). */
const parametresReconnus = (methode: string, p: Objet | undefined): boolean => {
  switch (methode) {
    case 'initialize':
      return (
        p !== undefined &&
        typeof p['protocolVersion'] === 'string' &&
        VERSIONS_PROTOCOLE.includes(p['protocolVersion']) &&
        capacitesReconnues(p['capabilities']) &&
        implementationReconnue(p['clientInfo'])
      );
    case 'ping':
      return true;
    case 'tools/list':
      // The SDK's server lists every tool whatever the cursor, but a cursor must be a string.
      return p?.['cursor'] === undefined || typeof p['cursor'] === 'string';
    case 'tools/call':
      return p !== undefined && typeof p['name'] === 'string' && (p['arguments'] === undefined || estObjet(p['arguments']));
    default:
      return false;
  }
};

/**
 * The client's capabilities, which a stateless server does not keep, but which the SDK checks: only their
 * simplest form here, each capability an object whose members are empty objects (`roots.listChanged`
 * a boolean), which its schemas all take; anything richer is the SDK's to check.
 */
const capacitesReconnues = (capacites: unknown): boolean =>
  estObjet(capacites) &&
  Object.entries(capacites).every(
    ([nom, capacite]) =>
      estObjet(capacite) &&
      Object.entries(capacite).every(([cle, valeur]) => (nom === 'roots' && cle === 'listChanged' ? typeof valeur === 'boolean' : estVide(valeur))),
  );

/** The client's name and version, and its optional texts; icons are the SDK's to check. */
const implementationReconnue = (client: unknown): boolean =>
  estObjet(client) &&
  typeof client['name'] === 'string' &&
  typeof client['version'] === 'string' &&
  ['title', 'websiteUrl', 'description'].every((cle) => client[cle] === undefined || typeof client[cle] === 'string') &&
  !('icons' in client);

/** The result of a request, as the SDK's McpServer makes it; undefined for the SDK to answer instead. */
const resultatDe = async (methode: string, params: Objet | undefined, options: OptionsServeurMcp): Promise<object | undefined> => {
  switch (methode) {
    case 'initialize':
      // The version asked for, which the SDK supports (checked above), and what McpServer declares with tools.
      return {
        protocolVersion: params!['protocolVersion'],
        capabilities: { tools: { listChanged: true } },
        serverInfo: { name: NOM_SERVEUR, version: VERSION_SERVEUR, title: TITRE_SERVEUR },
        instructions: INSTRUCTIONS,
      };
    case 'ping':
      return {};
    case 'tools/list':
      return {
        tools: outilsMcp(options).map((o) => ({
          name: o.nom,
          title: o.title,
          description: o.description,
          // As McpServer converts a tool's zod schemas (zod's own converter, the same options).
          inputSchema: o.inputSchema ? z.toJSONSchema(z.object(o.inputSchema), { target: 'draft-7', io: 'input' }) : ENTREE_VIDE,
          annotations: o.annotations,
          execution: { taskSupport: 'forbidden' },
        })),
      };
    case 'tools/call':
      return appelerOutil(params!, options);
    default:
      return undefined;
  }
};

const appelerOutil = async (params: Objet, options: OptionsServeurMcp): Promise<object | undefined> => {
  const outil = outilsMcp(options).find((o) => o.nom === params['name']);
  if (!outil) return undefined;
  // A tool without arguments ignores any sent, as McpServer does.
  let args = {};
  if (outil.inputSchema) {
    // As McpServer validates them; refused, the SDK answers (its tool error names each problem).
    const validation = await z.safeParseAsync(z.object(outil.inputSchema), params['arguments'] ?? {});
    if (!validation.success) return undefined;
    args = validation.data;
  }
  // Over stateless JSON the SDK's transport has nowhere to send a notification (a progress): it drops it.
  const extra: ContexteAppel = {
    signal: new AbortController().signal,
    _meta: params['_meta'] as ContexteAppel['_meta'],
    sendNotification: async () => undefined,
  };
  let resultat: CallToolResult;
  try {
    resultat = await outil.executer(args, extra);
  } catch (e) {
    // McpServer's answer to a tool that throws: a tool error with the message.
    resultat = { content: [{ type: 'text', text: e instanceof Error ? e.message : String(e) }], isError: true };
  }
  // The SDK's server returns the result as its schema parses it: these keys, in this order (our tools'
  // results have no other, and their contents are texts of `type` and `text`).
  return { content: resultat.content, structuredContent: resultat.structuredContent, isError: resultat.isError };
};
