/**
 * API: a REST API whose routes come from lambdas/http/routes.ts (the list the local stack dispatches
 * with), one function per route, `introuvable` behind every other path and method, and Gateway
 * Responses so that what API Gateway answers by itself still carries the spec's Erreur body.
 */
import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  AuthorizationType,
  CognitoUserPoolsAuthorizer,
  EndpointType,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  ResponseType,
  RestApi,
  type IResource,
} from 'aws-cdk-lib/aws-apigateway';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { INDEX } from '../lambdas/core/depots/table';
import { BASE_CHEMIN, ROUTES, TYPES_BINAIRES } from '../lambdas/http/routes';
import { ACCES_EFFACEMENT, accorder, lectureAuthentifiee, type Acces } from './acces';
import { politiqueDonnees, retentionJournaux, type ConfigurationStage } from './configuration';
import { Fonction } from './fonction';
import type { Liens } from './liens';
import type { Webhooks } from './webhooks';
import type { Utilisateurs } from './utilisateurs';

/** The name of the API stage: part of every URL (`…/v1/api/v1/…`). */
export const NOM_STAGE = 'v1';

/** Lambda timeout of POST /travaux, under API Gateway's 29 s (see its settings below). */
export const DELAI_TRAVAUX_CREER = Duration.seconds(20);

interface Reglage {
  description: string;
  memoire: number;
  delai: Duration;
  acces: Acces;
  /**
   * Reads which tools the stage offers (RETOUCHE_OUTILS, when the stage withdraws some) and which engine
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
  // (granted below, with the secret).
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
  // the public API with that key; it touches nothing else. Its one `attendre` waits up to 15 s (lambdas/http/mcp.ts).
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

/** Gateway Responses: the gateway's own errors in the Erreur body, with our codes. */
const REPONSES_PASSERELLE: { type: ResponseType; statut?: string; code: string }[] = [
  { type: ResponseType.MISSING_AUTHENTICATION_TOKEN, statut: '404', code: 'not_found' },
  { type: ResponseType.RESOURCE_NOT_FOUND, statut: '404', code: 'not_found' },
  { type: ResponseType.THROTTLED, code: 'rate_limited' },
  { type: ResponseType.QUOTA_EXCEEDED, code: 'rate_limited' },
  { type: ResponseType.REQUEST_TOO_LARGE, code: 'payload_too_large' },
  { type: ResponseType.UNSUPPORTED_MEDIA_TYPE, code: 'unsupported_media_type' },
  { type: ResponseType.BAD_REQUEST_BODY, code: 'invalid_body' },
  { type: ResponseType.BAD_REQUEST_PARAMETERS, code: 'invalid_parameter' },
  { type: ResponseType.ACCESS_DENIED, code: 'forbidden' },
  { type: ResponseType.INTEGRATION_TIMEOUT, code: 'internal_error' },
  // What is left of 4XX here is access denial of some kind (signature, WAF, expired token): all 403.
  { type: ResponseType.DEFAULT_4XX, code: 'forbidden' },
  { type: ResponseType.DEFAULT_5XX, code: 'internal_error' },
];

export interface ProprietesApi {
  config: ConfigurationStage;
  table: ITable;
  bucket: IBucket;
  machine: StateMachine;
  liens: Liens;
  utilisateurs: Utilisateurs;
  webhooks: Webhooks;
}

export class Api extends Construct {
  readonly api: RestApi;
  /** Route functions by module name (lambdas/http/<name>.ts). */
  readonly fonctions: Record<string, Fonction> = {};
  /** Every function of the API, route or not (for alarms). */
  readonly toutes: Fonction[] = [];
  /** Base URL of the spec's paths: `https://…/v1/api/v1`. */
  readonly url: string;
  /** The Stripe webhook's signing secret, when the stage sells packs of credits. */
  readonly secretStripe: Secret | undefined;

  constructor(scope: Construct, id: string, p: ProprietesApi) {
    super(scope, id);
    const { config, table, bucket, machine, liens, utilisateurs } = p;
    const journalAcces = new LogGroup(this, 'JournalAcces', { retention: retentionJournaux(config), removalPolicy: politiqueDonnees(config) });
    this.api = new RestApi(this, 'Api', {
      // The name is the dimension of API Gateway's metrics (ApiName): shared between stages, one stage's 5xx
      // paged the other's operator (lib/observabilite.ts). The stack's name is unique per account and Region.
      restApiName: Stack.of(this).stackName,
      description: `Retouche ${config.stage}: photo retouching API (spec 1.0.0)`,
      endpointTypes: [EndpointType.REGIONAL],
      binaryMediaTypes: [...TYPES_BINAIRES],
      // Our routes answer every path; the default 403 "Missing Authentication Token" never shows.
      deployOptions: {
        stageName: NOM_STAGE,
        tracingEnabled: true,
        metricsEnabled: true,
        loggingLevel: MethodLoggingLevel.ERROR,
        dataTraceEnabled: false, // request bodies hold images and API keys
        accessLogDestination: new LogGroupLogDestination(journalAcces),
        accessLogFormat: AccessLogFormat.jsonWithStandardFields(),
        // A ceiling for the whole stage; the per-key limit (120/min) is exact, in the handlers.
        throttlingRateLimit: 500,
        throttlingBurstLimit: 1000,
      },
      // API Gateway's logging role is one per account and Region (AWS::ApiGateway::Account), whichever stage
      // wrote it last: destroying a dev stack that deleted it would stop every other stage's execution logs.
      // Kept on every stage, so no stage's lifetime bounds it.
      cloudWatchRole: true,
      cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
    });
    this.url = `https://${this.api.restApiId}.execute-api.${Stack.of(this).region}.${Stack.of(this).urlSuffix}/${NOM_STAGE}${BASE_CHEMIN}`;

    const fichiers = liens.distribution ? undefined : `${this.url}/fichiers`;
    const signature = liens.base(fichiers);
    const commun = {
      retention: retentionJournaux(config),
      removalPolicy: politiqueDonnees(config),
      environnement: { RETOUCHE_TABLE: table.tableName, RETOUCHE_BUCKET: bucket.bucketName },
    };
    const ressources = { table, bucket, machine, secret: liens.secret };

    // The web site's own routes: API Gateway checks the session's ID token (signature, expiry, pool)
    // before the function runs, and the function checks it again (lambdas/core/infra/sessions.ts).
    const autorisationSession = {
      authorizer: new CognitoUserPoolsAuthorizer(this, 'Sessions', { cognitoUserPools: [utilisateurs.pool], resultsCacheTtl: Duration.minutes(5) }),
      authorizationType: AuthorizationType.COGNITO,
    };
    const sessions = { RETOUCHE_SESSION_EMETTEUR: utilisateurs.emetteur, RETOUCHE_SESSION_CLIENT: utilisateurs.client.userPoolClientId };

    // Payments (core/domaine/achats.ts), when the stage sells packs: the webhook endpoint's signing
    // secret, which Stripe shows once the endpoint is made; the stack makes the secret with a random
    // placeholder, and the operator puts the whsec_… value in it (docs/deployment.md, "Payments").
    const packs = config.packs ? JSON.stringify(config.packs) : undefined;
    this.secretStripe = config.packs
      ? new Secret(this, 'WebhookStripe', {
          description: `Retouche ${config.stage}: the signing secret (whsec_…) of the stage's Stripe webhook endpoint`,
          removalPolicy: politiqueDonnees(config),
        })
      : undefined;
    if (this.secretStripe) {
      Validations.of(this.secretStripe).acknowledge({
        id: 'AwsSolutions::AwsSolutions-SMG4',
        reason: "Stripe issues the webhook's signing secret; it is rolled in Stripe's dashboard, then put here, not rotated by a Lambda.",
      });
    }

    const base = this.api.root.resourceForPath(BASE_CHEMIN.slice(1));
    const parChemin = new Map<string, IResource>();
    for (const route of ROUTES) {
      const reglage = REGLAGES_ROUTES[route.fonction];
      if (!reglage) throw new Error(`no settings for the function of ${route.methode} ${route.chemin}`);
      // Several routes may share a function (the webhook routes): it is made and granted once.
      const existante = this.fonctions[route.fonction];
      const fn = (this.fonctions[route.fonction] ??= new Fonction(this, nomConstruct(route.fonction), {
        ...commun,
        module: `http/${route.fonction}`,
        description: reglage.description,
        memoire: reglage.memoire,
        delai: reglage.delai,
        environnement: {
          ...commun.environnement,
          ...(reglage.acces.signer
            ? { RETOUCHE_LIENS_BASE: signature.base, RETOUCHE_LIENS_CLE_ID: signature.idCle, RETOUCHE_LIENS_SECRET_ARN: liens.secret.secretArn }
            : {}),
          ...(reglage.acces.demarrer ? { RETOUCHE_MACHINE_ARN: machine.stateMachineArn } : {}),
          ...(reglage.catalogue && config.outils ? { RETOUCHE_OUTILS: config.outils.join(',') } : {}),
          ...(reglage.catalogue ? { RETOUCHE_MOTEUR: config.moteur } : {}),
          // Every route that authenticates takes a web session too (its jobs say `source: web`).
          ...(route.authentifiee ? sessions : {}),
          ...(route.fonction === 'compte' ? { RETOUCHE_CREDITS_INSCRIPTION: String(config.creditsInscription ?? 0) } : {}),
          // Where a user of a stage that sells no packs asks for credits (core/domaine/contact-credits.ts).
          ...(route.fonction === 'compte' && config.contactCredits ? { RETOUCHE_CONTACT_CREDITS: config.contactCredits } : {}),
          ...((route.fonction === 'compte' || route.fonction === 'paiement-stripe') && packs ? { RETOUCHE_PACKS: packs } : {}),
          ...(route.fonction === 'paiement-stripe' && this.secretStripe ? { RETOUCHE_STRIPE_SECRET_ARN: this.secretStripe.secretArn } : {}),
          // The MCP tools call the stage's own API (its URL is built from the API's id: no cycle with the deployment).
          ...(route.fonction === 'mcp' ? { RETOUCHE_API_URL: this.url } : {}),
        },
      }));
      if (!existante) {
        accorder(fn, ressources, reglage.acces);
        if (route.fonction === 'paiement-stripe') this.secretStripe?.grantRead(fn);
        if (reglage.webhooks) p.webhooks.autoriserEnvoi(fn);
      }
      const ressource = base.resourceForPath(route.chemin.slice(1));
      ressource.addMethod(route.methode, new LambdaIntegration(fn), route.session ? autorisationSession : {});
      parChemin.set(route.chemin, ressource);
    }

    // Unknown paths and methods: an Erreur (404 or 405) from our own function, never the gateway's 403.
    const introuvable = new Fonction(this, 'Introuvable', {
      ...commun,
      module: 'http/introuvable',
      description: 'Unknown routes (404) and methods (405)',
      memoire: 256,
      delai: Duration.seconds(5),
      environnement: {},
    });
    const integrationIntrouvable = new LambdaIntegration(introuvable);
    this.toutes.push(...Object.values(this.fonctions), introuvable);
    const partout = new Set<IResource>([this.api.root, this.api.root.getResource('api') ?? base, base, ...parChemin.values()]);
    for (const chemin of parChemin.keys()) {
      // Intermediate resources (e.g. /travaux above /travaux/{id}) exist too and must answer.
      const morceaux = chemin.split('/').filter(Boolean);
      for (let n = 1; n <= morceaux.length; n++) partout.add(base.resourceForPath(morceaux.slice(0, n).join('/')));
    }
    for (const ressource of partout) ressource.addMethod('ANY', integrationIntrouvable);
    this.api.root.addResource('{proxy+}').addMethod('ANY', integrationIntrouvable);
    base.addResource('{proxy+}').addMethod('ANY', integrationIntrouvable);

    if (fichiers) {
      // LocalStack fallback (no CloudFront): the API checks link signatures itself.
      const fichier = new Fonction(this, 'Fichier', {
        ...commun,
        module: 'http/fichier',
        description: 'GET /fichiers/...: checks a signed link, redirects to a one-minute S3 URL (no-CloudFront fallback)',
        memoire: 256,
        delai: Duration.seconds(5),
        environnement: {
          ...commun.environnement,
          RETOUCHE_LIENS_BASE: signature.base,
          RETOUCHE_LIENS_CLE_ID: signature.idCle,
          RETOUCHE_LIENS_CLE_PUBLIQUE: liens.clePublique,
        },
      });
      // Results and ZIPs; and the photos they were made from, shown by a result's `avant_affichage` (the history's slider).
      accorder(fichier, ressources, {
        s3: [
          { prefixe: 'resultats', actions: ['GetObject'] },
          { prefixe: 'zips', actions: ['GetObject'] },
          { prefixe: ['entrees', 'televersements'], actions: ['GetObject'] },
        ],
      });
      base.addResource('fichiers').addResource('{proxy+}').addMethod('GET', new LambdaIntegration(fichier));
      this.toutes.push(fichier);
    }

    for (const { type, statut, code } of REPONSES_PASSERELLE) {
      this.api.addGatewayResponse(`Reponse${type.responseType}`, {
        type,
        ...(statut ? { statusCode: statut } : {}),
        responseHeaders: { 'Content-Type': "'application/json'" },
        templates: {
          'application/json': `{"error":{"code":"${code}","message":$context.error.messageString,"type":"$context.error.responseType"}}`,
        },
      });
    }

    Validations.of(this.api).acknowledge(
      {
        id: 'AwsSolutions::AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason: 'The account-level role API Gateway uses to write access logs; AWS maintains its policy for that one purpose.',
      },
      { id: 'AwsSolutions::AwsSolutions-APIG2', reason: 'Requests are validated by the handlers with the valibot schemas, which also generate openapi.json.' },
      { id: 'AwsSolutions::AwsSolutions-APIG3', reason: 'No WAF: every route but two public documents checks an API key and an exact per-key rate limit.' },
      {
        id: 'AwsSolutions::AwsSolutions-APIG4',
        reason:
          "The public routes take the spec's API keys (Bearer), checked against hashed keys in the handlers, or a web session's ID token, verified there too.",
      },
      {
        id: 'AwsSolutions::AwsSolutions-COG4',
        reason: "The public routes serve API keys as well as web sessions, so the handlers verify; the web site's own routes have the Cognito authorizer.",
      },
    );
  }
}

/** Construct id of a route's function: `travaux-creer` → `TravauxCreer`. */
export const nomConstruct = (fonction: string): string =>
  fonction
    .split('-')
    .map((m) => m.charAt(0).toUpperCase() + m.slice(1))
    .join('');
