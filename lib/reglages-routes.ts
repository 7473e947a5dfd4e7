/**
 * What each route's function of the API is (lib/api.ts builds them from this table): its purpose, memory and
 * timeout, and what it may touch. Apart from the construct, so a grant is read and reviewed as a table.
 */
import { Duration } from 'aws-cdk-lib';
import { INDEX } from '../lambdas/core/depots/table';
import { ACCES_EFFACEMENT, lectureAuthentifiee, type Acces } from './acces';

/** Lambda timeout of POST /travaux, under API Gateway's 29 s (see its settings below). */
export const DELAI_TRAVAUX_CREER = Duration.seconds(20);

export interface Reglage {
  description: string;
  memoire: number;
  delai: Duration;
  acces: Acces;
  /**
   * Reads which tools the stage offers (RETOUCHE_OUTILS, when the stage withdraws some), at which prices
   * (RETOUCHE_COUTS, when the stage sets some), and which engine
   * runs them (RETOUCHE_MOTEUR: GET /outils says, and each job records, whether it is the preview).
   */
  catalogue?: boolean;
  /** Sends to the webhook delivery queue (test events, resends: lib/webhooks.ts). */
  webhooks?: boolean;
}

const rapide = (description: string, acces: Acces): Reglage => ({ description, memoire: 512, delai: Duration.seconds(10), acces });

/**
 * Per route function (lambdas/http/<fonction>.ts): what it does and what it may touch. The GET
 * routes may write their rate-window items only (`lectureAuthentifiee`), POST /televersements those,
 * its upload records and the account's count of them; POST /travaux the account it debits and the
 * jobs it creates.
 */
export const REGLAGES_ROUTES: Record<string, Reglage> = {
  outils: { ...rapide('GET /outils: the tool catalogue', {}), catalogue: true },
  openapi: rapide('GET /openapi.json: the OpenAPI document', {}),
  solde: rapide('GET /solde: the credit balance', { table: lectureAuthentifiee() }),
  'travaux-liste': rapide('GET /travaux: recent jobs', {
    table: lectureAuthentifiee(['Query'], [INDEX.parCompte, INDEX.parOutil]),
    signer: true,
  }),
  travail: rapide('GET /travaux/{id}: one job with fresh links', { table: lectureAuthentifiee(), signer: true }),
  lot: rapide('GET /lots/{id}: one batch with fresh links', { table: lectureAuthentifiee(['BatchGetItem']), signer: true }),
  // Answers with presigned S3 PUT URLs, so full-size photos never pass API Gateway (10 MB) or a
  // Lambda payload (6 MB). A presigned URL carries exactly its signer's rights: PutObject under
  // televersements/ is all the role has on S3, so a URL can write nothing else. It creates upload
  // records, and counts them on the account (the cap of outstanding uploads), in one
  // TransactWriteItems: no job, batch or key is within its reach.
  'televersements-creer': rapide('POST /televersements: records uploads, answers presigned S3 PUT URLs', {
    table: { ...lectureAuthentifiee(), miseAJour: ['cadence', 'compte'], creation: ['televersement'] },
    s3: [{ prefixe: 'televersements', actions: ['PutObject'] }],
  }),
  // Erasure (core/domaine/effacement.ts): reads the job or batch, deletes its files (never lists the bucket:
  // the keys are known), deletes its records and takes it out of its batch, or records the erasure
  // for the sweeper. It may update batches and rate windows only, create erasure requests only, and
  // delete only jobs, batches, uploads, stored answers and erasure requests — never an account or a key.
  'travail-effacer': rapide('DELETE /travaux/{id}: erases an ended job, or records its erasure', ACCES_EFFACEMENT),
  // A batch's jobs are read together (BatchGetItem).
  'lot-effacer': rapide('DELETE /lots/{id}: erases an ended batch, or records its erasure', {
    ...ACCES_EFFACEMENT,
    table: { ...ACCES_EFFACEMENT.table!, actions: ['GetItem', 'BatchGetItem'] },
  }),
  // The web site's account pages (sessions only, behind the Cognito authorizer). GET /compte creates
  // a user's account at their first visit: the user's link and the account, in one transaction.
  // The sign-up's credits are recorded (an `apport`) in that transaction too.
  compte: rapide("GET /compte: the signed-in user's account, made at their first visit", {
    table: { ...lectureAuthentifiee(), creation: ['utilisateur', 'compte', 'apport'] },
  }),
  // The account's newest jobs and credits added (gsi1).
  mouvements: rapide("GET /compte/mouvements: the balance's movements, each job's debit and refund, credits added", {
    table: lectureAuthentifiee(['Query'], [INDEX.parCompte]),
  }),
  // Stripe's webhook: records a purchase (and its payment) and raises the account's balance, in one
  // transaction; for a refund or dispute, reads the payment and takes its credits back (the payment's
  // count, the balance and the movement, in one transaction). It reads the webhook's signing secret
  // (granted by lib/api.ts, with the secret).
  'paiement-stripe': rapide('POST /paiements/stripe: a paid pack of credits, credited once; taken back once refunded or disputed', {
    table: { actions: ['GetItem'], miseAJour: ['compte', 'paiement'], creation: ['apport', 'paiement'] },
  }),
  // The key listing reads the keys (gsi1) and when each was last used (their CADENCE items, BatchGetItem).
  'cles-liste': rapide("GET /compte/cles: the account's API keys, never a key itself", {
    table: lectureAuthentifiee(['Query', 'BatchGetItem'], [INDEX.parCompte]),
  }),
  // A key and the account's count of them, in one transaction.
  'cles-creer': rapide('POST /compte/cles: a new named API key, shown once', {
    table: { ...lectureAuthentifiee(), miseAJour: ['cadence', 'compte'], creation: ['cle'], ecritCles: true },
  }),
  'cle-revoquer': rapide("DELETE /compte/cles/{id}: revokes one of the account's keys", {
    table: { ...lectureAuthentifiee(), miseAJour: ['cadence', 'compte', 'cle'], ecritCles: true },
  }),
  // Webhooks (core/domaine/webhooks/points.ts): an endpoint and the account's count of them in one
  // transaction, its secret rotated (encrypted with a key derived from the link key: `signer`), a
  // test delivery created, a failed one made due again, and the queue told (`webhooks`).
  webhooks: {
    ...rapide('/webhooks: endpoints, their secrets, test events, the delivery log and resends', {
      table: {
        ...lectureAuthentifiee(['Query'], [INDEX.parCompte]),
        miseAJour: ['cadence', 'compte', 'webhook', 'livraison'],
        creation: ['webhook', 'livraison'],
        // An endpoint removed takes its deliveries with it.
        suppression: ['webhook', 'livraison'],
      },
      signer: true,
    }),
    webhooks: true,
  },
  // The MCP server for assistants: it checks the caller's key (and counts the call), then its tools call
  // the public API with that key; it touches nothing else. Its one `attendre` waits up to 15 s (clients/mcp/src/lambda.ts).
  mcp: {
    ...rapide('POST /mcp: the MCP server for AI assistants (Streamable HTTP, stateless), over the public API', {
      table: lectureAuthentifiee(),
    }),
    delai: Duration.seconds(27),
  },
  'travaux-creer': {
    description: 'POST /travaux: validates, debits atomically, starts one execution per job',
    memoire: 1024, // a 10 MB multipart body, decoded and checked in memory
    // API Gateway gives up at 29 s. The handler refuses to commit a debit when too little of its
    // time is left, and it must still be able to answer (an error, or the jobs it did start) before
    // the gateway does: 20 s leaves it that margin.
    delai: DELAI_TRAVAUX_CREER,
    catalogue: true,
    acces: {
      // GetItem: key, account, idempotency record, upload record and its use; UpdateItem: the rate
      // window and the debit of the account; PutItem: jobs (and a listing's claims on uploads, which
      // share their keys), batch and idempotency record, in the debit's transaction.
      table: { actions: ['GetItem'], miseAJour: ['cadence', 'compte'], creation: ['travail', 'lot', 'idempotence'] },
      s3: [
        { prefixe: 'entrees', actions: ['PutObject', 'DeleteObject'] },
        // An image given as an upload id: a ranged read of its first 512 KB (format, pixel size).
        { prefixe: 'televersements', actions: ['GetObject'] },
      ],
      demarrer: true,
      // No `signer`: a job just created has no result to link to, and an idempotent replay answers
      // the stored first answer; measured by the IAM simulation (test/integration/iam.test.ts).
    },
  },
};
