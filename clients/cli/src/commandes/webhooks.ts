/**
 * `retouche webhooks`: the account's webhooks (our extension). Listing is the default; each other verb is
 * a subcommand of its own below, the group's own help naming them all.
 */
import { InvalidArgumentError, type Command } from 'commander';
import type { EvenementAbonnable, Livraison, Webhook, WebhookAvecSecret } from '../../../sdk/src/index';
import type { Contexte, OptionsGlobales } from '../contexte';

export const webhooks = (programme: Command, ctx: Contexte): void => {
  const groupe = programme
    .command('webhooks')
    .description("the account's webhooks: list them (the default), add, remove, rotate a secret, test, read and resend deliveries")
    .showHelpAfterError();
  for (const verbe of [lister, ajouter, supprimer, secret, tester, livraisons, renvoyer]) verbe(groupe, ctx);
};

const lister = (webhooks: Command, { flux, signal, client, json, message }: Contexte): void => {
  webhooks
    .command('lister', { isDefault: true })
    .description("the account's webhooks, oldest first (never a secret)")
    .option('--json', 'print the answer as JSON on stdout')
    .action(async (options: { json?: boolean }, commande: Command) => {
      const liste = await client(commande.optsWithGlobals<OptionsGlobales>()).webhooks({ signal });
      if (options.json) return void json({ webhooks: liste });
      for (const w of liste) flux.stdout.write(ligneWebhook(w));
      if (!liste.length) message('No webhook yet: add one with retouche webhooks ajouter <https URL>');
    });
};

const ajouter = (webhooks: Command, ctx: Contexte): void => {
  const { signal, client, message } = ctx;
  webhooks
    .command('ajouter')
    .description('add a webhook: its signing secret is printed this once')
    .argument('<url>', 'the https URL that receives the deliveries')
    .option('--evenements <liste>', `the events it receives, comma-separated (default ${EVENEMENTS.join(',')})`, liste)
    .option('--json', 'print the webhook, its secret included, as JSON on stdout')
    .action(async (url: string, options: { evenements?: string[]; json?: boolean }, commande: Command) => {
      const evenements = (options.evenements ?? EVENEMENTS) as EvenementAbonnable[];
      const w = await client(commande.optsWithGlobals<OptionsGlobales>()).creerWebhook({ url, evenements }, { signal });
      message(`Added webhook ${w.id}: ${w.evenements.join(', ')} to ${w.url}`);
      montrerSecret(ctx, w, options.json);
    });
};

const supprimer = (webhooks: Command, { signal, client, message }: Contexte): void => {
  webhooks
    .command('supprimer')
    .description('remove a webhook (its pending deliveries are dropped)')
    .argument('<id>', 'the webhook, wh_…')
    .action(async (id: string, _options: unknown, commande: Command) => {
      await client(commande.optsWithGlobals<OptionsGlobales>()).supprimerWebhook(id, { signal });
      message(`Removed webhook ${id}.`);
    });
};

const secret = (webhooks: Command, ctx: Contexte): void => {
  const { signal, client, message } = ctx;
  webhooks
    .command('secret')
    .description("rotate a webhook's secret: the new one is printed this once; the previous one signs too for 24 hours")
    .argument('<id>', 'the webhook, wh_…')
    .option('--json', 'print the webhook, its new secret included, as JSON on stdout')
    .action(async (id: string, options: { json?: boolean }, commande: Command) => {
      const w = await client(commande.optsWithGlobals<OptionsGlobales>()).tournerSecretWebhook(id, { signal });
      message(`New secret for webhook ${w.id}. Deliveries are signed with the previous one too for 24 hours: switch your receiver within that time.`);
      montrerSecret(ctx, w, options.json);
    });
};

const tester = (webhooks: Command, { flux, signal, client, json, message }: Contexte): void => {
  webhooks
    .command('tester')
    .description('send a webhook.test event to a webhook, whatever events it receives')
    .argument('<id>', 'the webhook, wh_…')
    .option('--json', 'print the delivery as JSON on stdout')
    .action(async (id: string, options: { json?: boolean }, commande: Command) => {
      const livraison = await client(commande.optsWithGlobals<OptionsGlobales>()).testerWebhook(id, { signal });
      if (options.json) json(livraison);
      else flux.stdout.write(`${livraison.id}\n`);
      message(`Test event queued for ${id}: delivery ${livraison.id}, ${livraison.statut}. See how it went with: retouche webhooks livraisons ${id}`);
    });
};

const livraisons = (webhooks: Command, { flux, signal, client, json, message }: Contexte): void => {
  webhooks
    .command('livraisons')
    .description("a webhook's 50 newest deliveries, newest first, with their attempts")
    .argument('<id>', 'the webhook, wh_…')
    .option('--json', 'print the answer as JSON on stdout')
    .action(async (id: string, options: { json?: boolean }, commande: Command) => {
      const livraisons = await client(commande.optsWithGlobals<OptionsGlobales>()).livraisons(id, { signal });
      if (options.json) return void json({ livraisons });
      for (const l of livraisons) flux.stdout.write(ligneLivraison(l));
      if (!livraisons.length) message(`No delivery to ${id} yet.`);
      else if (livraisons.some((l) => l.statut === 'en_echec')) message(`Resend a failed one with: retouche webhooks renvoyer ${id} <delivery>`);
    });
};

const renvoyer = (webhooks: Command, { signal, client, json, message }: Contexte): void => {
  webhooks
    .command('renvoyer')
    .description('send a failed delivery (en_echec) again, with the same webhook-id')
    .argument('<id>', 'the webhook, wh_…')
    .argument('<livraison>', 'the delivery, msg_…')
    .option('--json', 'print the delivery as JSON on stdout')
    .action(async (id: string, livraison: string, options: { json?: boolean }, commande: Command) => {
      const l = await client(commande.optsWithGlobals<OptionsGlobales>()).renvoyerLivraison(id, livraison, { signal });
      if (options.json) json(l);
      message(`Delivery ${l.id} is due again (${l.statut}). See how it went with: retouche webhooks livraisons ${id}`);
    });
};

/** A secret the API shows this once: on stdout (alone, or in the JSON), and a warning on stderr. */
const montrerSecret = ({ flux, json, message }: Contexte, w: WebhookAvecSecret, enJson?: boolean) => {
  if (enJson) json(w);
  else flux.stdout.write(`webhook  ${w.id}\nsecret   ${w.secret}\n`);
  message(`Keep this secret now, where your receiver reads it: it will not be shown again. Lost, make a new one with: retouche webhooks secret ${w.id}`);
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
