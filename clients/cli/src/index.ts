/**
 * `retouche`: the command line of the Retouche API, on the TypeScript SDK (clients/sdk). It lists the
 * tools, reads the balance and the latest jobs, starts a job or a batch, waits for it with progress on
 * stderr and writes the result files beside each other, one per input, named after it. `retouche webhooks`
 * manages the account's webhooks (our extension): list, add (its secret printed this once), remove,
 * rotate the secret, send a test event, read and resend deliveries.
 *
 * Exit status: 0 when every job ended `termine`; 1 when one failed (it was refunded: the message says so);
 * 2 for bad usage or an API error (its `error.code` and message are printed); 130 after a Ctrl-C, which
 * loses nothing since the jobs run on the server (`retouche suivre <id>` picks them up).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import cliProgress from 'cli-progress';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import {
  ErreurRetouche,
  estLot,
  Retouche,
  type DemandeLancement,
  type DetailProgression,
  type EvenementAbonnable,
  type Lancement,
  type Livraison,
  type Lot,
  type Travail,
  type Webhook,
  type WebhookAvecSecret,
} from '../../sdk/src/index';

export const API_PAR_DEFAUT = 'http://localhost:3000/api/v1';

/** Exit statuses, one meaning each, so that scripts can tell a failed photo from a broken call. */
export const SORTIE = { ok: 0, echec: 1, usage: 2, interruption: 130 } as const;

/** What the command writes to: the real streams, or a test's. */
export interface Flux {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

/** Thrown by a Ctrl-C: it carries the id to pick up, so that the message can name it. */
class Interruption extends Error {
  constructor(readonly id: string | undefined) {
    super('interrupted');
  }
}

/** Bad usage found by the command itself (not by commander nor the API): exit 2, like commander's own. */
class ErreurUsage extends Error {}

interface OptionsGlobales {
  api?: string;
  cle?: string;
}

interface OptionsAttente {
  sortie: string;
  json?: boolean;
}

export const main = async (argv: string[], flux: Flux = { stdout: process.stdout, stderr: process.stderr }, env = process.env): Promise<number> => {
  const message = (texte: string) => flux.stderr.write(`${texte}\n`);
  // One controller for the whole run: a Ctrl-C aborts whatever is in flight (a poll, an upload, a download).
  const arret = new AbortController();
  // The id a Ctrl-C should name: unknown until the job or batch is started (or found).
  let enCours: string | undefined;
  const surSigint = () => {
    // A second Ctrl-C is the user's insistence: whatever still hangs (a slow download), leave now.
    if (arret.signal.aborted) process.exit(SORTIE.interruption);
    arret.abort(new Interruption(enCours));
  };
  process.on('SIGINT', surSigint);

  const client = (options: OptionsGlobales, source?: 'mcp') => {
    const cle = options.cle ?? env['RETOUCHE_CLE'];
    if (!cle) throw new ErreurUsage('No API key: set RETOUCHE_CLE or pass --cle rtch_…');
    let base = options.api ?? env['RETOUCHE_API'] ?? API_PAR_DEFAUT;
    try {
      base = new URL(base).href;
    } catch {
      throw new ErreurUsage(`Not a URL: --api ${base}`);
    }
    return new Retouche({ base, cle, ...(source ? { source } : {}) });
  };
  const json = (valeur: unknown) => flux.stdout.write(`${JSON.stringify(valeur, null, 2)}\n`);

  let statut: number = SORTIE.ok;
  const programme = new Command('retouche')
    .description('Retouche API from the command line: property photo retouching and listing texts.')
    .addOption(new Option('--api <url>', `the API's base URL (env RETOUCHE_API, default ${API_PAR_DEFAUT})`))
    .addOption(new Option('--cle <cle>', 'the API key, rtch_… (env RETOUCHE_CLE)'))
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: (t) => flux.stdout.write(t), writeErr: (t) => flux.stderr.write(t) });

  programme
    .command('outils')
    .description('the tools this stage offers, their cost and settings')
    .option('--json', 'print the answer as JSON on stdout')
    .action(async (options: { json?: boolean }, commande: Command) => {
      const catalogue = await client(commande.optsWithGlobals<OptionsGlobales>()).catalogue({ signal: arret.signal });
      if (options.json) return void json(catalogue);
      const { outils } = catalogue;
      if (catalogue.apercu) message('This stage runs the preview engine (no trained model): results are marked "Preview".');
      for (const outil of outils) {
        const champs = outil.champs.map((c) => `${c.nom}${c.requis ? '*' : ''}${c.valeurs ? `=${c.valeurs.join('|')}` : ''}`).join(' ');
        flux.stdout.write(
          `${outil.id.padEnd(11)} ${String(outil.cout).padStart(2)} credits  ${outil.resume}${champs ? `\n${' '.repeat(24)}settings: ${champs}` : ''}\n`,
        );
      }
    });

  programme
    .command('solde')
    .description("the account's balance in credits")
    .option('--json', 'print the answer as JSON on stdout')
    .action(async (options: { json?: boolean }, commande: Command) => {
      const solde = await client(commande.optsWithGlobals<OptionsGlobales>()).solde({ signal: arret.signal });
      if (options.json) json(solde);
      else flux.stdout.write(`${solde.credits} credits\n`);
    });

  programme
    .command('travaux')
    .description("the account's latest jobs, newest first")
    .option('--limite <n>', 'how many, 1 to 100 (default 20)', entier)
    .option('--outil <outil>', 'only the jobs of this tool')
    .option('--apres <curseur>', 'the next page: the cursor the page before named')
    .option('--json', 'print the answer as JSON on stdout')
    .action(async (options: { limite?: number; outil?: string; apres?: string; json?: boolean }, commande: Command) => {
      const parametres = {
        ...(options.limite === undefined ? {} : { limite: options.limite }),
        ...(options.outil === undefined ? {} : { outil: options.outil as Travail['outil'] }),
        ...(options.apres === undefined ? {} : { apres: options.apres }),
      };
      const page = await client(commande.optsWithGlobals<OptionsGlobales>()).pageTravaux(parametres, { signal: arret.signal });
      if (options.json) return void json(page);
      for (const t of page.travaux)
        flux.stdout.write(`${t.id}  ${t.outil.padEnd(10)} ${t.statut.padEnd(10)} ${t.cree_le}  ${t.nom ?? ''}${t.apercu ? '  (preview)' : ''}\n`);
      if (page.suivant) message(`More: retouche travaux${options.limite ? ` --limite ${options.limite}` : ''} --apres ${page.suivant}`);
    });

  programme
    .command('lancer')
    .description('start a job, or a batch for several images of an image tool (files, or https URLs)')
    .argument('<outil>', 'the tool: vider, staging, renovation, saison, ciel, annonce')
    .argument('[images...]', 'photos: file paths or https URLs (optional for annonce)')
    .option('--reglage <nom=valeur>', 'a setting of the tool, e.g. style=japandi (repeatable)', reglage, {} as Record<string, string>)
    .option('--attendre', 'wait for the end, with progress on stderr, and write the results')
    .option('--sortie <dossier>', 'where results are written (with --attendre)', '.')
    .option('--json', 'print the final job or batch (or the launch, without --attendre) as JSON on stdout')
    .action(async (outil: string, images: string[], options: OptionsAttente & { reglage: Record<string, string>; attendre?: boolean }, commande: Command) => {
      const retouche = client(commande.optsWithGlobals<OptionsGlobales>());
      const demande = {
        outil,
        ...(Object.keys(options.reglage).length ? { valeurs: options.reglage } : {}),
        ...(images.length || outil !== 'annonce' ? { images } : {}),
      } as unknown as DemandeLancement;
      const progres = new Progres(flux.stderr);
      let lancement: Lancement;
      try {
        lancement = await retouche.lancer(demande, {
          signal: arret.signal,
          ...(options.attendre ? { progression: (envoye: number, total: number, detail: DetailProgression) => progres.octets(envoye, total, detail) } : {}),
        });
      } finally {
        progres.arreter();
      }
      for (const echec of lancement.echecs) message(`Image ${echec.index} was not started (not charged): ${echec.code}: ${echec.message}`);
      const id = lancement.lot ?? lancement.travaux[0]?.id;
      if (id === undefined) throw new ErreurUsage('The API started no job.');
      enCours = id;
      message(`Started ${lancement.lot ? `batch ${id} (${lancement.travaux.length} jobs)` : `job ${id}`} for ${lancement.cout_total} credits.`);
      if (!options.attendre) {
        if (options.json) json(lancement);
        else flux.stdout.write(`${id}\n`);
        message(`Follow it with: retouche suivre ${id}`);
        statut = lancement.echecs.length ? SORTIE.echec : SORTIE.ok;
        return;
      }
      const connu: Travail | Lot = lancement.lot ? await retouche.lot(lancement.lot, { signal: arret.signal }) : lancement.travaux[0]!;
      statut = await attendreEtEcrire(retouche, connu, options);
      if (lancement.echecs.length) statut = SORTIE.echec;
    });

  programme
    .command('suivre')
    .description('wait for an existing job or batch and write its results')
    .argument('<id>', 'a job or batch id')
    .option('--sortie <dossier>', 'where results are written', '.')
    .option('--json', 'print the final job or batch as JSON on stdout')
    .action(async (id: string, options: OptionsAttente, commande: Command) => {
      const retouche = client(commande.optsWithGlobals<OptionsGlobales>());
      statut = await attendreEtEcrire(retouche, await retouche.lire(id, { signal: arret.signal }), options);
    });

  programme
    .command('mcp')
    .description('serve Retouche to an AI assistant over MCP on stdin/stdout (its jobs say source "mcp")')
    .action(async (_options: unknown, commande: Command) => {
      const globales = commande.optsWithGlobals<OptionsGlobales>();
      // Without a key the server still starts (an assistant lists its tools), and each call says how to set one.
      const sansCle = !(globales.cle ?? env['RETOUCHE_CLE']);
      const retouche = client(sansCle ? { ...globales, cle: 'rtch_absente' } : globales, 'mcp');
      const cleManquante = sansCle
        ? 'No API key: this Retouche server was started without RETOUCHE_CLE. Set it in the assistant\'s configuration of the server, e.g. "env": {"RETOUCHE_CLE": "rtch_…"} in claude_desktop_config.json, or `claude mcp add retouche -e RETOUCHE_CLE=rtch_… -- npx retouche mcp`, then restart the server. A key comes from the web site\'s API page or the operator.'
        : undefined;
      // Loaded here only: the other commands do not pay for the MCP SDK.
      const { servirStdio } = await import('../../mcp/src/stdio');
      message(
        `Retouche MCP server on stdio, for ${retouche.base}.${sansCle ? ' No API key (RETOUCHE_CLE): tool calls will say how to set one.' : ''} Stop it with Ctrl-C.`,
      );
      await servirStdio(retouche, arret.signal, cleManquante);
    });

  // ——— Webhooks (our extension) ———
  const webhooks = programme
    .command('webhooks')
    .description("the account's webhooks: list them (the default), add, remove, rotate a secret, test, read and resend deliveries")
    .showHelpAfterError();

  webhooks
    .command('lister', { isDefault: true })
    .description("the account's webhooks, oldest first (never a secret)")
    .option('--json', 'print the answer as JSON on stdout')
    .action(async (options: { json?: boolean }, commande: Command) => {
      const liste = await client(commande.optsWithGlobals<OptionsGlobales>()).webhooks({ signal: arret.signal });
      if (options.json) return void json({ webhooks: liste });
      for (const w of liste) flux.stdout.write(ligneWebhook(w));
      if (!liste.length) message('No webhook yet: add one with retouche webhooks ajouter <https URL>');
    });

  webhooks
    .command('ajouter')
    .description('add a webhook: its signing secret is printed this once')
    .argument('<url>', 'the https URL that receives the deliveries')
    .option('--evenements <liste>', `the events it receives, comma-separated (default ${EVENEMENTS.join(',')})`, liste)
    .option('--json', 'print the webhook, its secret included, as JSON on stdout')
    .action(async (url: string, options: { evenements?: string[]; json?: boolean }, commande: Command) => {
      const evenements = (options.evenements ?? EVENEMENTS) as EvenementAbonnable[];
      const w = await client(commande.optsWithGlobals<OptionsGlobales>()).creerWebhook({ url, evenements }, { signal: arret.signal });
      message(`Added webhook ${w.id}: ${w.evenements.join(', ')} to ${w.url}`);
      montrerSecret(w, options.json);
    });

  webhooks
    .command('supprimer')
    .description('remove a webhook (its pending deliveries are dropped)')
    .argument('<id>', 'the webhook, wh_…')
    .action(async (id: string, _options: unknown, commande: Command) => {
      await client(commande.optsWithGlobals<OptionsGlobales>()).supprimerWebhook(id, { signal: arret.signal });
      message(`Removed webhook ${id}.`);
    });

  webhooks
    .command('secret')
    .description("rotate a webhook's secret: the new one is printed this once; the previous one signs too for 24 hours")
    .argument('<id>', 'the webhook, wh_…')
    .option('--json', 'print the webhook, its new secret included, as JSON on stdout')
    .action(async (id: string, options: { json?: boolean }, commande: Command) => {
      const w = await client(commande.optsWithGlobals<OptionsGlobales>()).tournerSecretWebhook(id, { signal: arret.signal });
      message(`New secret for webhook ${w.id}. Deliveries are signed with the previous one too for 24 hours: switch your receiver within that time.`);
      montrerSecret(w, options.json);
    });

  webhooks
    .command('tester')
    .description('send a webhook.test event to a webhook, whatever events it receives')
    .argument('<id>', 'the webhook, wh_…')
    .option('--json', 'print the delivery as JSON on stdout')
    .action(async (id: string, options: { json?: boolean }, commande: Command) => {
      const livraison = await client(commande.optsWithGlobals<OptionsGlobales>()).testerWebhook(id, { signal: arret.signal });
      if (options.json) json(livraison);
      else
        flux.stdout.write(`${livraison.id}
`);
      message(`Test event queued for ${id}: delivery ${livraison.id}, ${livraison.statut}. See how it went with: retouche webhooks livraisons ${id}`);
    });

  webhooks
    .command('livraisons')
    .description("a webhook's 50 newest deliveries, newest first, with their attempts")
    .argument('<id>', 'the webhook, wh_…')
    .option('--json', 'print the answer as JSON on stdout')
    .action(async (id: string, options: { json?: boolean }, commande: Command) => {
      const livraisons = await client(commande.optsWithGlobals<OptionsGlobales>()).livraisons(id, { signal: arret.signal });
      if (options.json) return void json({ livraisons });
      for (const l of livraisons) flux.stdout.write(ligneLivraison(l));
      if (!livraisons.length) message(`No delivery to ${id} yet.`);
      else if (livraisons.some((l) => l.statut === 'en_echec')) message(`Resend a failed one with: retouche webhooks renvoyer ${id} <delivery>`);
    });

  webhooks
    .command('renvoyer')
    .description('send a failed delivery (en_echec) again, with the same webhook-id')
    .argument('<id>', 'the webhook, wh_…')
    .argument('<livraison>', 'the delivery, msg_…')
    .option('--json', 'print the delivery as JSON on stdout')
    .action(async (id: string, livraison: string, options: { json?: boolean }, commande: Command) => {
      const l = await client(commande.optsWithGlobals<OptionsGlobales>()).renvoyerLivraison(id, livraison, { signal: arret.signal });
      if (options.json) json(l);
      message(`Delivery ${l.id} is due again (${l.statut}). See how it went with: retouche webhooks livraisons ${id}`);
    });

  /** A secret the API shows this once: on stdout (alone, or in the JSON), and a warning on stderr. */
  const montrerSecret = (w: WebhookAvecSecret, enJson?: boolean) => {
    if (enJson) json(w);
    else flux.stdout.write(`webhook  ${w.id}\nsecret   ${w.secret}\n`);
    message(`Keep this secret now, where your receiver reads it: it will not be shown again. Lost, make a new one with: retouche webhooks secret ${w.id}`);
  };

  /** The wait with its progress, then the result files; returns the exit status. */
  const attendreEtEcrire = async (retouche: Retouche, connu: Travail | Lot, options: OptionsAttente): Promise<number> => {
    const progres = new Progres(flux.stderr);
    // From here a Ctrl-C names the id to pick up again.
    enCours = connu.id;
    let fin: Travail | Lot;
    try {
      fin = await retouche.attendre(connu as Lot, {
        signal: arret.signal,
        surEtat: (etat) => (estLot(etat) ? progres.lot(etat) : progres.travail(etat)),
      });
    } finally {
      progres.arreter();
    }
    const travaux = estLot(fin) ? fin.travaux : [fin];
    await mkdir(options.sortie, { recursive: true });
    const pris = new Set<string>();
    let echecs = 0;
    for (const t of travaux) {
      if (t.statut !== 'termine') {
        echecs++;
        // The API's messages end with their own full stop.
        const cause = (t.erreur ? `${t.erreur.code}: ${t.erreur.message}` : t.statut).replace(/\.?$/, '.');
        message(`Job ${t.id}${t.nom ? ` (${t.nom})` : ''} failed: ${cause}${t.rembourse ? ` Its ${t.cout} credits were refunded.` : ''}`);
        continue;
      }
      // A preview is said beside its file, so that nobody takes it for the production engine's work.
      for (const chemin of await ecrireResultats(retouche, t, options.sortie, pris, arret.signal)) message(`Saved ${chemin}${t.apercu ? APERCU : ''}`);
    }
    if (options.json) json(fin);
    return echecs ? SORTIE.echec : SORTIE.ok;
  };

  try {
    await programme.parseAsync(argv, { from: 'user' });
    return statut;
  } catch (erreur) {
    const cause = arret.signal.aborted ? arret.signal.reason : erreur;
    if (cause instanceof Interruption) {
      message(
        cause.id
          ? `\nInterrupted. Nothing is lost: the work goes on on the server. Pick it up with: retouche suivre ${cause.id}`
          : '\nInterrupted before the job was started or known; `retouche travaux` lists what was started.',
      );
      return SORTIE.interruption;
    }
    if (erreur instanceof CommanderError) {
      // Help and version are no error; anything else commander refuses is bad usage.
      return erreur.exitCode === 0 ? SORTIE.ok : SORTIE.usage;
    }
    if (erreur instanceof ErreurRetouche) {
      message(`Error ${erreur.code}${erreur.statut ? ` (HTTP ${erreur.statut})` : ''}: ${erreur.message}`);
      // A single problem's detail repeats the message: only what it does not already say.
      for (const detail of erreur.details) if (!erreur.message.includes(detail.message)) message(`  ${detail.chemin}: ${detail.message}`);
      return SORTIE.usage;
    }
    if (erreur instanceof ErreurUsage) {
      message(`Error: ${erreur.message}`);
      return SORTIE.usage;
    }
    message(`Error: ${erreur instanceof Error ? erreur.message : String(erreur)}`);
    return SORTIE.usage;
  } finally {
    process.off('SIGINT', surSigint);
  }
};

/** `--limite 5`: an integer, refused by commander (exit 2) otherwise. */
const entier = (valeur: string) => {
  if (!/^\d+$/.test(valeur)) throw new InvalidArgumentError('an integer is expected.');
  return Number(valeur);
};

/** The events a webhook can receive, all by default (the API refuses any other: invalid_body). */
const EVENEMENTS: readonly EvenementAbonnable[] = ['travail.fini', 'lot.fini'];

/** `--evenements travail.fini,lot.fini`: a comma-separated list. */
const liste = (valeur: string) => {
  const elements = valeur
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (!elements.length) throw new InvalidArgumentError(`one event at least is expected, from: ${EVENEMENTS.join(', ')}.`);
  return elements;
};

const ligneWebhook = (w: Webhook) => `${w.id}  ${w.etat.padEnd(8)} ${w.evenements.join(',').padEnd(21)} ${w.url}\n`;

/** A delivery: id, event, status, attempts, the last attempt's outcome, and what it is about. */
const ligneLivraison = (l: Livraison) => {
  const derniere = l.derniere_tentative;
  const issue = !derniere ? 'not tried yet' : derniere.statut_http !== null ? `HTTP ${derniere.statut_http}` : (derniere.erreur ?? 'no answer');
  const suite = l.prochaine_tentative ? `, next ${l.prochaine_tentative}` : '';
  const sujet = l.travail ?? l.lot ?? '';
  return `${l.id}  ${l.type.padEnd(12)} ${l.statut.padEnd(10)} ${l.cree_le}  ${l.tentatives} attempt${l.tentatives === 1 ? '' : 's'}, ${issue}${suite}  ${sujet}\n`.replace(
    /\s+\n$/,
    '\n',
  );
};

/** `--reglage nom=valeur`, repeatable: gathered into the request's `valeurs`. */
const reglage = (valeur: string, avant: Record<string, string>) => {
  const egal = valeur.indexOf('=');
  if (egal <= 0) throw new InvalidArgumentError('nom=valeur is expected, e.g. langue=English.');
  return { ...avant, [valeur.slice(0, egal)]: valeur.slice(egal + 1) };
};

/**
 * The files of a job written into `dossier`, named after its input: facade.jpg gives facade-ciel.jpg;
 * an annonce gives a .md file with its text. `pris` keeps two inputs of the same name from overwriting
 * each other within a batch.
 */
const ecrireResultats = async (retouche: Retouche, travail: Travail, dossier: string, pris: Set<string>, signal: AbortSignal): Promise<string[]> => {
  const nom = travail.nom ? basename(nomDeLien(travail.nom)) : '';
  const ext = extname(nom);
  const racine = (nom ? nom.slice(0, nom.length - ext.length) : '') || travail.id.slice(0, 8);
  const unique = (fichier: string) => {
    let candidat = fichier;
    for (let n = 2; pris.has(candidat); n++) candidat = fichier.replace(/(\.[^.]*)?$/, `-${n}$1`);
    pris.add(candidat);
    return join(dossier, candidat);
  };
  if (travail.outil === 'annonce') {
    // Without a photo there is no input to name it after: plain annonce.md.
    const chemin = unique(travail.nom ? `${racine}-annonce.md` : 'annonce.md');
    await writeFile(chemin, travail.texte ?? '');
    return [chemin];
  }
  const ecrits: string[] = [];
  for (const [index, lien] of travail.resultats.entries()) {
    // The result's own extension (its link's path) wins: a tool may deliver another format than the input's.
    const extResultat = extname(new URL(lien.url).pathname) || ext || '.jpg';
    const suffixe = travail.resultats.length > 1 ? `-${index + 1}` : '';
    const chemin = unique(`${racine}-${travail.outil}${suffixe}${extResultat}`);
    ecrits.push(await retouche.telechargerResultat(travail, { index, vers: chemin, signal }));
  }
  return ecrits;
};

/** A job named by a URL keeps the URL's last segment. */
const nomDeLien = (nom: string) => {
  try {
    return /^[a-z]+:\/\//i.test(nom) ? decodeURIComponent(new URL(nom).pathname) : nom;
  } catch {
    return nom;
  }
};

/**
 * Progress on stderr: bars on a terminal (cli-progress), and a line per change otherwise, so that logs
 * and tests see the states without the control characters of a bar.
 */
export class Progres {
  #barre: cliProgress.SingleBar | undefined;
  #dernier = '';
  readonly #tty: boolean;
  constructor(private readonly flux: NodeJS.WritableStream & { isTTY?: boolean }) {
    this.#tty = flux.isTTY === true;
  }

  #ligne(texte: string) {
    if (texte === this.#dernier) return;
    this.#dernier = texte;
    if (!this.#tty) this.flux.write(`${texte}\n`);
  }

  #demarrer(format: string, total: number, charge: Record<string, unknown>) {
    if (!this.#tty) return;
    if (!this.#barre) {
      this.#barre = new cliProgress.SingleBar({ stream: this.flux, format, hideCursor: true, clearOnComplete: false }, cliProgress.Presets.shades_classic);
      this.#barre.start(total, 0, charge);
    }
  }

  /** The bytes of every file together; with several files, how many are up, and a line as each one is. */
  octets(envoye: number, total: number, detail?: DetailProgression) {
    const fichiers = detail?.fichiers ?? [];
    const finis = fichiers.filter((f) => f.envoye === f.total).length;
    const compte = fichiers.length > 1 ? ` | ${finis}/${fichiers.length} files` : '';
    this.#demarrer('Upload   [{bar}] {percentage}% | {envoye} / {total_mo}{compte}', total, { envoye: mo(0), total_mo: mo(total), compte });
    this.#barre?.update(envoye, { envoye: mo(envoye), compte });
    if (envoye === 0) this.#ligne(`Uploading ${mo(total)}${fichiers.length > 1 ? ` in ${fichiers.length} files` : ''}…`);
    const fichier = detail?.fichier;
    if (fichiers.length > 1 && fichier && fichier.envoye === fichier.total)
      this.#ligne(`  ${fichier.nom ?? `image ${fichier.index}`}: ${mo(fichier.total)} up (${finis}/${fichiers.length})`);
    if (envoye === total && total > 0) this.#ligne(`Uploaded ${mo(total)}.`);
  }

  lot(lot: Lot) {
    this.#demarrer('Batch    [{bar}] {value}/{total} | {termines} done, {echecs} failed, {en_cours} running', lot.total, lot);
    this.#barre?.update(lot.termines + lot.echecs, { termines: lot.termines, echecs: lot.echecs, en_cours: lot.en_cours });
    this.#ligne(`Batch ${lot.id}: ${lot.statut}, ${lot.termines} done, ${lot.echecs} failed, ${lot.en_cours} running of ${lot.total}`);
  }

  travail(travail: Travail) {
    // A job has no measurable progress: its state is the bar's label, full once it has ended.
    this.#demarrer('Job      [{bar}] {statut}', 1, { statut: travail.statut });
    this.#barre?.update(travail.statut === 'termine' || travail.statut === 'echec' ? 1 : 0, { statut: travail.statut });
    this.#ligne(`Job ${travail.id}: ${travail.statut}${travail.test ? ' (test: free, preview engine)' : travail.apercu ? ' (preview engine)' : ''}`);
  }

  arreter() {
    this.#barre?.stop();
    this.#barre = undefined;
  }
}

/** What a preview's result line adds (the image itself carries the mark: docs/engines.md). */
const APERCU = ' (preview engine, no trained model: marked "Preview")';

const mo = (octets: number) => `${(octets / 1_048_576).toFixed(1)} MB`;
