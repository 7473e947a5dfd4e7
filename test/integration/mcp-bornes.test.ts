/**
 * What an assistant can make `/api/v1/mcp` do is bounded as a client's requests are (issue 38, point 2): a
 * JSON-RPC batch is refused before any of it runs, every API call a tool makes counts against the caller's
 * key (the public `GET /outils` too), and the tools call the API at the stack's own address, never at the
 * request's `Host` (which would send the caller's key wherever it names).
 */
import { request } from 'node:http';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { horlogeTenable } from '../support/horloge';
import { demarrerPileTest } from '../support/pile';
import { demarrerRecepteur } from '../support/recepteur';

let pile: Awaited<ReturnType<typeof demarrerPileTest>>;
/** The stack's clock, held still by the rate cases. */
const { horloge, dansUneMinute } = horlogeTenable();

beforeAll(async () => {
  pile = await demarrerPileTest({ horloge });
});
afterAll(async () => {
  await pile?.arreter();
});

const ENTETES_MCP = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
const entetesCle = (cle: string) => ({ Authorization: `Bearer ${cle}` });
const appelOutil = (id: number, name: string, args: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});
const poster = (cle: string, corps: unknown) =>
  fetch(`${pile.urlBase}/mcp`, { method: 'POST', headers: { ...entetesCle(cle), ...ENTETES_MCP }, body: JSON.stringify(corps) });
const resultat = async (reponse: Response) => ((await reponse.json()) as { result: CallToolResult }).result;
const texte = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
const solde = async (cle: string) => (await fetch(`${pile.urlBase}/solde`, { headers: entetesCle(cle) })).json();

describe('/api/v1/mcp: one request, one message', () => {
  it('refuses a JSON-RPC batch with a 400 before any of it runs; one message still works', async () => {
    const { cle } = await pile.creerCompte(9);
    const lancer = (id: number) => appelOutil(id, 'lancer', { outil: 'annonce', reglages: { lieu: 'Nantes' } });
    const lot = await poster(cle, [lancer(1), lancer(2), lancer(3)]);
    expect(lot.status).toBe(400);
    expect(await lot.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: expect.stringMatching(/^Invalid Request: .*batch/) as unknown },
    });
    expect(await solde(cle)).toEqual({ credits: 9 });
    // A batch of one is a batch too.
    expect((await poster(cle, [appelOutil(4, 'solde')])).status).toBe(400);

    const seul = await poster(cle, lancer(5));
    expect(seul.status).toBe(200);
    expect(texte(await resultat(seul))).toMatch(/^Started job .* for 3 credits\./);
    expect(await solde(cle)).toEqual({ credits: 6 });
  });
});

describe('/api/v1/mcp: every API call a tool makes counts against the key', () => {
  it('60 calls of `outils` use the key’s 120 requests of the minute: each POST and its GET /outils', async () => {
    const { cle } = await pile.creerCompte(1);
    await dansUneMinute(async () => {
      for (let i = 1; i <= 60; i++) {
        const reponse = await poster(cle, appelOutil(i, 'outils'));
        expect(reponse.status, `call ${i}`).toBe(200);
        expect((await resultat(reponse)).isError, `call ${i}`).toBeFalsy();
      }
      const refus = await poster(cle, appelOutil(61, 'outils'));
      expect(refus.status).toBe(429);
      expect((await fetch(`${pile.urlBase}/solde`, { headers: entetesCle(cle) })).status).toBe(429);
    });
  });

  it('when the POST is the minute’s 120th, the tool’s own call to the public GET /outils is refused: a tool error', async () => {
    const { cle } = await pile.creerCompte(1);
    await dansUneMinute(async () => {
      const reponses = await Promise.all(Array.from({ length: 119 }, () => fetch(`${pile.urlBase}/solde`, { headers: entetesCle(cle) })));
      expect(reponses.map((r) => r.status)).toEqual(Array(119).fill(200));
      const reponse = await poster(cle, appelOutil(1, 'outils'));
      expect(reponse.status).toBe(200);
      const refus = await resultat(reponse);
      expect(refus.isError).toBe(true);
      expect(texte(refus)).toMatch(/^rate_limited: More than 120 requests per minute on this key/);
    });
  });
});

describe('/api/v1/mcp: the API the tools call', () => {
  it('is the stack’s own address, not the request’s Host: a forged one receives nothing, and the call works', async () => {
    const recepteur = await demarrerRecepteur();
    try {
      const { cle } = await pile.creerCompte(7);
      const hote = new URL(recepteur.url('/')).host;
      const corps = JSON.stringify(appelOutil(1, 'solde'));
      const { statut, texteReponse } = await new Promise<{ statut: number; texteReponse: string }>((resoudre, rejeter) => {
        const requete = request(
          { host: '127.0.0.1', port: pile.port, method: 'POST', path: '/api/v1/mcp', headers: { ...entetesCle(cle), ...ENTETES_MCP, Host: hote } },
          (reponse) => {
            let recu = '';
            reponse.setEncoding('utf8');
            reponse.on('data', (m: string) => (recu += m)).on('end', () => resoudre({ statut: reponse.statusCode ?? 0, texteReponse: recu }));
          },
        );
        requete.on('error', rejeter);
        requete.end(corps);
      });
      expect(recepteur.recus).toEqual([]);
      expect(statut).toBe(200);
      const r = (JSON.parse(texteReponse) as { result: CallToolResult }).result;
      expect(texte(r)).toBe('7 credits.');
    } finally {
      await recepteur.arreter();
    }
  });
});

describe('OAuth discovery, which this stage does not offer', () => {
  it('answers /.well-known/oauth-* with a JSON 404, so that an MCP client falls back to its bearer token', async () => {
    for (const chemin of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/api/v1/mcp',
      '/.well-known/oauth-authorization-server',
    ]) {
      const reponse = await fetch(`${new URL(pile.urlBase).origin}${chemin}`);
      expect(reponse.status, chemin).toBe(404);
      expect(reponse.headers.get('content-type'), chemin).toMatch(/^application\/json/);
      expect(await reponse.json()).toMatchObject({ error: { code: 'not_found' } });
    }
  });
});
