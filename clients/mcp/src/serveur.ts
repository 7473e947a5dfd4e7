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
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/mini';
import { ErreurRetouche, estLot, TERMINAUX_TRAVAIL, type Lot, type Outil, type Retouche, type Travail } from '../../sdk/src/index';

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
}

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
  const imagesDescription = options.fichiersLocaux
    ? 'The photos: absolute paths of image files on this computer (JPEG, PNG or WebP, up to 15 MB each), or https URLs of photos. 1 to 50 for an image tool (several make a batch, one job each); 0 to 6 for `annonce`.'
    : 'The photos: https URLs of images (JPEG, PNG or WebP, up to 15 MB each) the service can fetch. 1 to 50 for an image tool (several make a batch, one job each); 0 to 6 for `annonce`. This remote server cannot read files on your computer: for those, use the local server (`npx retouche mcp`).';
  return [
    definirOutil({
      nom: 'outils',
      title: 'List the tools',
      description:
        "The tools this Retouche stage offers: each one's id, what it does, its cost in credits per job, the photos it takes and its settings (name, whether required, allowed values, default); and whether the stage runs the preview engine.",
      annotations: { readOnlyHint: true, openWorldHint: false },
      executer: async (_args, extra) =>
        appel(async () => {
          const catalogue = await retouche.catalogue({ signal: extra.signal });
          const apercu = catalogue.apercu
            ? [
                'This stage runs the preview engine: a stand-in without a trained model, for trying the service; its results are marked "Preview" and are not production quality.',
              ]
            : [];
          return reponse([...apercu, ...catalogue.outils.map(decrireOutil)].join('\n\n'), catalogue);
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
          return reponse(travaux.length ? travaux.map((t) => decrireTravail(t)).join('\n\n') : 'No job yet.', { travaux });
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
        reglages: z
          .optional(z.record(z.string(), z.string()))
          .check(
            z.describe(
              'The tool\'s settings by name, as `outils` lists them, e.g. {"style": "Scandinavian"} for staging, {"lieu": "Lyon 6e", "langue": "English"} for annonce.',
            ),
          ),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      executer: async ({ outil, images, reglages }, extra) =>
        appel(async () => {
          if (!options.fichiersLocaux) {
            const locale = (images ?? []).find((image) => !/^https:\/\//i.test(image));
            if (locale !== undefined)
              return erreur(
                `Not an https URL: ${locale}. This remote server cannot read files on your computer; give https URLs of the photos, or use the local server (npx retouche mcp), which uploads files.`,
              );
          }
          const demande = { outil, ...(reglages && Object.keys(reglages).length ? { valeurs: reglages } : {}), ...(images ? { images } : {}) };
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
      nom: 'lire',
      title: 'Read a job or batch',
      description: "A job's or a batch's current state: its status, its result links (valid 24 hours), an annonce's listing text, a failure's cause.",
      inputSchema: { id: ID },
      annotations: { readOnlyHint: true, openWorldHint: false },
      executer: async ({ id }, extra) =>
        appel(async () => {
          const etat = await retouche.lire(id, { signal: extra.signal });
          return reponse(decrire(etat), etat);
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
            return reponse(decrire(fin), fin);
          } catch (e) {
            if (!(e instanceof ErreurRetouche) || e.code !== 'wait_timeout' || !dernier) throw e;
            await envois;
            return reponse(`Still ${dernier.statut} after ${attente} s: call attendre again with id ${id}.\n\n${decrire(dernier)}`, dernier);
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
          const etat = await retouche.lire(id, { signal: extra.signal });
          const effacement = estLot(etat)
            ? await retouche.effacerLot(id, { signal: extra.signal })
            : await retouche.effacerTravail(id, { signal: extra.signal });
          return reponse(`Erased ${estLot(etat) ? 'batch' : 'job'} ${id}: its photos, results and record are gone.`, effacement);
        }),
    }),
  ];
};

// ——— Answers ———

const reponse = (texte: string, objet: object): CallToolResult => ({
  content: [{ type: 'text', text: texte }],
  structuredContent: objet as Record<string, unknown>,
});

const erreur = (texte: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text: texte }] });

/** Every tool's body: an API error becomes a tool error with the API's code and message (and its details). */
const appel = async (fn: () => Promise<CallToolResult>): Promise<CallToolResult> => {
  try {
    return await fn();
  } catch (e) {
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
