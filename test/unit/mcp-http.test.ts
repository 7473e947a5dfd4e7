/**
 * The stage's MCP server answers the usual messages without the official SDK (clients/mcp/src/http.ts) and
 * leaves the others to it (http-sdk.ts). Each message here is sent both ways, with the same tools over the
 * same stand-in API client, and the answers must be the same to the byte: status, headers, body. The first
 * list must be answered directly (else the cold start loads the SDK for nothing), the second by the SDK.
 */
import { SUPPORTED_PROTOCOL_VERSIONS, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { repondreAvecLeSdk } from '../../clients/mcp/src/http-sdk';
import { repondreDirectement, repondreHttp, VERSIONS_PROTOCOLE, type RequeteHttpMcp } from '../../clients/mcp/src/http';
import { IMAGE_OCTETS_MAX, type OptionsServeurMcp } from '../../clients/mcp/src/serveur';
import { ErreurRetouche, type Lot, type Retouche, type Travail } from '../../clients/sdk/src/index';

const ID_TRAVAIL = '0b0c2d5e-8f1a-4c3b-9d2e-1a2b3c4d5e6f';
const ID_LOT = '7c6b5a49-3827-4165-8f4e-3d2c1b0a9f8e';
const ID_INCONNU = '00000000-0000-4000-8000-000000000000';
const ID_EN_COURS = '11111111-2222-4333-8444-555555555555';

const travail = (statut: Travail['statut'], autres: Partial<Travail> = {}) =>
  ({
    id: ID_TRAVAIL,
    outil: 'ciel',
    nom: 'facade.jpg',
    statut,
    cout: 2,
    test: false,
    apercu: true,
    rembourse: statut === 'echec',
    erreur: statut === 'echec' ? { code: 'engine_error', message: 'The engine failed.' } : null,
    resultats:
      statut === 'termine'
        ? [
            {
              url: 'https://exemple.invalid/r.jpg',
              url_affichage: 'https://exemple.invalid/affichage/01-facade-ciel.jpg?Signature=x',
              expire_le: '2030-01-01T00:00:00Z',
            },
          ]
        : [],
    texte: null,
    source: 'mcp',
    ...autres,
  }) as unknown as Travail;

const lot = {
  id: ID_LOT,
  outil: 'ciel',
  statut: 'termine',
  termines: 1,
  echecs: 1,
  en_cours: 0,
  total: 2,
  zip: { url: 'https://exemple.invalid/lot.zip', expire_le: '2030-01-01T00:00:00Z' },
  travaux: [travail('termine'), travail('echec', { id: ID_INCONNU })],
} as unknown as Lot;

const introuvable = () => new ErreurRetouche({ statut: 404, code: 'not_found', message: 'No job or batch has this id.' });

/** The API client the tools call, answering the same to both ways. */
const retouche = {
  catalogue: async () => ({
    apercu: true,
    outils: [
      {
        id: 'staging',
        nom: 'Staging',
        cout: 5,
        resume: 'Furnishes an empty room.',
        images: { min: 1, max: 50, par_lot: true },
        champs: [
          { nom: 'style', requis: false, valeurs: ['Scandinavian', 'Industrial'], defaut: 'Scandinavian', description: 'The style.' },
          { nom: 'mention', requis: false, longueur_max: 40, description: 'A notice.' },
        ],
      },
      { id: 'annonce', nom: 'Listing', cout: 3, resume: 'Writes the text.', images: { min: 0, max: 6, par_lot: false }, champs: [] },
    ],
  }),
  solde: async () => ({ credits: 7 }),
  travaux: async (parametres: { outil?: string }) => (parametres.outil === 'annonce' ? [] : [travail('termine'), travail('echec')]),
  lancer: async (demande: { outil: string }) => {
    if (demande.outil === 'cielle') {
      throw new ErreurRetouche({
        statut: 400,
        code: 'invalid_tool',
        message: 'There is no tool "cielle".',
        erreur: { code: 'invalid_tool', message: 'There is no tool "cielle".', details: [{ chemin: 'outil', message: 'Did you mean ciel?' }] } as never,
      });
    }
    if (demande.outil === 'panne') throw new TypeError('fetch failed');
    return {
      outil: demande.outil,
      lot: null,
      cout_total: 2,
      travaux: [travail('en_attente')],
      echecs: [{ index: 1, code: 'invalid_image', message: 'Not an image.' }],
    };
  },
  lire: async (id: string) => {
    if (id === ID_LOT) return lot;
    if (id === ID_TRAVAIL) return travail('termine', { outil: 'annonce', texte: '# Lyon\n\nA flat.' });
    throw introuvable();
  },
  attendre: async (id: string, options: { surEtat?: (etat: Travail | Lot) => void }) => {
    options.surEtat?.(travail('en_cours'));
    if (id === ID_EN_COURS) throw new ErreurRetouche({ statut: 0, code: 'wait_timeout', message: 'Still running.' });
    options.surEtat?.(travail('termine'));
    return id === ID_LOT ? lot : travail('termine');
  },
  televersements: async (fichiers: { nom?: string; type: string }[]) =>
    fichiers.map((f, i) => ({
      id: `237c9ae0-e756-4c63-b55b-3be43ef2912${i}`,
      url: `https://s3.invalid/televersements/${i}?X-Amz-Signature=x`,
      methode: 'PUT',
      entetes: { 'Content-Type': f.type },
      expire_le: '2030-01-01T00:15:00Z',
      utilisable_jusqua: '2030-01-01T00:30:00Z',
    })),
  effacerTravail: async () => ({ efface: true }),
  effacerLot: async () => ({ efface: true }),
} as unknown as Retouche;

/** A JPEG's first bytes: what the stand-in reader gives for every result (its bound applied). */
const PETITE_IMAGE = Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0xff, 0xd9]);
const lus: { url: string; octetsMax: number }[] = [];
const OPTIONS: OptionsServeurMcp = {
  retouche,
  fichiersLocaux: false,
  attenteMaxS: 15,
  lireImage: async (url, octetsMax) => {
    lus.push({ url, octetsMax });
    return url.includes('/affichage/') ? { octets: PETITE_IMAGE, type: 'image/jpeg' } : undefined;
  },
};
const SANS_CLE: OptionsServeurMcp = { ...OPTIONS, cleManquante: 'No API key: set RETOUCHE_CLE.' };

const ENTETES = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

const requete = (message: unknown, entetes: Record<string, string> = ENTETES, corps?: Uint8Array): RequeteHttpMcp => ({
  methode: 'POST',
  url: 'https://mcp.invalid/api/v1/mcp',
  entetes: new Headers(entetes),
  corps: corps ?? new TextEncoder().encode(JSON.stringify(message)),
});

const appel = (id: number | string, name: string, args?: unknown, params: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, ...(args === undefined ? {} : { arguments: args }), ...params },
});
const initialisation = (protocolVersion: string, capabilities: unknown = {}, clientInfo: unknown = { name: 'essai', version: '1.0.0' }) => ({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion, capabilities, clientInfo },
});

const DIRECTES: [string, RequeteHttpMcp][] = [
  ...VERSIONS_PROTOCOLE.map((v): [string, RequeteHttpMcp] => [`initialize ${v}`, requete(initialisation(v))]),
  [
    'initialize with the capabilities clients send',
    requete(
      initialisation(
        '2025-06-18',
        { roots: { listChanged: true }, sampling: {}, elicitation: {}, experimental: { x: {} }, tasks: { list: {}, requests: {} } },
        { name: 'claude-ai', title: 'Claude', version: '0.1.0' },
      ),
    ),
  ],
  ['notifications/initialized', requete({ jsonrpc: '2.0', method: 'notifications/initialized' })],
  ['notifications/initialized with params', requete({ jsonrpc: '2.0', method: 'notifications/initialized', params: {} })],
  ['ping', requete({ jsonrpc: '2.0', id: 'p-1', method: 'ping' })],
  ['tools/list', requete({ jsonrpc: '2.0', id: 1, method: 'tools/list' })],
  ['tools/list with a cursor and _meta', requete({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { cursor: 'x', _meta: { progressToken: 3 } } })],
  [
    'tools/list with the protocol version header',
    requete({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, { ...ENTETES, 'mcp-protocol-version': '2025-06-18' }),
  ],
  [
    'tools/list, Content-Type with a charset',
    requete({ jsonrpc: '2.0', id: 4, method: 'tools/list' }, { ...ENTETES, 'content-type': 'application/json; charset=utf-8' }),
  ],
  ['outils', requete(appel(5, 'outils'))],
  ['solde', requete(appel(6, 'solde', {}))],
  ['solde, arguments it ignores', requete(appel(7, 'solde', { x: 1 }))],
  ['travaux', requete(appel(8, 'travaux', { limite: 5, outil: 'ciel' }))],
  ['travaux, none', requete(appel(9, 'travaux', { outil: 'annonce', autre: true }))],
  ['lancer', requete(appel(10, 'lancer', { outil: 'ciel', images: ['https://exemple.invalid/a.jpg'], reglages: { style: 'x' } }))],
  ['lancer, a local path on the remote server', requete(appel(11, 'lancer', { outil: 'ciel', images: ['/home/moi/a.jpg'] }))],
  ['lancer, an API error', requete(appel(12, 'lancer', { outil: 'cielle' }))],
  ['lancer, a failure that is not the API’s', requete(appel(13, 'lancer', { outil: 'panne' }))],
  ['lire, a job', requete(appel(14, 'lire', { id: ID_TRAVAIL }))],
  ['lire, a batch', requete(appel(15, 'lire', { id: ID_LOT }))],
  ['lire, not found', requete(appel(16, 'lire', { id: ID_INCONNU }))],
  ['attendre with progress asked', requete(appel(17, 'attendre', { id: ID_LOT }, { _meta: { progressToken: 'jeton' } }))],
  ['attendre, still running', requete(appel(18, 'attendre', { id: ID_EN_COURS, secondes: 2 }))],
  ['effacer, a job', requete(appel(19, 'effacer', { id: ID_TRAVAIL }))],
  ['effacer, a batch', requete(appel(20, 'effacer', { id: ID_LOT }))],
  ['lire, a batch with result images and its ZIP', requete(appel(21, 'lire', { id: ID_LOT }))],
  ['travaux, with result links', requete(appel(22, 'travaux', {}))],
  [
    'televerser',
    requete(
      appel(23, 'televerser', {
        fichiers: [
          { nom: 'facade.jpg', type: 'image/jpeg', taille: 40218 },
          { type: 'image/png', taille: 9 },
        ],
      }),
    ),
  ],
  [
    'lancer with uploads',
    requete(appel(24, 'lancer', { outil: 'ciel', televersements: ['237c9ae0-e756-4c63-b55b-3be43ef29120', '237c9ae0-e756-4c63-b55b-3be43ef29121'] })),
  ],
];

const AU_SDK: [string, RequeteHttpMcp][] = [
  ['no Accept', requete({ jsonrpc: '2.0', id: 1, method: 'ping' }, { 'content-type': 'application/json' })],
  ['another Content-Type', requete({ jsonrpc: '2.0', id: 1, method: 'ping' }, { ...ENTETES, 'content-type': 'text/plain' })],
  ['not JSON', requete(undefined, ENTETES, new TextEncoder().encode('{"jsonrpc": '))],
  ['not UTF-8', requete(undefined, ENTETES, Uint8Array.from([0x7b, 0xff, 0x7d]))],
  ['no body', { ...requete(undefined), corps: undefined }],
  ['not JSON-RPC 2.0', requete({ jsonrpc: '1.0', id: 1, method: 'ping' })],
  ['a member JSON-RPC does not have', requete({ jsonrpc: '2.0', id: 1, method: 'ping', extra: true })],
  ['an id that is no id', requete({ jsonrpc: '2.0', id: 1.5, method: 'ping' })],
  ['params that are no object', requete({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: [] })],
  ['another method', requete({ jsonrpc: '2.0', id: 1, method: 'resources/list' })],
  ['another notification', requete({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3 } })],
  ['a response', requete({ jsonrpc: '2.0', id: 1, result: {} })],
  ['an unknown protocol version', requete(initialisation('1999-01-01'))],
  ['an unsupported protocol version header', requete({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { ...ENTETES, 'mcp-protocol-version': '1999-01-01' })],
  ['capabilities the schema refuses', requete(initialisation('2025-06-18', { roots: { listChanged: 'yes' } }))],
  ['richer capabilities', requete(initialisation('2025-06-18', { elicitation: { form: { applyDefaults: true } } }))],
  ['no client name', requete(initialisation('2025-06-18', {}, { version: '1' }))],
  ['client icons', requete(initialisation('2025-06-18', {}, { name: 'x', version: '1', icons: [{ src: 'https://exemple.invalid/i.png' }] }))],
  ['a cursor that is no string', requete({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: 3 } })],
  ['a progress token that is no token', requete({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { progressToken: null } } })],
  ['a task', requete(appel(1, 'solde', {}, { task: { ttl: 1000 } }))],
  ['an unknown tool', requete(appel(1, 'inconnu', {}))],
  ['no tool name', requete({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { arguments: {} } })],
  ['arguments that are no object', requete(appel(1, 'lire', [ID_TRAVAIL]))],
  ['arguments the tool refuses', requete(appel(1, 'lire', { id: 'x' }))],
  ['arguments out of bounds', requete(appel(1, 'attendre', { id: ID_TRAVAIL, secondes: 16 }))],
  ['a missing argument', requete(appel(1, 'lancer', { images: [] }))],
  ['an upload id that is no id', requete(appel(1, 'lancer', { outil: 'ciel', televersements: ['x'] }))],
  ['a file too large to announce', requete(appel(1, 'televerser', { fichiers: [{ type: 'image/jpeg', taille: 16 * 1024 * 1024 }] }))],
  ['a body above 64 KiB', requete({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { x: 'x'.repeat(70_000) } } })],
];

describe('the MCP server over HTTP, with and without the SDK', () => {
  it('speaks the protocol versions the SDK speaks', () => {
    expect(VERSIONS_PROTOCOLE).toEqual(SUPPORTED_PROTOCOL_VERSIONS);
  });

  it.each(DIRECTES)('answers %s itself, as the SDK does', async (_cas, r) => {
    const direct = await repondreDirectement(r, OPTIONS);
    expect(direct).toBeDefined();
    expect(direct).toEqual(await repondreAvecLeSdk(r, OPTIONS));
  });

  it.each(AU_SDK)('leaves %s to the SDK', async (_cas, r) => {
    expect(await repondreDirectement(r, OPTIONS)).toBeUndefined();
    expect(await repondreHttp(r, OPTIONS)).toEqual(await repondreAvecLeSdk(r, OPTIONS));
  });

  it('lists the tools with their schemas, and refuses invalid arguments with the SDK’s message', async () => {
    const liste = JSON.parse((await repondreDirectement(DIRECTES.find(([c]) => c === 'tools/list')![1], OPTIONS))!.corps) as {
      result: { tools: { name: string; inputSchema: { required?: string[] } }[] };
    };
    expect(liste.result.tools.map((t) => t.name)).toEqual(['outils', 'solde', 'travaux', 'lancer', 'televerser', 'lire', 'attendre', 'effacer']);
    expect(liste.result.tools.find((t) => t.name === 'lancer')!.inputSchema.required).toEqual(['outil']);
    const refus = JSON.parse((await repondreHttp(requete(appel(1, 'lire', { id: 'x' })), OPTIONS)).corps) as {
      result: { isError: boolean; content: { text: string }[] };
    };
    expect(refus.result).toEqual({
      content: [{ type: 'text', text: 'MCP error -32602: Input validation error: Invalid arguments for tool lire: Invalid UUID at id' }],
      isError: true,
    });
  });

  // Issue 41, point 5: assistants see what they made.
  const resultatDirect = async (message: unknown, options = OPTIONS) =>
    (JSON.parse((await repondreDirectement(requete(message), options))!.corps) as { result: CallToolResult }).result;

  it('gives each result a resource_link to its display link, the batch’s ZIP one too, and the images small enough inline', async () => {
    lus.length = 0;
    const { content } = await resultatDirect(appel(1, 'lire', { id: ID_LOT }));
    expect(content.map((c) => c.type)).toEqual(['text', 'resource_link', 'image', 'resource_link']);
    expect(content[1]).toEqual({
      type: 'resource_link',
      uri: 'https://exemple.invalid/affichage/01-facade-ciel.jpg?Signature=x',
      name: '01-facade-ciel.jpg',
      mimeType: 'image/jpeg',
      description: `Result of job ${ID_TRAVAIL} (ciel, facade.jpg), valid until 2030-01-01T00:00:00Z`,
    });
    expect(content[2]).toEqual({ type: 'image', data: Buffer.from(PETITE_IMAGE).toString('base64'), mimeType: 'image/jpeg' });
    expect(content[3]).toMatchObject({ type: 'resource_link', uri: 'https://exemple.invalid/lot.zip', name: 'lot.zip', mimeType: 'application/zip' });
    // At most 1 MiB an image, read from the display link.
    expect(lus).toEqual([{ url: 'https://exemple.invalid/affichage/01-facade-ciel.jpg?Signature=x', octetsMax: IMAGE_OCTETS_MAX }]);
    expect(IMAGE_OCTETS_MAX).toBe(1024 * 1024);
    // A listing of jobs: links, no image read.
    lus.length = 0;
    const liste = await resultatDirect(appel(2, 'travaux', {}));
    expect(liste.content.map((c) => c.type)).toEqual(['text', 'resource_link']);
    expect(lus).toEqual([]);
  });

  it('lire on an id the API does not know says it may have been erased, and is gone for good', async () => {
    const { content, isError } = await resultatDirect(appel(1, 'lire', { id: ID_INCONNU }));
    expect(isError).toBe(true);
    expect((content[0] as { text: string }).text).toMatch(/^not_found: No job or batch .* If it was erased .* it is gone for good/);
  });

  it('televerser gives a PUT URL and an id per file, which lancer takes in televersements', async () => {
    const { content, structuredContent } = await resultatDirect(
      appel(1, 'televerser', { fichiers: [{ nom: 'facade.jpg', type: 'image/jpeg', taille: 40218 }] }),
    );
    const texte = (content[0] as { text: string }).text;
    expect(texte).toContain('upload 237c9ae0-e756-4c63-b55b-3be43ef29120. PUT the file (exactly 40218 bytes)');
    expect(texte).toContain("-H 'Content-Type: image/jpeg' 'https://s3.invalid/televersements/0?X-Amz-Signature=x'");
    expect(texte).toContain('call lancer with televersements ["237c9ae0-e756-4c63-b55b-3be43ef29120"]');
    expect(structuredContent).toMatchObject({ televersements: [{ id: '237c9ae0-e756-4c63-b55b-3be43ef29120', methode: 'PUT' }] });
    // A path on the assistant's computer: the error says to use televerser.
    const refus = await resultatDirect(appel(2, 'lancer', { outil: 'ciel', images: ['./facade.jpg'] }));
    expect((refus.content[0] as { text: string }).text).toContain('call televerser');
  });

  it('attendre says its bound on each transport', async () => {
    const liste = JSON.parse((await repondreDirectement(requete({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), OPTIONS))!.corps) as {
      result: { tools: { name: string; description: string; inputSchema: { properties: { secondes: { maximum: number } } } }[] };
    };
    const attendre = liste.result.tools.find((t) => t.name === 'attendre')!;
    expect(attendre.description).toContain('at most 15 seconds in one call');
    expect(attendre.inputSchema.properties.secondes.maximum).toBe(15);
    const encore = await resultatDirect(appel(2, 'attendre', { id: ID_EN_COURS, secondes: 2 }));
    expect((encore.content[0] as { text: string }).text).toMatch(/^Still en_cours after 2 s \(the most one attendre call waits on this server\)/);
  });

  it('without a key, answers the list and each call with how to set RETOUCHE_CLE; outils still answers', async () => {
    const solde = await resultatDirect(appel(1, 'solde', {}), SANS_CLE);
    expect(solde).toEqual({ content: [{ type: 'text', text: 'No API key: set RETOUCHE_CLE.' }], isError: true });
    const catalogue = await resultatDirect(appel(2, 'outils'), SANS_CLE);
    expect(catalogue.isError).toBeUndefined();
    expect((catalogue.content[0] as { text: string }).text).toMatch(/No API key: set RETOUCHE_CLE\.$/);
    const r = requete(appel(3, 'lancer', { outil: 'ciel' }));
    expect(await repondreDirectement(r, SANS_CLE)).toEqual(await repondreAvecLeSdk(r, SANS_CLE));
  });
});
