/**
 * The single DynamoDB table: its definition (read by CDK lib/donnees.ts and by the local stack, so they
 * cannot drift), its index names, the partition-key prefix of every item kind (IAM grants writes by
 * prefix: lib/acces.ts), TTL helpers, and the generic reads the record modules share. Each item kind
 * is owned by one module of this folder, which alone builds its keys, index attributes and writes:
 *
 * | item        | pk                         | sk        | indexes                                        | module            |
 * |-------------|----------------------------|-----------|------------------------------------------------|-------------------|
 * | account     | COMPTE#<id>                | COMPTE    |                                                | comptes.ts        |
 * | API key     | CLE#<sha256 of the key>    | CLE       | gsi1: COMPTE#<id> / CLE#<created>              | comptes.ts        |
 * | web user    | UTILISATEUR#<Cognito sub>  | UTILISATEUR |                                              | utilisateurs.ts   |
 * | rate window | CADENCE#<key hash>#<minute>| CADENCE   | (expires through TTL)                          | cadences.ts       |
 * | key's use   | CADENCE#<key hash>         | UTILISATION | (the minute a key was last used)             | cadences.ts       |
 * | job         | TRAVAIL#<id>               | TRAVAIL   | gsi1: COMPTE#<id> / TRAVAIL#<created>#<id>     | travaux.ts        |
 * | (an upload's| TRAVAIL#<upload id>        | TRAVAIL   |   none: a listing job's claim on an upload     | travaux.ts        |
 * |  single use)|                            |           |   (core/domaine/televersements.ts)                     |                   |
 * |             |                            |           | gsi2: COMPTE#<id>#<outil> / <created>#<id>     |                   |
 * |             |                            |           | gsi3 (sparse, while open): OUVERT#TRAVAIL /    |                   |
 * |             |                            |           |   <created>#<id>                               |                   |
 * | batch       | LOT#<id>                   | LOT       | gsi3 (sparse, while en_cours): OUVERT#LOT / …  | lots.ts           |
 * | idempotency | IDEM#<account>#<key>       | IDEM      | (expires through TTL)                          | idempotence.ts    |
 * | upload      | TELEVERSEMENT#<id>         | TELEVERSEMENT | gsi1: COMPTE#<id> / TELEVERSEMENT#<created>#<id> | televersements.ts |
 * |             |                            |           | gsi3 (until the sweeper is done with it):      |                   |
 * |             |                            |           |   OUVERT#TELEVERSEMENT / <usable until>#<id>   |                   |
 * |             |                            |           |   (expires through TTL)                        |                   |
 * | erasure     | EFFACEMENT#<job or batch>  | EFFACEMENT| gsi3 (while pending): EFFACEMENT / <asked>#<id>| effacements.ts    |
 * | credits in  | APPORT#<id>                | APPORT    | gsi1: COMPTE#<id> / APPORT#<created>#<id>      | apports.ts        |
 * |  (a purchase, sign-up or operator's credits; a purchase's id is its Stripe Checkout Session's;      |                   |
 * |   credits taken back are recorded here too, negative: a refund, a dispute, an operator's removal)  |                   |
 * | payment     | PAIEMENT#<Stripe PaymentIntent> | PAIEMENT | (what a refund or dispute names: the purchase's | apports.ts    |
 * |             |                            |           |   account, pack credits, credits taken back)   |                   |
 * | erased job's| MOUVEMENT#<random id>      | MOUVEMENT | gsi1: COMPTE#<id> / MOUVEMENT#<date>#<id>      | mouvements.ts     |
 * |  movement   |                            |           |   (anonymous: date, tool, credits; expires     |                   |
 * |             |                            |           |   through TTL when the job would have)         |                   |
 * | webhook     | WEBHOOK#<id>               | WEBHOOK   | gsi1: COMPTE#<id> / WEBHOOK#<created>#<id>     | webhooks.ts       |
 * | delivery    | LIVRAISON#<webhook>#<msg id>| LIVRAISON| gsi1: WEBHOOK#<id> / LIVRAISON#<created>#<msg>| webhooks.ts       |
 * |             |                            |           | gsi2: LIVRAISON#<account> / <created>#<msg>    |                   |
 * |             |                            |           |   (an account's erasure finds them all, even   |                   |
 * |             |                            |           |   those of an endpoint removed before)         |                   |
 * | attempts in | CRENEAUX#<account>         | CRENEAUX  | (places as leases; expires through TTL a day   | creneaux.ts       |
 * |  flight     |                            |           |   after its last attempt)                      |                   |
 * |             |                            |           | gsi3 (while en_attente): OUVERT#LIVRAISON /    |                   |
 * |             |                            |           |   <next attempt>#<webhook>#<msg id>            |                   |
 * |             |                            |           |   (expires through TTL, 30 days)               |                   |
 */
import { BatchGetCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Dependances } from '../infra/dependances';
import { RETENTION_RESULTATS_JOURS } from '../modele/retention';

/** What a record module needs to reach the table. */
export type DepsTable = Pick<Dependances, 'ddb' | 'table'>;

export const ATTRIBUT_TTL = 'expire_a';

export const INDEX = {
  /** Everything of an account, newest first: jobs (`GET /travaux`), keys, credits added. */
  parCompte: 'gsi1',
  /** Jobs of an account for one tool, newest first (`GET /travaux?outil=`): no filtering after the limit. */
  parOutil: 'gsi2',
  /** The same index, for another item kind: every webhook delivery of an account (depots/webhooks.ts). */
  livraisonsParCompte: 'gsi2',
  /**
   * Unfinished work, oldest first: jobs `en_attente` or `en_cours`, batches `en_cours`. Sparse (the
   * attributes are removed when the work ends), so the sweeper (core/domaine/balayage.ts) reads only what is open.
   */
  ouverts: 'gsi3',
} as const;

type Index = (typeof INDEX)[keyof typeof INDEX];

export interface DefinitionTable {
  partitionKey: 'pk';
  sortKey: 'sk';
  index: readonly { nom: Index; partitionKey: string; sortKey: string }[];
  ttl: typeof ATTRIBUT_TTL;
}

export const DEFINITION_TABLE: DefinitionTable = {
  partitionKey: 'pk',
  sortKey: 'sk',
  index: [
    { nom: INDEX.parCompte, partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
    { nom: INDEX.parOutil, partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
    { nom: INDEX.ouverts, partitionKey: 'gsi3pk', sortKey: 'gsi3sk' },
  ],
  ttl: ATTRIBUT_TTL,
};

/** Every index projects all attributes, so a query never needs a second read. */
export const PROJECTION_INDEX = 'ALL' as const;

/**
 * The partition key prefix of each item kind. Every write a function's role allows names the prefixes
 * it writes (IAM `dynamodb:LeadingKeys`, lib/acces.ts), so a role that may update a job can update no
 * account, and only the web site's key routes (and an operator's admin CLI) may write a key (`cle`).
 */
export const PREFIXES_TABLE = {
  compte: 'COMPTE#',
  cle: 'CLE#',
  /** Web users (a Cognito user pool's), each linked to its account. */
  utilisateur: 'UTILISATEUR#',
  /** Rate windows: the only items authenticated GET handlers may write. */
  cadence: 'CADENCE#',
  travail: 'TRAVAIL#',
  lot: 'LOT#',
  idempotence: 'IDEM#',
  televersement: 'TELEVERSEMENT#',
  /** Erasures recorded before they are done (core/domaine/effacement/): the sweeper finishes them. */
  effacement: 'EFFACEMENT#',
  /** Credits added to an account (a purchase, the sign-up's, an operator's): its movements page reads them. */
  apport: 'APPORT#',
  /** A purchase by its Stripe PaymentIntent: how a refund or a dispute finds the credits to take back. */
  paiement: 'PAIEMENT#',
  /** An erased job's debit and refund, anonymous (depots/mouvements.ts): the movements still add up to the balance. */
  mouvement: 'MOUVEMENT#',
  /** An account's webhook endpoints (depots/webhooks.ts). */
  webhook: 'WEBHOOK#',
  /** Webhook deliveries, one per endpoint and event, kept 30 days for the delivery log. */
  livraison: 'LIVRAISON#',
  /** An account's webhook attempts in flight, as leases on places (depots/creneaux.ts): the delivery function's to write. */
  creneau: 'CRENEAUX#',
  /** The sweeper's turn (depots/tour-balayage.ts): one run at a time, without a reserved concurrency. */
  tour: 'TOUR#',
} as const;
export const PREFIXE_CADENCE = PREFIXES_TABLE.cadence;
export const PREFIXE_TELEVERSEMENT = PREFIXES_TABLE.televersement;
export const PREFIXE_EFFACEMENT = PREFIXES_TABLE.effacement;

/** Partitions of the `ouverts` index: open jobs, open batches, erasures waiting for their job or batch to end, uploads to remove. */
export const OUVERTS = {
  travaux: 'OUVERT#TRAVAIL',
  lots: 'OUVERT#LOT',
  effacements: 'EFFACEMENT',
  televersements: 'OUVERT#TELEVERSEMENT',
  livraisons: 'OUVERT#LIVRAISON',
} as const;

/** Seconds since the epoch, the unit DynamoDB's TTL reads. */
export const ttlDans = (maintenant: Date, secondes: number): number => Math.floor(maintenant.getTime() / 1000) + secondes;

export const JOURS = 24 * 3600;
/** Files are kept 90 days (spec); job and batch records live as long as their files. */
export const RETENTION_SECONDES = RETENTION_RESULTATS_JOURS * JOURS;

/**
 * Ids in one partition of the `ouverts` index whose sort key is before `avant` (oldest first), up to
 * `max` in all: what the sweeper works through (core/domaine/balayage.ts). The index is eventually consistent:
 * the caller reads each record before acting on it.
 */
export async function* idsOuverts(d: DepsTable, partition: (typeof OUVERTS)[keyof typeof OUVERTS], avant: Date, max: number): AsyncGenerator<string> {
  let depart: Record<string, unknown> | undefined;
  let lus = 0;
  do {
    const page = await d.ddb.send(
      new QueryCommand({
        TableName: d.table,
        IndexName: INDEX.ouverts,
        KeyConditionExpression: 'gsi3pk = :p AND gsi3sk < :avant',
        ExpressionAttributeValues: { ':p': partition, ':avant': avant.toISOString() },
        ProjectionExpression: 'id',
        Limit: 100,
        ExclusiveStartKey: depart,
      }),
    );
    for (const item of page.Items ?? []) {
      if (lus++ >= max) return;
      yield String(item.id);
    }
    depart = page.LastEvaluatedKey;
  } while (depart);
}

/** An account's newest items of one kind (gsi1: COMPTE#<account>, sort keys starting with `prefixe`), at most `limite`. */
export const derniersDuCompte = async (d: DepsTable, compte: string, prefixe: string, limite: number): Promise<Record<string, unknown>[]> => {
  const { Items } = await d.ddb.send(
    new QueryCommand({
      TableName: d.table,
      IndexName: INDEX.parCompte,
      KeyConditionExpression: 'gsi1pk = :pk AND begins_with(gsi1sk, :prefixe)',
      ExpressionAttributeValues: { ':pk': `${PREFIXES_TABLE.compte}${compte}`, ':prefixe': prefixe },
      ScanIndexForward: false,
      Limit: limite,
    }),
  );
  return Items ?? [];
};

/** Every item a query finds, all pages (the record module writes the query: index, key condition). */
export const toutInterroger = async <T>(d: DepsTable, requete: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>): Promise<T[]> => {
  const items: T[] = [];
  let depart: Record<string, unknown> | undefined;
  do {
    const page = await d.ddb.send(new QueryCommand({ TableName: d.table, ...requete, ExclusiveStartKey: depart }));
    items.push(...((page.Items ?? []) as T[]));
    depart = page.LastEvaluatedKey;
  } while (depart);
  return items;
};

/** Reads items by key, 100 at a time (BatchGet's most), retrying what DynamoDB leaves unprocessed. */
export const lireParCles = async <T>(d: DepsTable, aLire: readonly { pk: string; sk: string }[], projection?: string): Promise<T[]> => {
  const trouves: T[] = [];
  for (let debut = 0; debut < aLire.length; debut += 100) {
    let cles = aLire.slice(debut, debut + 100);
    for (let essai = 0; cles.length > 0; essai++) {
      if (essai > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 50 * 2 ** essai)));
      const reponse = await d.ddb.send(
        new BatchGetCommand({
          RequestItems: { [d.table]: { Keys: cles, ConsistentRead: true, ...(projection ? { ProjectionExpression: projection } : {}) } },
        }),
      );
      trouves.push(...((reponse.Responses?.[d.table] ?? []) as T[]));
      cles = (reponse.UnprocessedKeys?.[d.table]?.Keys ?? []) as typeof cles;
    }
  }
  return trouves;
};
