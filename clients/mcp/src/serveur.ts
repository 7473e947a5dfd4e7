/**
 * Retouche as an MCP server: the tools an AI assistant calls to list the tools, read the balance, start
 * a job on photos, read it, wait for it and erase it. One definition for both transports — stdio on the
 * user's machine (`npx retouche mcp`, clients/cli) and Streamable HTTP on the stage (`/api/v1/mcp`,
 * lambdas/http/mcp.ts) — on the TypeScript SDK, which calls the public API with the user's key and says
 * `Retouche-Source: mcp`, so that the jobs say where they come from and cost what they cost elsewhere.
 *
 * Answers are a short text an assistant can read out (ids, states, links, the listing text), with the
 * API's object itself as `structuredContent`. An API error is a tool error carrying the API's code and
 * message, which already say what to change.
 *
 * The tools alone, without the MCP SDK (issue 40): the official SDK's server serves them
 * (serveur-sdk.ts), and the stage's function answers the usual messages with them directly (http.ts),
 * so that its cold start does not load the SDK. Their input schemas are zod's `mini` build, imported as a
 * namespace, which the SDK reads as any zod 4 schema and of which a bundle keeps only the parts used
 * (`import { z } from 'zod'` kept the whole of zod, its error messages in 60-odd languages included: 450 KB).
 */
import { stat } from 'node:fs/promises';
import { basename, isAbsolute, resolve } from 'node:path';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/mini';
import { ErreurRetouche, estLot, TERMINAUX_TRAVAIL, type Image, type Lot, type Outil, type Retouche, type Travail } from '../../sdk/src/index';

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

/** One result image shown inline (base64 `image` content) when its file is at most this large: 1 MiB. */
export const IMAGE_OCTETS_MAX = 1024 * 1024;
/** The images inline in one answer, together, at most (later results get their link only): 2 MiB. */
export const IMAGES_OCTETS_MAX_REPONSE = 2 * 1024 * 1024;
/** The images of one answer are read within this, together: the remote answer must leave before the gateway's 29 s. */
export const DELAI_IMAGES_MS = 4_000;
/** What `televerser` announces at once, and the size of each file (the API's limits). */
const TELEVERSEMENTS_MAX = 50;
const TAILLE_FICHIER_MAX = 15 * 1024 * 1024;

/** The name assistants show for the server, and its version: the API's, whose tools it offers. */
export const NOM_SERVEUR = 'retouche';
export const VERSION_SERVEUR = '1.0.0';
export const TITRE_SERVEUR = 'Retouche';
export const INSTRUCTIONS =
  'Retouche retouches property photographs and writes listing texts, for credits. Call `outils` first to learn the tools, their costs and settings; ' +
  '`lancer` starts a job (or a batch, one job per photo) and answers at once; `attendre` waits for it and gives the result links (valid 24 hours) ' +
  'or the listing text. A failed job is refunded by itself. Tell the user what a job will cost before starting it.';

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
const definirOutil = <F extends FormeEntree>(definition: OutilMcp<F>): OutilMcp => definition as unknown as OutilMcp;

const ID = z.uuid().check(z.describe('The id of a job or of a batch, as `lancer` or `travaux` gave it.'));

/** The tools, in the order assistants list them. */
export const outilsMcp = (options: OptionsServeurMcp): OutilMcp[] => {
  const { retouche } = options;
  // Started without a key: each call says how to set one (the API would only answer 401).
  const appel = (fn: () => Promise<CallToolResult>): Promise<CallToolResult> =>
    options.cleManquante === undefined ? appelApi(fn) : Promise.resolve(erreur(options.cleManquante));
  // The jobs and batches this server erased (on stdio, the session's; over HTTP, the request's): `lire` names them.
  const effaces = new Map<string, 'job' | 'batch'>();
  const lireOuDireEfface = async (id: string, signal: AbortSignal): Promise<Travail | Lot> => {
    try {
      return await retouche.lire(id, { signal });
    } catch (e) {
      if (e instanceof ErreurRetouche && e.code === 'not_found') throw new Introuvable(id, effaces.get(id));
      throw e;
    }
  };
  /** The answer about a job or batch: its text, a link per result file (and the ZIP), and the images small enough. */
  const reponseEtat = async (texte: string, etat: Travail | Lot, signal: AbortSignal, avecImages: boolean): Promise<CallToolResult> =>
    reponse(
      texte,
      etat,
      await contenusResultats(estLot(etat) ? etat.travaux : [etat], estLot(etat) ? etat : undefined, avecImages ? options.lireImage : undefined, signal),
    );
  const imagesDescription = options.fichiersLocaux
    ? `The photos: paths of image files on this computer (JPEG, PNG or WebP, up to 15 MB each; a relative path is read from this server's working directory, ${options.dossier ?? 'where it was started'}), or https URLs of photos. 1 to 50 for an image tool (several make a batch, one job each); 0 to 6 for \`annonce\`.`
    : 'The photos: https URLs of images (JPEG, PNG or WebP, up to 15 MB each) the service can fetch. 1 to 50 for an image tool (several make a batch, one job each); 0 to 6 for `annonce`. This remote server cannot read files on your computer: upload them with `televerser` and give their ids in `televersements`, or use the local server (`npx retouche mcp`).';
  return [
    definirOutil({
      nom: 'outils',
      title: 'List the tools',
      description:
        "The tools this Retouche stage offers: each one's id, what it does, its cost in credits per job, the photos it takes and its settings (name, whether required, allowed values, default); and whether the stage runs the preview engine.",
      annotations: { readOnlyHint: true, openWorldHint: false },
      executer: async (_args, extra) =>
        // Public: answered even without a key, which it then says how to set.
        appelApi(async () => {
          const catalogue = await retouche.catalogue({ signal: extra.signal });
          const apercu = catalogue.apercu
            ? [
                'This stage runs the preview engine: a stand-in without a trained model, for trying the service; its results are marked "Preview" and are not production quality.',
              ]
            : [];
          const sansCle = options.cleManquante === undefined ? [] : [options.cleManquante];
          return reponse([...apercu, ...catalogue.outils.map(decrireOutil), ...sansCle].join('\n\n'), catalogue);
        }),
    }),

    definirOutil({
      nom: 'solde',
      title: 'Read the balance',
      description: "The account's balance in credits.",
      annotations: { readOnlyHint: true, openWorldHint: false },
      executer: async (_args, extra) =>
        appel(async () => {
          const solde = await retouche.solde({ signal: extra.signal });
          return reponse(`${solde.credits} credits.`, solde);
        }),
    }),

    definirOutil({
      nom: 'travaux',
      title: 'List recent jobs',
      description: "The account's latest jobs, newest first, with their states and result links.",
      inputSchema: {
        limite: z.optional(z.int().check(z.minimum(1), z.maximum(100))).check(z.describe('How many, 1 to 100 (default 20).')),
        outil: z.optional(z.string()).check(z.describe('Only the jobs of this tool (an id from `outils`).')),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
      executer: async ({ limite, outil }, extra) =>
        appel(async () => {
          const parametres = { ...(limite === undefined ? {} : { limite }), ...(outil === undefined ? {} : { outil: outil as Travail['outil'] }) };
          const travaux = await retouche.travaux(parametres, { signal: extra.signal });
          return reponse(
            travaux.length ? travaux.map((t) => decrireTravail(t)).join('\n\n') : 'No job yet.',
            { travaux },
            await contenusResultats(travaux, undefined, undefined, extra.signal),
          );
        }),
    }),

    definirOutil({
      nom: 'lancer',
      title: 'Start a job',
      description:
        'Starts a Retouche job and debits its credits (see `outils` for costs): one job per photo for an image tool, several photos making a batch; one job for `annonce`. ' +
        'Answers at once with the job or batch id; then call `attendre` with it. A job that fails is refunded by itself.',
      inputSchema: {
        outil: z.string().check(z.describe('The tool id, from `outils`: vider, staging, renovation, saison, ciel or annonce.')),
        images: z.optional(z.array(z.string().check(z.minLength(1))).check(z.maxLength(50))).check(z.describe(imagesDescription)),
        televersements: z
          .optional(z.array(z.uuid()).check(z.maxLength(50)))
          .check(
            z.describe(
              'Ids of uploads made with `televerser` whose files were PUT, within 30 minutes of `televerser`: each is a photo, after those of `images`.',
            ),
          ),
        reglages: z
          .optional(z.record(z.string(), z.string()))
          .check(
            z.describe(
              'The tool\'s settings by name, as `outils` lists them, e.g. {"style": "Scandinavian"} for staging, {"lieu": "Lyon 6e", "langue": "English"} for annonce.',
            ),
          ),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      executer: async ({ outil, images, televersements, reglages }, extra) =>
        appel(async () => {
          let photos: Image[] | undefined = images;
          if (!options.fichiersLocaux) {
            const locale = (images ?? []).find((image) => !/^https:\/\//i.test(image));
            if (locale !== undefined)
              return erreur(
                `Not an https URL: ${locale}. This remote server cannot read files on your computer: call televerser to get an upload URL for each file, PUT the files there, then call lancer with their ids in televersements; or use the local server (npx retouche mcp), which uploads files.`,
              );
          } else if (images) {
            const lues = await cheminsLocaux(images, options.dossier ?? process.cwd());
            if (typeof lues === 'string') return erreur(lues);
            photos = lues;
          }
          if (televersements?.length) photos = [...(photos ?? []), ...televersements.map((televersement) => ({ televersement }))];
          const demande = { outil, ...(reglages && Object.keys(reglages).length ? { valeurs: reglages } : {}), ...(photos ? { images: photos } : {}) };
          const lancement = await retouche.lancer(demande as Parameters<Retouche['lancer']>[0], { signal: extra.signal });
          const id = lancement.lot ?? lancement.travaux[0]?.id;
          const lignes = [
            lancement.lot
              ? `Started batch ${lancement.lot} (${lancement.outil}): ${lancement.travaux.length} jobs, ${lancement.cout_total} credits.`
              : `Started job ${id} (${lancement.outil}) for ${lancement.cout_total} credits.`,
            ...lancement.echecs.map((e) => `Photo ${e.index + 1} was not started, and not charged: ${e.code}: ${e.message}`),
            id ? `Call attendre with id ${id} for its results.` : 'No job was started.',
          ];
          return reponse(lignes.join('\n'), lancement);
        }),
    }),

    definirOutil({
      nom: 'televerser',
      title: 'Get upload URLs for photos',
      description:
        'For photos on the user\'s computer that this server cannot read (the remote server): announces the files (type and exact size in bytes, up to 15 MB each) and gives, for each, an upload id and a URL to PUT the file to within 15 minutes, with the headers given (e.g. curl -X PUT --upload-file photo.jpg -H "Content-Type: image/jpeg" "<url>"). ' +
        'Then call `lancer` with the ids in `televersements`, within 30 minutes. Free, but it needs a balance that pays for a job; an upload no job uses is deleted.',
      inputSchema: {
        fichiers: z
          .array(
            z.object({
              nom: z.optional(z.string().check(z.minLength(1), z.maxLength(200))).check(z.describe("The file's name, which the job and its result take.")),
              type: z.enum(['image/jpeg', 'image/png', 'image/webp']).check(z.describe("The file's type, by its content.")),
              taille: z.int().check(z.minimum(1), z.maximum(TAILLE_FICHIER_MAX), z.describe("The file's exact size in bytes.")),
            }),
          )
          .check(z.minLength(1), z.maxLength(TELEVERSEMENTS_MAX), z.describe('The files to upload, 1 to 50.')),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      executer: async ({ fichiers }, extra) =>
        appel(async () => {
          const televersements = await retouche.televersements(fichiers, { signal: extra.signal });
          const lignes = televersements.map((t, i) => {
            const entetes = Object.entries(t.entetes)
              .map(([nom, valeur]) => `-H '${nom}: ${valeur}'`)
              .join(' ');
            return `${i + 1}. ${fichiers[i]?.nom ?? `file ${i + 1}`}: upload ${t.id}. PUT the file (exactly ${fichiers[i]?.taille} bytes) before ${t.expire_le}: curl -X PUT --upload-file <file> ${entetes} '${t.url}'`;
          });
          const ids = televersements.map((t) => t.id);
          return reponse(
            [...lignes, `Then call lancer with televersements ${JSON.stringify(ids)} before ${televersements[0]?.utilisable_jusqua ?? 'they expire'}.`].join(
              '\n',
            ),
            { televersements },
          );
        }),
    }),

    definirOutil({
      nom: 'lire',
      title: 'Read a job or batch',
      description: "A job's or a batch's current state: its status, its result links (valid 24 hours), an annonce's listing text, a failure's cause.",
      inputSchema: { id: ID },
      annotations: { readOnlyHint: true, openWorldHint: false },
      executer: async ({ id }, extra) =>
        appel(async () => {
          const etat = await lireOuDireEfface(id, extra.signal);
          return reponseEtat(decrire(etat), etat, extra.signal, true);
        }),
    }),

    definirOutil({
      nom: 'attendre',
      title: 'Wait for a job or batch',
      description: `Waits until a job or batch has ended (at most ${options.attenteMaxS} seconds in one call), then gives its results: links to the retouched photos (valid 24 hours), a batch's ZIP, or the listing text of an annonce. If it is still running, says so: call attendre again.`,
      inputSchema: {
        id: ID,
        secondes: z
          .optional(z.int().check(z.minimum(1), z.maximum(options.attenteMaxS)))
          .check(z.describe(`Longest wait of this call, in seconds (default and at most ${options.attenteMaxS}).`)),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
      executer: async ({ id, secondes }, extra) =>
        appel(async () => {
          const jeton = extra._meta?.progressToken;
          // The progress a client asked for: a batch's ended jobs, or a job's 0 then 1, each time it grows
          // (MCP wants each notification's progress above the last).
          let dejaDit = -1;
          // Sent in order, and all before the answer: a client forgets a call's progress once it has its answer.
          let envois = Promise.resolve();
          const progres = (etat: Travail | Lot) => {
            if (jeton === undefined) return;
            const [fait, total] = estLot(etat) ? [etat.termines + etat.echecs, etat.total] : [TERMINAUX_TRAVAIL.includes(etat.statut) ? 1 : 0, 1];
            if (fait <= dejaDit) return;
            dejaDit = fait;
            const notification = { method: 'notifications/progress' as const, params: { progressToken: jeton, progress: fait, total, message: etat.statut } };
            envois = envois.then(() => extra.sendNotification(notification)).catch(() => undefined);
          };
          const attente = secondes ?? options.attenteMaxS;
          let dernier: Travail | Lot | undefined;
          try {
            const fin = await retouche.attendre(id, {
              delaiMaxMs: attente * 1000,
              intervalleMs: 1_000,
              signal: extra.signal,
              surEtat: (etat) => {
                dernier = etat;
                progres(etat);
              },
            });
            await envois;
            return await reponseEtat(decrire(fin), fin, extra.signal, true);
          } catch (e) {
            if (e instanceof ErreurRetouche && e.code === 'not_found') throw new Introuvable(id, effaces.get(id));
            if (!(e instanceof ErreurRetouche) || e.code !== 'wait_timeout' || !dernier) throw e;
            await envois;
            return reponseEtat(
              `Still ${dernier.statut} after ${attente} s (the most one attendre call waits on this server): call attendre again with id ${id}.\n\n${decrire(dernier)}`,
              dernier,
              extra.signal,
              true,
            );
          }
        }),
    }),

    definirOutil({
      nom: 'effacer',
      title: 'Erase a job or batch',
      description:
        'Erases an ended job or batch for good: its photos, results, ZIP and record. Credits do not change. A job still running cannot be erased yet (it says so). Ask the user before erasing.',
      inputSchema: { id: ID },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      executer: async ({ id }, extra) =>
        appel(async () => {
          const etat = await lireOuDireEfface(id, extra.signal);
          const effacement = estLot(etat)
            ? await retouche.effacerLot(id, { signal: extra.signal })
            : await retouche.effacerTravail(id, { signal: extra.signal });
          effaces.set(id, estLot(etat) ? 'batch' : 'job');
          if (estLot(etat)) for (const t of etat.travaux) effaces.set(t.id, 'job');
          return reponse(`Erased ${estLot(etat) ? 'batch' : 'job'} ${id}: its photos, results and record are gone.`, effacement);
        }),
    }),
  ];
};

// ——— Answers ———

type Contenu = CallToolResult['content'][number];

const reponse = (texte: string, objet: object, autres: Contenu[] = []): CallToolResult => ({
  content: [{ type: 'text', text: texte }, ...autres],
  structuredContent: objet as Record<string, unknown>,
});

const erreur = (texte: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text: texte }] });

/** A job or batch the API does not know (404): erased, or never this key's. */
class Introuvable extends Error {
  constructor(
    readonly id: string,
    /** What this server erased under this id, if it did. */
    readonly efface: 'job' | 'batch' | undefined,
  ) {
    super(
      efface
        ? `erased: ${efface === 'job' ? 'Job' : 'Batch'} ${id} was erased (with effacer): its photos, results and record are gone for good, and it cannot be read again.`
        : `not_found: No job or batch ${id} for this key. If it was erased (effacer, DELETE, or the end of its 90 days), it is gone for good and cannot be read again; otherwise check the id (a test key sees only test jobs).`,
    );
  }
}

/** Every tool's body: an API error becomes a tool error with the API's code and message (and its details). */
const appelApi = async (fn: () => Promise<CallToolResult>): Promise<CallToolResult> => {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof Introuvable) return erreur(e.message);
    if (e instanceof ErreurRetouche) {
      // A single problem's detail repeats the message: only what it does not already say.
      const details = e.details
        .filter((d) => !e.message.includes(d.message))
        .map((d) => `\n- ${d.chemin}: ${d.message}`)
        .join('');
      return erreur(`${e.code}: ${e.message}${details}`);
    }
    throw e;
  }
};

const TYPES_PAR_EXTENSION: Record<string, string> = { jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp', zip: 'application/zip' };

/** A link's file name (the last segment of its path) and media type by its extension. */
const fichierDuLien = (url: string): { nom: string; type: string | undefined } => {
  let nom: string;
  try {
    nom = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '') || 'result';
  } catch {
    nom = 'result';
  }
  return { nom, type: TYPES_PAR_EXTENSION[nom.split('.').pop()?.toLowerCase() ?? ''] };
};

/** A `resource_link` (MCP 2025-06-18), its keys in the order the SDK's schema gives them. */
const lienRessource = (uri: string, description: string): Contenu => {
  const { nom, type } = fichierDuLien(uri);
  return { name: nom, uri, description, ...(type ? { mimeType: type } : {}), type: 'resource_link' } as Contenu;
};

/**
 * The contents after the text of an answer about jobs: for each ended job's result file a `resource_link`
 * to its display link (`url_affichage`, else `url`), a batch's ZIP as one too, and, when `lireImage` is
 * given, each result image of at most IMAGE_OCTETS_MAX bytes inline (`image`, base64), in order, until
 * IMAGES_OCTETS_MAX_REPONSE are inline.
 */
const contenusResultats = async (travaux: Travail[], lot: Lot | undefined, lireImage: LecteurImage | undefined, signal: AbortSignal): Promise<Contenu[]> => {
  const contenus: Contenu[] = [];
  let restant = IMAGES_OCTETS_MAX_REPONSE;
  const delai = AbortSignal.any([signal, AbortSignal.timeout(DELAI_IMAGES_MS)]);
  for (const t of travaux) {
    if (t.statut !== 'termine') continue;
    for (const [i, lien] of t.resultats.entries()) {
      const uri = (lien as { url_affichage?: string }).url_affichage ?? lien.url;
      const quoi = t.resultats.length > 1 ? `Result ${i + 1}` : 'Result';
      contenus.push(lienRessource(uri, `${quoi} of job ${t.id} (${t.outil}${t.nom ? `, ${t.nom}` : ''}), valid until ${lien.expire_le}`));
      if (!lireImage || restant <= 0 || delai.aborted) continue;
      const image = await lireImage(uri, Math.min(IMAGE_OCTETS_MAX, restant), delai).catch(() => undefined);
      if (!image) continue;
      restant -= image.octets.byteLength;
      contenus.push({ type: 'image', data: Buffer.from(image.octets).toString('base64'), mimeType: image.type });
    }
  }
  if (lot?.zip) contenus.push(lienRessource(lot.zip.url, `ZIP of every result of batch ${lot.id}, valid until ${lot.zip.expire_le}`));
  return contenus;
};

/** The media type of image bytes, by their first bytes (as the service recognises them). */
const typeImage = (debut: Uint8Array): string | undefined => {
  const ascii = (de: number, a: number) => String.fromCharCode(...debut.subarray(de, a));
  if (debut[0] === 0xff && debut[1] === 0xd8 && debut[2] === 0xff) return 'image/jpeg';
  if (ascii(0, 8) === '\x89PNG\r\n\x1a\n') return 'image/png';
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp';
  return undefined;
};

/**
 * Reads a result image through `fetch`, at most `octetsMax` bytes (a larger one is let go as soon as its
 * length, announced or read, passes the bound): what both transports give as `lireImage`.
 */
export const lecteurImages =
  (lire: typeof fetch = fetch): LecteurImage =>
  async (url, octetsMax, signal) => {
    const reponse = await lire(url, { signal });
    if (!reponse.ok || !reponse.body || Number(reponse.headers.get('content-length') ?? 0) > octetsMax) {
      await reponse.body?.cancel();
      return undefined;
    }
    const morceaux: Uint8Array[] = [];
    let total = 0;
    for await (const morceau of reponse.body as unknown as AsyncIterable<Uint8Array>) {
      total += morceau.byteLength;
      if (total > octetsMax) {
        await reponse.body.cancel().catch(() => undefined);
        return undefined;
      }
      morceaux.push(morceau);
    }
    const octets = Buffer.concat(morceaux);
    const type = typeImage(octets.subarray(0, 12));
    return type ? { octets, type } : undefined;
  };

/**
 * The photos of `lancer` on stdio: each path resolved against the server's working directory and found,
 * or the text of a tool error that names the missing file as it was given and as it was looked for.
 */
const cheminsLocaux = async (images: string[], dossier: string): Promise<Image[] | string> => {
  const photos: Image[] = [];
  for (const image of images) {
    // URLs (https, file: and any other scheme) are the SDK's to read or refuse.
    if (/^[a-z][a-z\d+.-]*:/i.test(image) && !/^[a-z]:[\\/]/i.test(image)) {
      photos.push(image);
      continue;
    }
    const chemin = isAbsolute(image) ? image : resolve(dossier, image);
    const fichier = await stat(chemin).catch(() => undefined);
    if (!fichier?.isFile()) {
      const ou = isAbsolute(image) ? '' : ` (a relative path, read from this server's working directory ${dossier})`;
      return `File not found: ${image}${ou}: there is no file at ${chemin}${fichier ? ' (it is a folder)' : ''}. Give the photo's absolute path, or an https URL. Nothing was sent or charged.`;
    }
    photos.push({ chemin, nom: basename(chemin) });
  }
  return photos;
};

const decrireOutil = (outil: Outil): string => {
  const photos =
    outil.images.max === 0
      ? 'no photo'
      : `${outil.images.min} to ${outil.images.max} photos${outil.images.par_lot ? ' (one job each, a batch)' : ' (one job)'}`;
  const champs = outil.champs.map((c) => {
    const valeurs = c.valeurs ? `: ${c.valeurs.join(', ')}` : c.longueur_max ? `: free text, up to ${c.longueur_max} characters` : '';
    const defaut = c.defaut === undefined ? '' : ` (default ${c.defaut})`;
    return `  - ${c.nom}${c.requis ? ' (required)' : ''}${valeurs}${defaut}. ${c.description}`;
  });
  return [`${outil.id} — ${outil.nom}, ${outil.cout} credits per job, ${photos}: ${outil.resume}`, ...champs].join('\n');
};

const decrire = (etat: Travail | Lot): string => (estLot(etat) ? decrireLot(etat) : decrireTravail(etat));

const decrireTravail = (t: Travail, retrait = ''): string => {
  const nom = t.nom ? `, ${t.nom}` : '';
  // A preview (every test key's job, and a stage that runs the preview engine): said, so that an assistant
  // does not present its result as the production engine's.
  const test = t.test ? ' Test job: free, made by the preview engine.' : '';
  const apercu =
    t.apercu && !t.test
      ? ' Made by the preview engine, a stand-in without a trained model: not production quality; each result image is marked "Preview".'
      : '';
  const lignes = [`${retrait}Job ${t.id} (${t.outil}${nom}): ${t.statut}.${test}${apercu}`];
  if (t.statut === 'echec') {
    lignes.push(
      `${retrait}Failed: ${t.erreur ? `${t.erreur.code}: ${t.erreur.message}` : 'no cause given'}${t.rembourse ? ` Its ${t.cout} credits were refunded.` : ''}`,
    );
  }
  for (const lien of t.resultats) lignes.push(`${retrait}Result${t.apercu ? ' (preview, marked)' : ''}: ${lien.url} (valid until ${lien.expire_le})`);
  if (t.texte) lignes.push(`${retrait}Listing text (Markdown):\n\n${t.texte}`);
  return lignes.join('\n');
};

const decrireLot = (l: Lot): string =>
  [
    `Batch ${l.id} (${l.outil}): ${l.statut}, ${l.termines} done, ${l.echecs} failed, ${l.en_cours} running, of ${l.total}.`,
    ...(l.zip ? [`ZIP of every result: ${l.zip.url} (valid until ${l.zip.expire_le})`] : []),
    ...l.travaux.map((t) => decrireTravail(t, '  ')),
  ].join('\n');
