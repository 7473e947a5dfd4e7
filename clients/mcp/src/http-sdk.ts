/**
 * One POST answered by the official MCP SDK: its Streamable HTTP transport, stateless (no session, a fresh
 * transport per request as it requires) with JSON answers, and its server with Retouche's tools. What
 * http.ts falls back on for any message it does not answer itself; imported only then.
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { ReponseHttpMcp, RequeteHttpMcp } from './echange-http';
import type { OptionsServeurMcp } from './serveur';
import { creerServeurMcp } from './serveur-sdk';

export const repondreAvecLeSdk = async ({ methode, url, entetes, corps }: RequeteHttpMcp, options: OptionsServeurMcp): Promise<ReponseHttpMcp> => {
  const serveur = creerServeurMcp(options);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await serveur.connect(transport);
  try {
    const reponse = await transport.handleRequest(new Request(url, { method: methode, headers: entetes, ...(corps ? { body: corps } : {}) }));
    return { statut: reponse.status, entetes: Object.fromEntries(reponse.headers), corps: await reponse.text() };
  } finally {
    await serveur.close();
  }
};
