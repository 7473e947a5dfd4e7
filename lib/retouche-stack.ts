/**
 * One stack per stage (`Retouche-<stage>`), composed of the service's constructs. Resource names
 * are left to CloudFormation, so two stages (or two developers) never collide in one account.
 */
import { CfnOutput, Stack, Tags, type StackProps } from 'aws-cdk-lib';
import type { IDistribution } from 'aws-cdk-lib/aws-cloudfront';
import type { Construct } from 'constructs';
import { Api } from './api';
import type { ConfigurationStage } from './configuration';
import { Donnees } from './donnees';
import { Flux } from './flux';
import { Fonction } from './fonction';
import { Liens } from './liens';
import { Webhooks } from './webhooks';
import { modelesDuStage } from './modeles';
import { SORTIE_MOTEUR } from '../lambdas/moteurs/bedrock/configuration';
import { Observabilite } from './observabilite';
import { Provenance } from './provenance';
import { Stockage } from './stockage';
import { Site } from './site';
import { Utilisateurs } from './utilisateurs';

export interface ProprietesRetouche extends StackProps {
  config: ConfigurationStage;
}

/** Output names the admin CLI reads (`npm run admin -- --outputs cdk-outputs.json …`). */
export const SORTIES = {
  api: 'ApiUrl',
  /** The MCP server an AI assistant adds by URL (clients/mcp/src/lambda.ts). */
  mcp: 'McpUrl',
  table: 'TableName',
  bucket: 'BucketName',
  liens: 'LiensBase',
  /** The webhook delivery queue and the link key's secret (its key encrypts endpoints' secrets): the admin CLI's webhook commands. */
  fileWebhooks: 'WebhooksQueueUrl',
  secretLiens: 'LiensSecretArn',
  alarmes: 'AlarmesTopic',
  /** The web site's user pool and app client (`admin -- create-user`, the site's configuration). */
  pool: 'UserPoolId',
  client: 'UserPoolClientId',
  /** The web site (a CloudFront stage): its address, and where `npm run deploy` puts its files. */
  site: 'SiteUrl',
  siteSeau: 'SiteBucket',
  siteDistribution: 'SiteDistributionId',
  /** Payments (a stage that sells packs): the URL to give Stripe as the webhook endpoint, and the secret to put its signing secret in. */
  webhookStripe: 'StripeWebhookUrl',
  secretStripe: 'StripeWebhookSecretArn',
  /** The Bedrock Region and model ids of the engine (a Bedrock stage only): `admin -- check-models` reads them. */
  modeles: SORTIE_MOTEUR,
} as const;

export class RetoucheStack extends Stack {
  readonly donnees: Donnees;
  readonly stockage: Stockage;
  readonly liens: Liens;
  readonly webhooks: Webhooks;
  readonly provenance: Provenance;
  readonly flux: Flux;
  readonly api: Api;
  readonly utilisateurs: Utilisateurs;
  /** The web site, on a stage whose links are served by CloudFront (not the LocalStack fallback). */
  readonly site?: Site;
  readonly observabilite: Observabilite;

  constructor(scope: Construct, id: string, props: ProprietesRetouche) {
    super(scope, id, props);
    const { config } = props;
    Tags.of(this).add('service', 'retouche');
    Tags.of(this).add('stage', config.stage);

    this.donnees = new Donnees(this, 'Donnees', config);
    this.stockage = new Stockage(this, 'Stockage', config);
    this.liens = new Liens(this, 'Liens', config, this.stockage.bucket);
    // The C2PA signing key and chain; its outputs C2paCsr, C2paSignataire and C2paTest are its own.
    this.provenance = new Provenance(this, 'Provenance', config);
    const modeles = modelesDuStage(this, config);
    this.webhooks = new Webhooks(this, 'Webhooks', config);
    this.flux = new Flux(this, 'Flux', {
      webhooks: this.webhooks,
      config,
      table: this.donnees.table,
      bucket: this.stockage.bucket,
      modeles,
      c2pa: { secret: this.provenance.secret, empreinte: this.provenance.empreinte },
    });
    this.utilisateurs = new Utilisateurs(this, 'Utilisateurs', config);
    this.api = new Api(this, 'Api', {
      utilisateurs: this.utilisateurs,
      config,
      table: this.donnees.table,
      bucket: this.stockage.bucket,
      machine: this.flux.machine,
      liens: this.liens,
      webhooks: this.webhooks,
    });
    const livreur = this.webhooks.creerLivreur({
      table: this.donnees.table,
      bucket: this.stockage.bucket,
      liens: { ...this.liens.base(this.liens.distribution ? undefined : `${this.api.url}/fichiers`), secret: this.liens.secret },
    });
    if (this.liens.distribution) this.site = this.creerSite(config, this.liens.distribution);
    this.observabilite = new Observabilite(this, 'Observabilite', {
      config,
      api: this.api.api,
      machine: this.flux.machine,
      fonctions: [...this.api.toutes, ...Object.values(this.flux.etapes), livreur],
      balayeur: this.flux.balayeur,
      livraisonsEnEchec: this.webhooks.echecs,
    });
    this.exporterSorties();
    if (config.moteur === 'bedrock') this.exporterMoteur(modeles.environnement);
  }

  /**
   * Every function of the stack built from a handler module (lib/fonction.ts), one per module, sorted by module:
   * the list the bundles test (test/cdk/bundles.test.ts) and the cold-start bench (bench/demarrage.ts) bundle
   * and load, so neither restates it (lib/application.ts: `fonctionsDeLaPile`).
   */
  get fonctions(): Fonction[] {
    const parModule = new Map(
      this.node
        .findAll()
        .filter((c): c is Fonction => c instanceof Fonction)
        .map((f) => [f.module, f]),
    );
    return [...parModule.values()].sort((a, b) => a.module.localeCompare(b.module));
  }

  private creerSite(config: ConfigurationStage, distribution: IDistribution): Site {
    return new Site(this, 'Site', {
      config,
      api: this.api.api,
      utilisateurs: this.utilisateurs,
      liens: `https://${distribution.distributionDomainName}`,
      televersements: `https://${this.stockage.bucket.bucketRegionalDomainName}`,
    });
  }

  /** The outputs of SORTIES that every stage has, and the web site's and the payments' when the stage has them. */
  private exporterSorties(): void {
    new CfnOutput(this, SORTIES.api, { value: this.api.url, description: "Base URL of the API (the spec's {base_url})" });
    new CfnOutput(this, SORTIES.mcp, {
      value: `${this.api.url}/mcp`,
      description: 'The MCP server for AI assistants (Streamable HTTP; the API key as bearer token)',
    });
    new CfnOutput(this, SORTIES.table, { value: this.donnees.table.tableName, description: 'DynamoDB table (admin CLI)' });
    new CfnOutput(this, SORTIES.bucket, { value: this.stockage.bucket.bucketName, description: 'S3 bucket of inputs, results and ZIPs' });
    new CfnOutput(this, SORTIES.liens, { value: this.liens.base(`${this.api.url}/fichiers`).base, description: 'Base of the signed result links' });
    new CfnOutput(this, SORTIES.fileWebhooks, { value: this.webhooks.file.queueUrl, description: 'The webhook delivery queue (admin CLI webhook commands)' });
    new CfnOutput(this, SORTIES.secretLiens, {
      value: this.liens.secret.secretArn,
      description: "The link signing key's secret; webhook secrets are encrypted with a key derived from it (admin CLI webhook commands)",
    });
    new CfnOutput(this, SORTIES.pool, { value: this.utilisateurs.pool.userPoolId, description: "The web site's user pool (admin create-user)" });
    new CfnOutput(this, SORTIES.client, { value: this.utilisateurs.client.userPoolClientId, description: "The web site's app client" });
    if (this.site) {
      new CfnOutput(this, SORTIES.site, { value: this.site.url, description: 'The web site (and the API under /api/v1)' });
      new CfnOutput(this, SORTIES.siteSeau, { value: this.site.seau.bucketName, description: "The web site's files (npm run deploy puts them there)" });
      new CfnOutput(this, SORTIES.siteDistribution, { value: this.site.distribution.distributionId, description: "The web site's distribution" });
    }
    if (this.api.secretStripe) {
      new CfnOutput(this, SORTIES.webhookStripe, {
        value: `${this.api.url}/paiements/stripe`,
        description:
          "Stripe's webhook endpoint URL (events checkout.session.completed, checkout.session.async_payment_succeeded, charge.refunded, charge.dispute.created)",
      });
      new CfnOutput(this, SORTIES.secretStripe, {
        value: this.api.secretStripe.secretArn,
        description: "Put the webhook endpoint's signing secret (whsec_…) in this secret",
      });
    }
    new CfnOutput(this, SORTIES.alarmes, { value: this.observabilite.sujet.topicArn, description: 'SNS topic of the alarms (subscribe to it)' });
  }

  /** A Bedrock stage's Region and models, for `admin -- check-models` and the synth's summary. */
  private exporterMoteur(env: Record<string, string>): void {
    if (!env.RETOUCHE_BEDROCK_REGION) return;
    const reglages = {
      modeleInpaint: env.RETOUCHE_BEDROCK_MODELE_INPAINT,
      modeleStructure: env.RETOUCHE_BEDROCK_MODELE_STRUCTURE,
      modeleRemplacement: env.RETOUCHE_BEDROCK_MODELE_REMPLACEMENT,
      modeleTexte: env.RETOUCHE_BEDROCK_MODELE_TEXTE,
    };
    new CfnOutput(this, SORTIES.modeles, {
      value: JSON.stringify({ region: env.RETOUCHE_BEDROCK_REGION, modeles: Object.fromEntries(Object.entries(reglages).filter(([, id]) => id)) }),
      description: 'Bedrock Region and models of the engine: enable them before the first job (npm run --silent admin -- check-models)',
    });
  }
}
