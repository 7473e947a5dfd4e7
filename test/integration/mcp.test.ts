/**
 * Retouche's MCP server, both transports, driven by the MCP SDK's own client as an assistant drives it,
 * against the real local stack: `retouche mcp` on stdio (the command as a child process, local photos
 * uploaded), and `/api/v1/mcp` over Streamable HTTP (stateless, the API key as bearer token). Checked:
 * the tools and their schemas, jobs started, waited for and erased, results and listing texts in the
 * answers, `source: "mcp"` on the jobs, errors as tool errors with the API's code, a 429 waited out.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lancement, Lot, Televersement, Travail } from '../../clients/sdk/src/index';
import { IMAGE_OCTETS_MAX, IMAGES_OCTETS_MAX_REPONSE } from '../../clients/mcp/src/serveur';
import { demarrerPileTest } from '../support/pile';

const RACINE = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(RACINE, 'clients/cli/bin/retouche.mjs');
const PHOTO_A = join(RACINE, 'test/photos/facade-ciel-blanc_polyhaven-cambridge-a.jpg');
const PHOTO_B = join(RACINE, 'test/photos/facade-ciel-blanc_polyhaven-cambridge-b.jpg');
const OUTILS_MCP = ['attendre', 'effacer', 'lancer', 'lire', 'outils', 'solde', 'televerser', 'travaux'];
const PHOTOS = join(RACINE, 'test/photos');

let pile: Awaited<ReturnType<typeof demarrerPileTest>>;
/** The stack's clock, held still by the 429 case. */
let horloge: () => number = () => Date.now();

beforeAll(async () => {
  pile = await demarrerPileTest({ delaiMoteurMs: 300, horloge: () => new Date(horloge()) });
});
afterAll(async () => {
  await pile?.arreter();
});

const entetesCle = (cle: string) => ({ Authorization: `Bearer ${cle}` });
const api = async <T>(cle: string, chemin: string): Promise<T> => (await fetch(`${pile.urlBase}${chemin}`, { headers: entetesCle(cle) })).json() as Promise<T>;
const texte = (resultat: CallToolResult) => resultat.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
const appeler = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;

const clientStdio = async (cle: string | undefined, cwd?: string) => {
  const client = new Client({ name: 'test-stdio', version: '1.0.0' });
  const env: Record<string, string> = { ...(process.env as Record<string, string>), RETOUCHE_API: pile.urlBase };
  delete env['RETOUCHE_CLE'];
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp'],
      env: cle === undefined ? env : { ...env, RETOUCHE_CLE: cle },
      ...(cwd ? { cwd } : {}),
      stderr: 'ignore',
    }),
  );
  return client;
};

/** The result links and inline images of an answer, as an assistant sees them. */
const liens = (r: CallToolResult) => r.content.flatMap((c) => (c.type === 'resource_link' ? [c] : []));
const images = (r: CallToolResult) => r.content.flatMap((c) => (c.type === 'image' ? [c] : []));

/** What the answer about these ended jobs must inline: each result of at most 1 MiB, until 2 MiB are inline. */
const imagesAttendues = async (travaux: Travail[]) => {
  const attendues: string[] = [];
  let restant = IMAGES_OCTETS_MAX_REPONSE;
  for (const t of travaux)
    for (const r of t.resultats) {
      const octets = Buffer.from(await (await fetch(r.url_affichage)).arrayBuffer());
      if (octets.byteLength <= Math.min(IMAGE_OCTETS_MAX, restant)) {
        attendues.push(octets.toString('base64'));
        restant -= octets.byteLength;
      }
    }
  return attendues;
};

const clientDistant = async (cle: string) => {
  const client = new Client({ name: 'test-http', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${pile.urlBase}/mcp`), { requestInit: { headers: entetesCle(cle) } }));
  return client;
};

// One assistant's story: each test goes on from the balance the one before left, so never shuffled.
describe('retouche mcp (stdio)', { shuffle: false }, () => {
  let client: Client;
  let cle: string;
  beforeAll(async () => {
    ({ cle } = await pile.creerCompte(40));
    client = await clientStdio(cle);
  });
  afterAll(async () => {
    await client?.close();
  });

  it('offers the tools, each with a description and an input schema', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(OUTILS_MCP);
    for (const outil of tools) {
      expect(outil.description?.length, outil.name).toBeGreaterThan(30);
      expect(outil.inputSchema.type).toBe('object');
    }
    const lancer = tools.find((t) => t.name === 'lancer')!;
    expect(lancer.inputSchema.required).toEqual(['outil']);
    expect(lancer.description).toContain('credits');
    expect(tools.find((t) => t.name === 'effacer')!.annotations?.destructiveHint).toBe(true);
    const catalogue = await appeler(client, 'outils');
    expect(texte(catalogue)).toMatch(/^vider — .*4 credits per job/m);
    // The local stack runs the preview engine: said before anything is started (issue 39).
    expect(texte(catalogue)).toMatch(/^This stage runs the preview engine.* Except fusion, which no model makes: its results are the real ones, unmarked\./);
    expect(catalogue.structuredContent).toMatchObject({ apercu: true });
    expect(texte(await appeler(client, 'solde'))).toBe('40 credits.');
  });

  it('starts a batch on two local photos, waits for it with progress, and the jobs say source mcp', async () => {
    const lancement = await appeler(client, 'lancer', { outil: 'ciel', images: [PHOTO_A, PHOTO_B] });
    expect(lancement.isError).toBeFalsy();
    const { lot, cout_total } = lancement.structuredContent as unknown as Lancement;
    expect(cout_total).toBe(4);
    expect(texte(lancement)).toContain(`Call attendre with id ${lot}`);

    const progres: number[] = [];
    const fin = (await client.callTool({ name: 'attendre', arguments: { id: lot } }, undefined, {
      onprogress: (p) => progres.push(p.progress),
    })) as CallToolResult;
    const etat = fin.structuredContent as unknown as Lot;
    expect(etat).toMatchObject({ statut: 'termine', termines: 2, total: 2 });
    expect(texte(fin)).toContain(`Batch ${lot} (ciel): termine, 2 done, 0 failed`);
    expect(texte(fin)).toContain('ZIP of every result: http');
    // Each result line says it is a preview, as the image says in its corner.
    expect(texte(fin)).toContain('Made by the preview engine, a stand-in without a trained model');
    expect(texte(fin).match(/Result \(preview, marked\): http/g)).toHaveLength(2);
    // Progress only grows (MCP's rule), counts the batch's ended jobs out of 2. (The last one may be missed: the
    // SDK's client hands a notification to its handler a microtask later, and a response read in the same chunk
    // removes the handler first; the answer says the same.)
    expect(progres.length).toBeGreaterThan(0);
    expect(progres).toEqual([...progres].sort((a, b) => a - b));
    expect(new Set(progres).size).toBe(progres.length);
    expect(progres.every((p) => p >= 0 && p <= 2)).toBe(true);

    for (const travail of etat.travaux) {
      expect(travail.source).toBe('mcp');
      const image = await fetch(travail.resultats[0]!.url);
      expect(image.status).toBe(200);
      expect((await sharp(Buffer.from(await image.arrayBuffer())).metadata()).format).toBe('jpeg');
    }
    // Each result a resource_link to its display link, the ZIP one too, and the images small enough inline (issue 41).
    expect(liens(fin).map((l) => l.mimeType)).toEqual(['image/jpeg', 'image/jpeg', 'application/zip']);
    expect(liens(fin).map((l) => new URL(l.uri).pathname)).toEqual([
      ...etat.travaux.map((t) => new URL(t.resultats[0]!.url_affichage).pathname),
      new URL(etat.zip!.url).pathname,
    ]);
    expect(images(fin)).toHaveLength(2);
    expect(images(fin).map((i) => i.data)).toEqual(await imagesAttendues(etat.travaux));
    expect(images(fin).every((i) => i.mimeType === 'image/jpeg')).toBe(true);
    // As the API itself says it.
    expect((await api<Travail>(cle, `/travaux/${etat.travaux[0]!.id}`)).source).toBe('mcp');
    expect(texte(await appeler(client, 'solde'))).toBe('36 credits.');
  });

  it('an API error is a tool error with its code and message, and costs nothing', async () => {
    const refus = await appeler(client, 'lancer', { outil: 'cielle', images: [PHOTO_A] });
    expect(refus.isError).toBe(true);
    expect(texte(refus)).toMatch(/^invalid_tool: /);
    const manque = await appeler(client, 'lancer', { outil: 'ciel', images: [join(RACINE, 'test/photos/absente.jpg')] });
    expect(manque.isError).toBe(true);
    expect(texte(manque)).toContain('absente.jpg');
    const inconnu = await appeler(client, 'lire', { id: '00000000-0000-4000-8000-000000000000' });
    expect(inconnu.isError).toBe(true);
    expect(texte(inconnu)).toMatch(/^not_found: /);
    expect(texte(await appeler(client, 'solde'))).toBe('36 credits.');
  });

  it('a failed job says why and that it was refunded; erasing it leaves nothing to read', async () => {
    // staging on a furnished bedroom: the preview engine finds the bed, the job fails and is refunded.
    const lancement = await appeler(client, 'lancer', { outil: 'staging', images: [join(RACINE, 'test/photos/chambre_pxhere-607447.jpg')] });
    const id = (lancement.structuredContent as unknown as Lancement).travaux[0]!.id;
    const fin = await appeler(client, 'attendre', { id });
    expect((fin.structuredContent as unknown as Travail).statut).toBe('echec');
    expect(texte(fin)).toMatch(/Failed: \w+: .*Its 5 credits were refunded\./);
    expect(texte(await appeler(client, 'effacer', { id }))).toBe(`Erased job ${id}: its photos, results and record are gone.`);
    // This server erased it: it says so plainly.
    const efface = await appeler(client, 'lire', { id });
    expect(efface.isError).toBe(true);
    expect(texte(efface)).toBe(`erased: Job ${id} was erased (with effacer): its photos, results and record are gone for good, and it cannot be read again.`);
    expect(texte(await appeler(client, 'solde'))).toBe('36 credits.');
  });

  it('reads a relative path from its working directory, and names a missing one and where it looked', async () => {
    const { cle: autre } = await pile.creerCompte(2);
    const ailleurs = await clientStdio(autre, PHOTOS);
    try {
      const manque = await appeler(ailleurs, 'lancer', { outil: 'ciel', images: ['absente.jpg'] });
      expect(manque.isError).toBe(true);
      expect(texte(manque)).toBe(
        `File not found: absente.jpg (a relative path, read from this server's working directory ${PHOTOS}): there is no file at ${join(PHOTOS, 'absente.jpg')}. Give the photo's absolute path, or an https URL. Nothing was sent or charged.`,
      );
      const lancement = await appeler(ailleurs, 'lancer', { outil: 'ciel', images: ['facade-ciel-blanc_polyhaven-cambridge-a.jpg'] });
      expect(lancement.isError).toBeFalsy();
      const travail = (lancement.structuredContent as unknown as Lancement).travaux[0]!;
      expect(travail.nom).toBe('facade-ciel-blanc_polyhaven-cambridge-a.jpg');
      const fin = await appeler(ailleurs, 'attendre', { id: travail.id });
      expect((fin.structuredContent as unknown as Travail).statut).toBe('termine');
      expect(liens(fin)).toHaveLength(1);
      expect(texte(await appeler(ailleurs, 'solde'))).toBe('0 credits.');
    } finally {
      await ailleurs.close();
    }
  });

  it('merges three exposures from local files into one job with fusion, not marked as a preview', async () => {
    const dossier = mkdtempSync(join(tmpdir(), 'retouche-mcp-fusion-'));
    const chemins = await Promise.all(
      [0.25, 1, 4].map(async (gain, i) => {
        const chemin = join(dossier, `salon-${i + 1}.jpg`);
        writeFileSync(chemin, await sharp(readFileSync(PHOTO_A)).resize({ width: 400 }).linear(gain, 0).jpeg().toBuffer());
        return chemin;
      }),
    );
    const lancement = await appeler(client, 'lancer', { outil: 'fusion', images: chemins });
    expect(lancement.isError, texte(lancement)).toBeFalsy();
    const { lot, travaux, cout_total } = lancement.structuredContent as unknown as Lancement;
    expect([lot, travaux.length, cout_total]).toEqual([null, 1, 2]);
    const fin = await appeler(client, 'attendre', { id: travaux[0]!.id });
    expect(fin.structuredContent).toMatchObject({ outil: 'fusion', statut: 'termine', apercu: false });
    expect(texte(fin)).not.toContain('preview');
    rmSync(dossier, { recursive: true, force: true });
  });

  it('started without a key, answers initialize and tools/list, and each call says how to set RETOUCHE_CLE', async () => {
    const sansCle = await clientStdio(undefined);
    try {
      expect((await sansCle.listTools()).tools.map((t) => t.name).sort()).toEqual(OUTILS_MCP);
      for (const [nom, args] of [
        ['solde', {}],
        ['lancer', { outil: 'ciel', images: [PHOTO_A] }],
        ['lire', { id: '00000000-0000-4000-8000-000000000000' }],
      ] as const) {
        const refus = await appeler(sansCle, nom, args);
        expect(refus.isError, nom).toBe(true);
        expect(texte(refus), nom).toMatch(/^No API key: .*RETOUCHE_CLE/);
      }
      // The public catalogue still answers, and says it too.
      const catalogue = await appeler(sansCle, 'outils');
      expect(catalogue.isError).toBeFalsy();
      expect(texte(catalogue)).toMatch(/^vider — /m);
      expect(texte(catalogue)).toContain('RETOUCHE_CLE');
    } finally {
      await sansCle.close();
    }
  });

  it('a 429 is waited out for its Retry-After: the tool call still answers', async () => {
    const { cle: autre } = await pile.creerCompte(5);
    const client429 = await clientStdio(autre);
    // One second before a minute ends, held there while the key spends its 120 requests.
    const minute = Math.floor(Date.now() / 60_000) * 60_000 + 60_000;
    horloge = () => minute - 1_000;
    try {
      const reponses = await Promise.all(Array.from({ length: 120 }, () => fetch(`${pile.urlBase}/solde`, { headers: entetesCle(autre) })));
      expect(reponses.map((r) => r.status)).toEqual(Array(120).fill(200));
      const refus = await fetch(`${pile.urlBase}/solde`, { headers: entetesCle(autre) });
      expect(refus.status).toBe(429);
      // The stack's time runs again: the next minute comes a second later, when the server retries.
      const depuis = Date.now();
      horloge = () => minute - 1_000 + (Date.now() - depuis);
      const debut = Date.now();
      const solde = await appeler(client429, 'solde');
      expect(solde.isError).toBeFalsy();
      expect(texte(solde)).toBe('5 credits.');
      expect(Date.now() - debut).toBeGreaterThanOrEqual(500);
    } finally {
      horloge = () => Date.now();
      await client429.close();
    }
  });
});

describe('/api/v1/mcp (Streamable HTTP)', () => {
  it('refuses a request without a key, or with an unknown one, with a 401', async () => {
    const sans = await fetch(`${pile.urlBase}/mcp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(sans.status).toBe(401);
    expect(sans.headers.get('www-authenticate')).toBe('Bearer');
    await expect(clientDistant('rtch_pas-une-vraie-cle')).rejects.toThrow(/Invalid or revoked API key/);
  });

  it('writes a listing with annonce, its text in the answer, source mcp; then erases it', async () => {
    const { cle } = await pile.creerCompte(10);
    const client = await clientDistant(cle);
    try {
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(OUTILS_MCP);
      const lancement = await appeler(client, 'lancer', {
        outil: 'annonce',
        reglages: { lieu: 'Lyon 6e, près du parc de la Tête d’Or', infos: '3 pièces, 72 m², 2e étage', langue: 'French' },
      });
      expect(lancement.isError).toBeFalsy();
      const id = (lancement.structuredContent as unknown as Lancement).travaux[0]!.id;
      let fin = await appeler(client, 'attendre', { id });
      // One call waits 15 s at most: a slow job is still running, and says to call again.
      if ((fin.structuredContent as unknown as Travail).statut !== 'termine') fin = await appeler(client, 'attendre', { id });
      const travail = fin.structuredContent as unknown as Travail;
      expect(travail).toMatchObject({ statut: 'termine', source: 'mcp', outil: 'annonce' });
      expect(travail.texte).toContain('Lyon');
      expect(texte(fin)).toContain(`Listing text (Markdown):\n\n${travail.texte}`);
      expect(texte(await appeler(client, 'solde'))).toBe('7 credits.');
      expect(texte(await appeler(client, 'effacer', { id }))).toContain(`Erased job ${id}`);
      expect(texte(await appeler(client, 'travaux'))).toBe('No job yet.');
    } finally {
      await client.close();
    }
  });

  it('takes https URLs only: a path on the assistant’s computer is a tool error saying to use the local server', async () => {
    const { cle } = await pile.creerCompte(10);
    const client = await clientDistant(cle);
    try {
      const refus = await appeler(client, 'lancer', { outil: 'ciel', images: [PHOTO_A] });
      expect(refus.isError).toBe(true);
      expect(texte(refus)).toContain('npx retouche mcp');
      // A URL the API refuses (not https): its own message, as a tool error, nothing charged.
      const http = await appeler(client, 'lancer', { outil: 'ciel', images: ['http://example.com/a.jpg'] });
      expect(http.isError).toBe(true);
      expect(texte(await appeler(client, 'solde'))).toBe('10 credits.');
    } finally {
      await client.close();
    }
  });

  it('takes a photo from the assistant’s computer: televerser gives a PUT URL, lancer takes the upload id; the result is a resource_link and an image', async () => {
    const { cle } = await pile.creerCompte(2);
    const client = await clientDistant(cle);
    try {
      const octets = readFileSync(PHOTO_A);
      const annonce = await appeler(client, 'televerser', { fichiers: [{ nom: 'facade.jpg', type: 'image/jpeg', taille: octets.byteLength }] });
      expect(annonce.isError).toBeFalsy();
      const [televersement] = (annonce.structuredContent as unknown as { televersements: Televersement[] }).televersements;
      expect(texte(annonce)).toContain(`upload ${televersement!.id}. PUT the file (exactly ${octets.byteLength} bytes)`);
      const put = await fetch(televersement!.url, { method: 'PUT', headers: televersement!.entetes, body: octets });
      expect(put.status).toBe(200);
      const lancement = await appeler(client, 'lancer', { outil: 'ciel', televersements: [televersement!.id] });
      expect(lancement.isError).toBeFalsy();
      const id = (lancement.structuredContent as unknown as Lancement).travaux[0]!.id;
      let fin = await appeler(client, 'attendre', { id });
      if ((fin.structuredContent as unknown as Travail).statut !== 'termine') fin = await appeler(client, 'attendre', { id });
      const travail = fin.structuredContent as unknown as Travail;
      expect(travail).toMatchObject({ statut: 'termine', nom: 'facade.jpg', source: 'mcp' });
      expect(liens(fin)).toEqual([expect.objectContaining({ type: 'resource_link', uri: travail.resultats[0]!.url_affichage, mimeType: 'image/jpeg' })]);
      expect(images(fin)).toHaveLength(1);
      expect(images(fin).map((i) => i.data)).toEqual(await imagesAttendues([travail]));
      // Read again: the same, with fresh links.
      expect(liens(await appeler(client, 'lire', { id }))).toHaveLength(1);
      expect(texte(await appeler(client, 'solde'))).toBe('0 credits.');
    } finally {
      await client.close();
    }
  });

  it('says each transport’s bound on attendre', async () => {
    const { cle } = await pile.creerCompte(1);
    const distant = await clientDistant(cle);
    const local = await clientStdio(cle);
    try {
      const attendre = async (c: Client) => (await c.listTools()).tools.find((t) => t.name === 'attendre')!;
      expect((await attendre(distant)).description).toContain('at most 15 seconds in one call');
      expect((await attendre(local)).description).toContain('at most 50 seconds in one call');
    } finally {
      await distant.close();
      await local.close();
    }
  });

  it('answers GET with a 405: the server is stateless, with no stream to open', async () => {
    const { cle } = await pile.creerCompte(1);
    const reponse = await fetch(`${pile.urlBase}/mcp`, { headers: { ...entetesCle(cle), Accept: 'text/event-stream' } });
    expect(reponse.status).toBe(405);
    expect(reponse.headers.get('allow')).toBe('POST');
  });
});

describe('Retouche-Source on POST /travaux', () => {
  it('mcp marks the jobs; web cannot be claimed (400, nothing charged)', async () => {
    const { cle } = await pile.creerCompte(3);
    const poster = (source: string) =>
      fetch(`${pile.urlBase}/travaux`, {
        method: 'POST',
        headers: { ...entetesCle(cle), 'Content-Type': 'application/json', 'Retouche-Source': source },
        body: JSON.stringify({ outil: 'annonce', valeurs: { lieu: 'Nantes' } }),
      });
    const web = await poster('web');
    expect(web.status).toBe(400);
    expect(await web.json()).toMatchObject({ error: { code: 'invalid_parameter', parametre: 'Retouche-Source' } });
    const mcp = await poster('MCP');
    expect(mcp.status).toBe(202);
    expect(((await mcp.json()) as Lancement).travaux[0]!.source).toBe('mcp');
    expect(await api(cle, '/solde')).toEqual({ credits: 0 });
  });
});
