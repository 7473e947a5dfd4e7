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
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
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
const VERSION = '1.0.0';

const ID = z.string().uuid().describe('The id of a job or of a batch, as `lancer` or `travaux` gave it.');

export const creerServeurMcp = (options: OptionsServeurMcp): McpServer => {
  const { retouche } = options;
  const serveur = new McpServer(
    { name: NOM_SERVEUR, version: VERSION, title: 'Retouche' },
    {
      instructions:
        'Retouche retouches property photographs and writes listing texts, for credits. Call `outils` first to learn the tools, their costs and settings; ' +
        '`lancer` starts a job (or a batch, one job per photo) and answers at once; `attendre` waits for it and gives the result links (valid 24 hours) ' +
        'or the listing text. A failed job is refunded by itself. Tell the user what a job will cost before starting it.',
    },
  );

  serveur.registerTool(
    'outils',
    {
      title: 'List the tools',
      description:
        "The tools this Retouche stage offers: each one's id, what it does, its cost in credits per job, the photos it takes and its settings (name, whether required, allowed values, default); and whether the stage runs the preview engine.",
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (extra) =>
      appel(async () => {
        const catalogue = await retouche.catalogue({ signal: extra.signal });
        const apercu = catalogue.apercu
          ? [
              'This stage runs the preview engine: a stand-in without a trained model, for trying the service; its results are marked "Preview" and are not production quality.',
            ]
          : [];
        return reponse([...apercu, ...catalogue.outils.map(decrireOutil)].join('\n\n'), catalogue);
      }),
  );

  serveur.registerTool(
    'solde',
    {
      title: 'Read the balance',
      description: "The account's balance in credits.",
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (extra) =>
      appel(async () => {
        const solde = await retouche.solde({ signal: extra.signal });
        return reponse(`${solde.credits} credits.`, solde);
      }),
  );

  serveur.registerTool(
    'travaux',
    {
      title: 'List recent jobs',
      description: "The account's latest jobs, newest first, with their states and result links.",
      inputSchema: {
        limite: z.number().int().min(1).max(100).optional().describe('How many, 1 to 100 (default 20).'),
        outil: z.string().optional().describe('Only the jobs of this tool (an id from `outils`).'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ limite, outil }, extra) =>
      appel(async () => {
        const parametres = { ...(limite === undefined ? {} : { limite }), ...(outil === undefined ? {} : { outil: outil as Travail['outil'] }) };
        const travaux = await retouche.travaux(parametres, { signal: extra.signal });
        return reponse(travaux.length ? travaux.map((t) => decrireTravail(t)).join('\n\n') : 'No job yet.', { travaux });
      }),
  );

  const imagesDescription = options.fichiersLocaux
    ? 'The photos: absolute paths of image files on this computer (JPEG, PNG or WebP, up to 15 MB each), or https URLs of photos. 1 to 50 for an image tool (several make a batch, one job each); 0 to 6 for `annonce`.'
    : 'The photos: https URLs of images (JPEG, PNG or WebP, up to 15 MB each) the service can fetch. 1 to 50 for an image tool (several make a batch, one job each); 0 to 6 for `annonce`. This remote server cannot read files on your computer: for those, use the local server (`npx retouche mcp`).';
  serveur.registerTool(
    'lancer',
    {
      title: 'Start a job',
      description:
        'Starts a Retouche job and debits its credits (see `outils` for costs): one job per photo for an image tool, several photos making a batch; one job for `annonce`. ' +
        'Answers at once with the job or batch id; then call `attendre` with it. A job that fails is refunded by itself.',
      inputSchema: {
        outil: z.string().describe('The tool id, from `outils`: vider, staging, renovation, saison, ciel or annonce.'),
        images: z.array(z.string().min(1)).max(50).optional().describe(imagesDescription),
        reglages: z
          .record(z.string(), z.string())
          .optional()
          .describe(
            'The tool\'s settings by name, as `outils` lists them, e.g. {"style": "Scandinavian"} for staging, {"lieu": "Lyon 6e", "langue": "English"} for annonce.',
          ),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    async ({ outil, images, reglages }, extra) =>
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
  );

  serveur.registerTool(
    'lire',
    {
      title: 'Read a job or batch',
      description: "A job's or a batch's current state: its status, its result links (valid 24 hours), an annonce's listing text, a failure's cause.",
      inputSchema: { id: ID },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ id }, extra) =>
      appel(async () => {
        const etat = await retouche.lire(id, { signal: extra.signal });
        return reponse(decrire(etat), etat);
      }),
  );

  serveur.registerTool(
    'attendre',
    {
      title: 'Wait for a job or batch',
      description: `Waits until a job or batch has ended (at most ${options.attenteMaxS} seconds in one call), then gives its results: links to the retouched photos (valid 24 hours), a batch's ZIP, or the listing text of an annonce. If it is still running, says so: call attendre again.`,
      inputSchema: {
        id: ID,
        secondes: z
          .number()
          .int()
          .min(1)
          .max(options.attenteMaxS)
          .optional()
          .describe(`Longest wait of this call, in seconds (default and at most ${options.attenteMaxS}).`),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ id, secondes }, extra) =>
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
  );

  serveur.registerTool(
    'effacer',
    {
      title: 'Erase a job or batch',
      description:
        'Erases an ended job or batch for good: its photos, results, ZIP and record. Credits do not change. A job still running cannot be erased yet (it says so). Ask the user before erasing.',
      inputSchema: { id: ID },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ id }, extra) =>
      appel(async () => {
        const etat = await retouche.lire(id, { signal: extra.signal });
        const effacement = estLot(etat) ? await retouche.effacerLot(id, { signal: extra.signal }) : await retouche.effacerTravail(id, { signal: extra.signal });
        return reponse(`Erased ${estLot(etat) ? 'batch' : 'job'} ${id}: its photos, results and record are gone.`, effacement);
      }),
  );

  return serveur;
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
