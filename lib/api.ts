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
  type MethodOptions,
} from 'aws-cdk-lib/aws-apigateway';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { BASE_CHEMIN, ROUTES, TYPES_BINAIRES, type Route } from '../lambdas/http/routes';
import { accorder, type Ressources } from './acces';
import { politiqueDonnees, retentionJournaux, type ConfigurationStage } from './configuration';
import { Fonction, type ProprietesFonction } from './fonction';
import type { Liens } from './liens';
import { REGLAGES_ROUTES, type Reglage } from './reglages-routes';
import type { Webhooks } from './webhooks';
import type { Utilisateurs } from './utilisateurs';

/** The name of the API stage: part of every URL (`…/v1/api/v1/…`). */
export const NOM_STAGE = 'v1';

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

/** What every function of the API is built with and may be granted, and how its links are signed. */
interface Socle {
  commun: Pick<ProprietesFonction, 'retention' | 'removalPolicy'> & { environnement: Record<string, string> };
  ressources: Ressources;
  signature: { base: string; idCle: string };
}

/** How a route that only the web site calls is authorized. */
type AutorisationSession = Pick<MethodOptions, 'authorizer' | 'authorizationType'>;

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
    const { config, table, bucket, machine, liens } = p;
    this.api = this.creerApi(config);
    this.url = `https://${this.api.restApiId}.execute-api.${Stack.of(this).region}.${Stack.of(this).urlSuffix}/${NOM_STAGE}${BASE_CHEMIN}`;

    const fichiers = liens.distribution ? undefined : `${this.url}/fichiers`;
    const socle: Socle = {
      commun: {
        retention: retentionJournaux(config),
        removalPolicy: politiqueDonnees(config),
        environnement: { RETOUCHE_TABLE: table.tableName, RETOUCHE_BUCKET: bucket.bucketName },
      },
      ressources: { table, bucket, machine, secret: liens.secret },
      signature: liens.base(fichiers),
    };
    const session = this.autorisationSession(p.utilisateurs);
    this.secretStripe = this.creerSecretStripe(config);

    const base = this.api.root.resourceForPath(BASE_CHEMIN.slice(1));
    const parChemin = this.brancherRoutes(p, socle, session, base);
    const introuvable = this.brancherIntrouvable(socle, base, parChemin);
    this.toutes.push(...Object.values(this.fonctions), introuvable);
    // LocalStack fallback (no CloudFront): the API checks link signatures itself.
    if (fichiers) this.toutes.push(this.brancherFichiers(liens, socle, base));
    this.repondreCommeLaSpec();
    this.reconnaitreApi();
  }

  /** The REST API, its stage and its access log. */
  private creerApi(config: ConfigurationStage): RestApi {
    const journalAcces = new LogGroup(this, 'JournalAcces', { retention: retentionJournaux(config), removalPolicy: politiqueDonnees(config) });
    return new RestApi(this, 'Api', {
      // The name is the dimension of API Gateway's metrics (ApiName): shared between stages, one stage's 5xx
      // paged the other's operator (lib/observabilite.ts). The stack's name is unique per account and Region.
      restApiName: Stack.of(this).stackName,
      description: `Retouche ${config.stage}: photo retouching API (spec 1.0.0)`,
      endpointTypes: [EndpointType.REGIONAL],
      binaryMediaTypes: [...TYPES_BINAIRES],
      // Our routes answer every path; the default 403 "Missing Authentication Token" never shows.
      deployOptions: {
        stageName: NOM_STAGE,
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
  }

  /**
   * The web site's own routes: API Gateway checks the session's ID token (signature, expiry, pool)
   * before the function runs, and the function checks it again (lambdas/core/infra/sessions.ts).
   */
  private autorisationSession(utilisateurs: Utilisateurs): AutorisationSession {
    return {
      authorizer: new CognitoUserPoolsAuthorizer(this, 'Sessions', { cognitoUserPools: [utilisateurs.pool], resultsCacheTtl: Duration.minutes(5) }),
      authorizationType: AuthorizationType.COGNITO,
    };
  }

  /**
   * Payments (core/domaine/achats.ts), when the stage sells packs: the webhook endpoint's signing
   * secret, which Stripe shows once the endpoint is made; the stack makes the secret with a random
   * placeholder, and the operator puts the whsec_… value in it (docs/deployment.md, "Payments").
   */
  private creerSecretStripe(config: ConfigurationStage): Secret | undefined {
    if (!config.packs) return undefined;
    const secret = new Secret(this, 'WebhookStripe', {
      description: `Retouche ${config.stage}: the signing secret (whsec_…) of the stage's Stripe webhook endpoint`,
      removalPolicy: politiqueDonnees(config),
    });
    Validations.of(secret).acknowledge({
      id: 'AwsSolutions::AwsSolutions-SMG4',
      reason: "Stripe issues the webhook's signing secret; it is rolled in Stripe's dashboard, then put here, not rotated by a Lambda.",
    });
    return secret;
  }

  /** Every route of lambdas/http/routes.ts as a method calling its function; the resources made, by path. */
  private brancherRoutes(p: ProprietesApi, socle: Socle, session: AutorisationSession, base: IResource): Map<string, IResource> {
    const parChemin = new Map<string, IResource>();
    for (const route of ROUTES) {
      const reglage = REGLAGES_ROUTES[route.fonction];
      if (!reglage) throw new Error(`no settings for the function of ${route.methode} ${route.chemin}`);
      // Several routes may share a function (the webhook routes): it is made and granted once.
      const fn = (this.fonctions[route.fonction] ??= this.creerFonctionRoute(route, reglage, p, socle));
      const ressource = base.resourceForPath(route.chemin.slice(1));
      ressource.addMethod(route.methode, new LambdaIntegration(fn), route.session ? session : {});
      parChemin.set(route.chemin, ressource);
    }
    return parChemin;
  }

  /** A route's function, granted what its settings say. */
  private creerFonctionRoute(route: Route, reglage: Reglage, p: ProprietesApi, socle: Socle): Fonction {
    const fn = new Fonction(this, nomConstruct(route.fonction), {
      ...socle.commun,
      module: `http/${route.fonction}`,
      description: reglage.description,
      memoire: reglage.memoire,
      delai: reglage.delai,
      environnement: { ...socle.commun.environnement, ...this.environnementRoute(route, reglage, p, socle) },
    });
    accorder(fn, socle.ressources, reglage.acces);
    if (route.fonction === 'paiement-stripe') this.secretStripe?.grantRead(fn);
    if (reglage.webhooks) p.webhooks.autoriserEnvoi(fn);
    return fn;
  }

  /** What a route's function reads from its environment beyond the table and the bucket: what its settings and its route call for. */
  private environnementRoute(route: Route, reglage: Reglage, p: ProprietesApi, socle: Socle): Record<string, string> {
    const { config, liens, machine, utilisateurs } = p;
    const packs = config.packs ? JSON.stringify(config.packs) : undefined;
    const sessions = { RETOUCHE_SESSION_EMETTEUR: utilisateurs.emetteur, RETOUCHE_SESSION_CLIENT: utilisateurs.client.userPoolClientId };
    return {
      ...(reglage.acces.signer
        ? { RETOUCHE_LIENS_BASE: socle.signature.base, RETOUCHE_LIENS_CLE_ID: socle.signature.idCle, RETOUCHE_LIENS_SECRET_ARN: liens.secret.secretArn }
        : {}),
      ...(reglage.acces.demarrer ? { RETOUCHE_MACHINE_ARN: machine.stateMachineArn } : {}),
      ...(reglage.catalogue && config.outils ? { RETOUCHE_OUTILS: config.outils.join(',') } : {}),
      ...(reglage.catalogue && config.couts ? { RETOUCHE_COUTS: config.couts } : {}),
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
    };
  }

  /** Unknown paths and methods: an Erreur (404 or 405) from our own function, never the gateway's 403. */
  private brancherIntrouvable(socle: Socle, base: IResource, parChemin: Map<string, IResource>): Fonction {
    const introuvable = new Fonction(this, 'Introuvable', {
      ...socle.commun,
      module: 'http/introuvable',
      description: 'Unknown routes (404) and methods (405)',
      memoire: 256,
      delai: Duration.seconds(5),
      environnement: {},
    });
    const integrationIntrouvable = new LambdaIntegration(introuvable);
    const partout = new Set<IResource>([this.api.root, this.api.root.getResource('api') ?? base, base, ...parChemin.values()]);
    for (const chemin of parChemin.keys()) {
      // Intermediate resources (e.g. /travaux above /travaux/{id}) exist too and must answer.
      const morceaux = chemin.split('/').filter(Boolean);
      for (let n = 1; n <= morceaux.length; n++) partout.add(base.resourceForPath(morceaux.slice(0, n).join('/')));
    }
    for (const ressource of partout) ressource.addMethod('ANY', integrationIntrouvable);
    this.api.root.addResource('{proxy+}').addMethod('ANY', integrationIntrouvable);
    base.addResource('{proxy+}').addMethod('ANY', integrationIntrouvable);
    return introuvable;
  }

  /** GET /fichiers/…: the signed links, when no CloudFront distribution serves them. */
  private brancherFichiers(liens: Liens, socle: Socle, base: IResource): Fonction {
    const fichier = new Fonction(this, 'Fichier', {
      ...socle.commun,
      module: 'http/fichier',
      description: 'GET /fichiers/...: checks a signed link, redirects to a one-minute S3 URL (no-CloudFront fallback)',
      memoire: 256,
      delai: Duration.seconds(5),
      environnement: {
        ...socle.commun.environnement,
        RETOUCHE_LIENS_BASE: socle.signature.base,
        RETOUCHE_LIENS_CLE_ID: socle.signature.idCle,
        RETOUCHE_LIENS_CLE_PUBLIQUE: liens.clePublique,
      },
    });
    // Results and ZIPs; and the photos they were made from, shown by a result's `avant_affichage` (the history's slider).
    accorder(fichier, socle.ressources, {
      s3: [
        { prefixe: 'resultats', actions: ['GetObject'] },
        { prefixe: 'zips', actions: ['GetObject'] },
        { prefixe: ['entrees', 'televersements'], actions: ['GetObject'] },
      ],
    });
    base.addResource('fichiers').addResource('{proxy+}').addMethod('GET', new LambdaIntegration(fichier));
    return fichier;
  }

  /** What API Gateway answers by itself, in the spec's Erreur body (REPONSES_PASSERELLE). */
  private repondreCommeLaSpec(): void {
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
  }

  /** The cdk-nag findings the API's design accepts, each with its reason. */
  private reconnaitreApi(): void {
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
