/**
 * The deployed shape, asserted on the synthesized template: what `cdk synth` builds (same app
 * module, same context as cdk.json), without bundling the functions (the bundles are checked in
 * bundles.test.ts). Nothing here talks to AWS.
 */
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ESPACE_MESURES, MESURES } from '../../lambdas/core/infra/mesures';
import { CONCURRENCE_MAX_LIVREUR } from '../../lambdas/core/infra/file-webhooks';
import {
  CONSERVATION_JOURNAUX_JOURS,
  PREFIXES,
  RETENTION_ENTREES_JOURS,
  RETENTION_RESULTATS_JOURS,
  RETENTION_TELEVERSEMENTS_JOURS,
  SAUVEGARDES_TABLE_JOURS,
} from '../../lambdas/core/modele/retention';
import { cleItem as cleCadence } from '../../lambdas/core/depots/cadences';
import { cleItem as cleCompte, cleApi } from '../../lambdas/core/depots/comptes';
import { cleItem as cleIdempotence } from '../../lambdas/core/depots/idempotence';
import { cleItem as cleLot } from '../../lambdas/core/depots/lots';
import { cleItem as cleTeleversement } from '../../lambdas/core/depots/televersements';
import { cleItem as cleTravail } from '../../lambdas/core/depots/travaux';
import { DEFINITION_TABLE, INDEX, OUVERTS, PREFIXE_CADENCE, PREFIXE_TELEVERSEMENT, PREFIXES_TABLE } from '../../lambdas/core/depots/table';
import { BASE_CHEMIN, ROUTES, TYPES_BINAIRES } from '../../lambdas/http/routes';
import { LECTURES } from '../../lib/acces';
import { nomConstruct } from '../../lib/api';
import { creerPkiTest, type PkiTest } from '../../lambdas/moteurs/c2pa/certificats';
import { construireApplication } from '../../lib/application';
import { configurationDepuisContexte, lireChaineC2pa, RefusDeConfiguration } from '../../lib/configuration';
import { ACTIONS_REKOGNITION, FICHIER_DEFINITION } from '../../lib/flux';
import { RACINE } from '../../lib/fonction';
import { SEUILS } from '../../lib/observabilite';
import { GENERATION_CLE_C2PA, SORTIES_PROVENANCE } from '../../lib/provenance';

const validerAsl = createRequire(import.meta.url)('asl-validator') as (definition: unknown) => { isValid: boolean; errors: { message?: string }[] };

const contexteCdk = (JSON.parse(readFileSync(path.join(RACINE, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> }).context;

type Ressource = { Type: string; Properties: Record<string, any>; DeletionPolicy?: string; [k: string]: any };

interface Synthese {
  template: Template;
  ressources: Record<string, Ressource>;
  rapportNag: { pluginReports: { pluginName: string; conclusion: string; violations: unknown[] }[] };
}

/** `env`: the account and region `cdk synth` sees when credentials are configured (CDK_DEFAULT_*). */
const synthetiser = (contexte: Record<string, unknown>, env?: { account: string; region: string }): Synthese => {
  const app = new App({
    context: { ...contexteCdk, ...contexte, 'aws:cdk:bundling-stacks': [], 'aws:cdk:enable-path-metadata': true },
  });
  const avant = { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION };
  const fixer = (nom: string, valeur: string | undefined) => (valeur === undefined ? delete process.env[nom] : (process.env[nom] = valeur));
  fixer('CDK_DEFAULT_ACCOUNT', env?.account);
  fixer('CDK_DEFAULT_REGION', env?.region);
  let stack;
  try {
    stack = construireApplication(app);
  } finally {
    fixer('CDK_DEFAULT_ACCOUNT', avant.account);
    fixer('CDK_DEFAULT_REGION', avant.region);
  }
  const template = Template.fromStack(stack);
  const assemblage = app.synth();
  const rapportNag = JSON.parse(readFileSync(path.join(assemblage.directory, 'validation-report.json'), 'utf8'));
  return { template, ressources: template.toJSON().Resources as Record<string, Ressource>, rapportNag };
};

const deType = (s: Synthese, type: string) => Object.entries(s.ressources).filter(([, r]) => r.Type === type);

/** Logical id of the function whose handler module is `lambdas/<module>.ts` (from its description and env would be brittle; use its role path). */
const fonctionsParChemin = (s: Synthese): Map<string, [string, Ressource]> => {
  const carte = new Map<string, [string, Ressource]>();
  for (const [id, r] of deType(s, 'AWS::Lambda::Function')) carte.set(r.Metadata?.['aws:cdk:path'] ?? id, [id, r]);
  return carte;
};

/** Every statement of the inline policies attached to a role. */
const declarationsDuRole = (s: Synthese, idRole: string) =>
  deType(s, 'AWS::IAM::Policy')
    .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === idRole))
    .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[]);

const actionsDe = (declarations: { Action: string | string[] }[]) => declarations.flatMap((d) => [d.Action].flat()).sort();

const fonctionDuModule = (s: Synthese, chemin: string): [string, Ressource] => {
  for (const [p, f] of fonctionsParChemin(s)) if (p.endsWith(`/${chemin}/Resource`)) return f;
  throw new Error(`no function ${chemin}`);
};

/** Logical id of the resource built at `<stack>/<chemin>/Resource`. */
const idDe = (s: Synthese, chemin: string): string => {
  const trouve = Object.entries(s.ressources).find(([, r]) => r.Metadata?.['aws:cdk:path']?.endsWith(`/${chemin}/Resource`));
  if (!trouve) throw new Error(`no resource ${chemin}`);
  return trouve[0];
};

interface Declaration {
  Action: string[];
  Resource: unknown[];
  Condition?: unknown;
}

const trier = (declarations: Declaration[]) => [...declarations].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

/** A function's own statements (all but writing its log group), actions and resources as sorted lists. */
const declarationsMetier = (s: Synthese, chemin: string): Declaration[] => {
  const [, f] = fonctionDuModule(s, chemin);
  return trier(
    declarationsDuRole(s, f.Properties.Role['Fn::GetAtt'][0])
      .map((d) => d as typeof d & { Effect: string; Condition?: unknown })
      .filter((d) => ![d.Action].flat().every((a) => a.startsWith('logs:')))
      .map((d) => {
        expect(d.Effect, chemin).toBe('Allow');
        return { Action: [d.Action].flat().sort(), Resource: [d.Resource].flat(), ...(d.Condition ? { Condition: d.Condition } : {}) };
      }),
  );
};

/** The template's references to the stack's table, bucket, state machine and link secret, as grants write them. */
const references = (s: Synthese) => {
  const table = { 'Fn::GetAtt': [idDe(s, 'Donnees/Table'), 'Arn'] };
  const machine = idDe(s, 'Flux/Travail');
  return {
    table,
    index: (nom: string) => ({ 'Fn::Join': ['', [table, `/index/${nom}`]] }),
    objets: (prefixe: keyof typeof PREFIXES) => ({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [idDe(s, 'Stockage/Fichiers'), 'Arn'] }, `/${PREFIXES[prefixe]}*`]] }),
    machine: { Ref: machine },
    executions: {
      'Fn::Join': [
        '',
        [
          'arn:',
          { Ref: 'AWS::Partition' },
          ':states:',
          { Ref: 'AWS::Region' },
          ':',
          { Ref: 'AWS::AccountId' },
          ':execution:',
          { 'Fn::GetAtt': [machine, 'Name'] },
          ':*',
        ],
      ],
    },
    secret: { Ref: idDe(s, 'Liens/ClePrivee') },
    secretC2pa: { Ref: idDe(s, 'Provenance/CleC2pa') },
  };
};

/** UpdateItem on the rate-window items only: what an authenticated GET handler may write. */
const MISE_A_JOUR_CADENCE = { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${PREFIXE_CADENCE}*`] } };
/** PutItem on upload records only: what POST /televersements may create. */
const CREATION_TELEVERSEMENT = { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${PREFIXE_TELEVERSEMENT}*`] } };
/** A write on these kinds of item only (lib/acces.ts lists them by kind name). */
const ecriture = (table: unknown, action: string, genres: (keyof typeof PREFIXES_TABLE)[]) => ({
  Action: [`dynamodb:${action}`],
  Resource: [table],
  Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...genres].sort().map((g) => `${PREFIXES_TABLE[g]}*`) } },
});

/** Reads of these kinds of item only (GetItem, BatchGetItem, ConditionCheckItem: lib/acces.ts, LECTURES). */
const lecture = (table: unknown, actions: string[], genres: (keyof typeof PREFIXES_TABLE)[]) => ({
  Action: actions.map((a) => `dynamodb:${a}`),
  Resource: [table],
  Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...genres.map((g) => `${PREFIXES_TABLE[g]}*`)].sort() } },
});
/** A Query of these indexes, in these partitions only: an item kind's prefix, or an `ouverts` partition (gsi3) exactly. */
const requete = (index: unknown[], partitions: (keyof typeof PREFIXES_TABLE | (typeof OUVERTS)[keyof typeof OUVERTS])[]) => ({
  Action: ['dynamodb:Query'],
  Resource: index,
  Condition: {
    'ForAllValues:StringLike': {
      'dynamodb:LeadingKeys': partitions.map((p) => (p in PREFIXES_TABLE ? `${PREFIXES_TABLE[p as keyof typeof PREFIXES_TABLE]}*` : p)).sort(),
    },
  },
});

/** An alarm's properties, tags aside, by its construct id under Observabilite. */
const alarme = (s: Synthese, nom: string): Record<string, unknown> => {
  const { Tags: _, ...proprietes } = s.ressources[idDe(s, `Observabilite/${nom}`)]!.Properties;
  return proprietes;
};

describe('the dev stage', () => {
  let s: Synthese;
  beforeAll(() => {
    s = synthetiser({ stage: 'dev' });
  });

  it('passes cdk-nag AwsSolutions with every suppression acknowledged with a reason', () => {
    const nag = s.rapportNag.pluginReports.find((r) => r.pluginName === 'AwsSolutions');
    expect(nag?.conclusion).toBe('success');
    expect(nag?.violations).toEqual([]);
  });

  it('has one API Gateway method per route of lambdas/http/routes.ts, each on its own function', () => {
    const ressourcesApi = Object.fromEntries(deType(s, 'AWS::ApiGateway::Resource'));
    const idRacine = deType(s, 'AWS::ApiGateway::RestApi')[0]![0];
    const cheminDe = (ref: any): string => {
      if (ref['Fn::GetAtt']?.[0] === idRacine) return '';
      const r = ressourcesApi[ref.Ref]!;
      return `${cheminDe(r.Properties.ParentId)}/${r.Properties.PathPart}`;
    };
    const methodes = deType(s, 'AWS::ApiGateway::Method').map(([, m]) => ({
      methode: m.Properties.HttpMethod as string,
      chemin: cheminDe(m.Properties.ResourceId),
      cible: JSON.stringify(m.Properties.Integration.Uri),
    }));
    const cibles = new Set<string>();
    for (const route of ROUTES) {
      const m = methodes.find((x) => x.methode === route.methode && x.chemin === `${BASE_CHEMIN}${route.chemin}`);
      expect(m, `${route.methode} ${route.chemin}`).toBeDefined();
      cibles.add(m!.cible);
    }
    // outils, openapi, solde, travaux-liste, travaux-creer, televersements-creer, travail, lot: one function each.
    expect(cibles.size).toBe(new Set(ROUTES.map((r) => r.fonction)).size);
    // POST /televersements is built like every other route: one method, on its own function.
    const [idTeleversements] = fonctionDuModule(s, 'Api/TeleversementsCreer');
    const televersements = methodes.filter((m) => m.chemin === `${BASE_CHEMIN}/televersements`);
    expect(televersements.map((m) => m.methode).sort()).toEqual(['ANY', 'POST']);
    expect(televersements.find((m) => m.methode === 'POST')!.cible).toContain(`"${idTeleversements}"`);
    // Unknown paths and methods reach our own 404/405 function.
    expect(methodes.filter((m) => m.methode === 'ANY').map((m) => m.chemin)).toEqual(
      expect.arrayContaining([
        '/{proxy+}',
        `${BASE_CHEMIN}/{proxy+}`,
        `${BASE_CHEMIN}/travaux`,
        `${BASE_CHEMIN}/travaux/{id}`,
        `${BASE_CHEMIN}/televersements`,
      ]),
    );
    expect(televersements.find((m) => m.methode === 'ANY')!.cible).toBe(
      methodes.find((m) => m.methode === 'ANY' && m.chemin === `${BASE_CHEMIN}/travaux`)!.cible,
    );
  });

  it("passes multipart and images as binary, and answers the gateway's own errors with the Erreur body", () => {
    s.template.hasResourceProperties('AWS::ApiGateway::RestApi', { BinaryMediaTypes: [...TYPES_BINAIRES] });
    s.template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'MISSING_AUTHENTICATION_TOKEN',
      StatusCode: '404',
      ResponseTemplates: { 'application/json': Match.stringLikeRegexp('^\\{"error":\\{"code":"not_found","message":') },
    });
    for (const type of ['THROTTLED', 'DEFAULT_4XX', 'DEFAULT_5XX', 'REQUEST_TOO_LARGE', 'INTEGRATION_TIMEOUT']) {
      s.template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
        ResponseType: type,
        ResponseTemplates: { 'application/json': Match.stringLikeRegexp('"error":\\{"code":"[a-z_]+"') },
      });
    }
  });

  it('runs every function on the current Node.js runtime, arm64, untraced (no X-Ray anywhere), with its own log group and retention', () => {
    const fonctions = deType(s, 'AWS::Lambda::Function');
    expect(fonctions.length).toBeGreaterThanOrEqual(15);
    for (const [id, f] of fonctions) {
      expect(f.Properties.Runtime, id).toBe('nodejs24.x');
      expect(f.Properties.Architectures, id).toEqual(['arm64']);
      expect(f.Properties.TracingConfig, id).toBeUndefined();
      expect(f.Properties.LoggingConfig?.LogGroup, id).toBeDefined();
      expect(f.Properties.Handler, id).toBe('index.handler');
      // Source maps are not loaded at start: parsing them cost 10–20 ms of every cold start (bench/demarrage.ts).
      expect(f.Properties.Environment.Variables.NODE_OPTIONS, id).toBeUndefined();
    }
    // X-Ray is off everywhere rather than on without our calls in it (docs/architecture.md): no grant, no stage tracing.
    expect(JSON.stringify(s.ressources)).not.toContain('xray:');
    for (const [id, etape] of deType(s, 'AWS::ApiGateway::Stage')) expect(etape.Properties.TracingEnabled, id).toBeUndefined();
    for (const [, g] of deType(s, 'AWS::Logs::LogGroup')) expect(g.Properties.RetentionInDays).toBe(CONSERVATION_JOURNAUX_JOURS.autres);
    // The tool step gets the memory sharp needs; the quick HTTP handlers do not.
    expect(fonctionDuModule(s, 'Flux/Outil')[1].Properties.MemorySize).toBe(2816);
    expect(fonctionDuModule(s, 'Api/Solde')[1].Properties.MemorySize).toBe(512);
  });

  it('builds the state machine from statemachines/travail.asl.json, every placeholder substituted', () => {
    const asl = readFileSync(FICHIER_DEFINITION, 'utf8');
    const placeholders = [...new Set([...asl.matchAll(/\$\{([A-Za-z0-9]+)\}/g)].map((m) => m[1]!))].sort();
    const [[, machine]] = deType(s, 'AWS::StepFunctions::StateMachine') as [[string, Ressource]];
    expect(Object.keys(machine.Properties.DefinitionSubstitutions).sort()).toEqual(placeholders);
    expect(machine.Properties.DefinitionS3Location).toBeDefined();
    expect(machine.Properties.StateMachineType).toBe('STANDARD');
    expect(machine.Properties.TracingConfiguration).toBeUndefined();
    expect(machine.Properties.LoggingConfiguration.Level).toBe('ALL');

    // The file validates once substituted the way CloudFormation will.
    const substitue = asl.replace(/\$\{([A-Za-z0-9]+)\}/g, (_, nom: string) => `arn:aws:lambda:eu-west-1:123456789012:function:${nom}`);
    const { isValid, errors } = validerAsl(JSON.parse(substitue));
    expect(errors.map((e) => e.message)).toEqual([]);
    expect(isValid).toBe(true);
  });

  it('lets the state machine invoke exactly its five step functions', () => {
    const [[, machine]] = deType(s, 'AWS::StepFunctions::StateMachine') as [[string, Ressource]];
    const declarations = declarationsDuRole(s, machine.Properties.RoleArn['Fn::GetAtt'][0]);
    const invocation = declarations.filter((d) => [d.Action].flat().includes('lambda:InvokeFunction'));
    expect(invocation).toHaveLength(1);
    expect(invocation[0]!.Resource).toHaveLength(5);
    expect(JSON.stringify(invocation[0]!.Resource)).not.toContain(':*');
  });

  it('has the table the code queries: on demand, PITR, TTL, the shared GSIs', () => {
    s.template.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true, RecoveryPeriodInDays: SAUVEGARDES_TABLE_JOURS },
      TimeToLiveSpecification: { AttributeName: DEFINITION_TABLE.ttl, Enabled: true },
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: DEFINITION_TABLE.index.map((i) =>
        Match.objectLike({
          IndexName: i.nom,
          KeySchema: [
            { AttributeName: i.partitionKey, KeyType: 'HASH' },
            { AttributeName: i.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        }),
      ),
    });
    // A dev stage can be destroyed.
    const [[, table]] = deType(s, 'AWS::DynamoDB::Table') as [[string, Ressource]];
    expect(table.DeletionPolicy).toBe('Delete');
  });

  it('keeps the bucket private and TLS-only, with 90-day results and ZIPs, short-lived inputs and uploads', () => {
    s.template.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      BucketEncryption: Match.objectLike({
        ServerSideEncryptionConfiguration: [Match.objectLike({ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } })],
      }),
    });
    const [[, bucket]] = deType(s, 'AWS::S3::Bucket') as [[string, Ressource]];
    // Every rule, exactly: a prefix without one would keep customers' photos forever.
    expect(bucket.Properties.LifecycleConfiguration).toEqual({
      Rules: [
        { Id: 'resultats-90-jours', Prefix: 'resultats/', ExpirationInDays: RETENTION_RESULTATS_JOURS, Status: 'Enabled' },
        { Id: 'zips-90-jours', Prefix: 'zips/', ExpirationInDays: RETENTION_RESULTATS_JOURS, Status: 'Enabled' },
        { Id: 'entrees', Prefix: 'entrees/', ExpirationInDays: RETENTION_ENTREES_JOURS, Status: 'Enabled' },
        // Direct uploads the sweeper missed go after a day (an unused one goes within minutes of its 30, core/domaine/televersements.ts).
        { Id: 'televersements', Prefix: 'televersements/', ExpirationInDays: RETENTION_TELEVERSEMENTS_JOURS, Status: 'Enabled' },
        { Id: 'envois-incomplets', AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 }, Status: 'Enabled' },
        // Results and ZIPs tagged with the days their job or batch has left (core/modele/retention.ts): a ZIP written
        // again on day 89 goes with its batch, not 90 days later (issue 21, point 6).
        ...Array.from({ length: RETENTION_RESULTATS_JOURS }, (_, i) => ({
          Id: `retention-jours-${i + 1}`,
          TagFilters: [{ Key: 'retention-jours', Value: String(i + 1) }],
          ExpirationInDays: i + 1,
          Status: 'Enabled',
        })),
      ],
    });
    expect([RETENTION_RESULTATS_JOURS, RETENTION_ENTREES_JOURS, RETENTION_TELEVERSEMENTS_JOURS]).toEqual([90, 7, 1]);
    // S3's limit is 1000 rules per bucket.
    expect(bucket.Properties.LifecycleConfiguration.Rules.length).toBeLessThan(1000);
    const prefixesExpires = (bucket.Properties.LifecycleConfiguration.Rules as { Prefix?: string }[]).flatMap((r) => (r.Prefix ? [r.Prefix] : []));
    expect(prefixesExpires.sort()).toEqual(Object.values(PREFIXES).sort());
    s.template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
      },
    });
  });

  it('lets browsers and curl PUT to the presigned upload URLs: CORS for PUT, nothing in the policy or encryption against it', () => {
    const [[, bucket]] = deType(s, 'AWS::S3::Bucket') as [[string, Ressource]];
    expect(bucket.Properties.CorsConfiguration).toEqual({
      CorsRules: [{ AllowedMethods: ['PUT'], AllowedOrigins: ['*'], AllowedHeaders: ['Content-Type', 'Content-Length'], MaxAge: 3000 }],
    });
    // SSE-S3: S3 encrypts by itself; a PUT needs no encryption header and no KMS grant.
    expect(bucket.Properties.BucketEncryption).toEqual({ ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] });
    // The bucket policy denies only plain HTTP and TLS under 1.2: a presigned HTTPS PUT passes both.
    const [[, politique]] = deType(s, 'AWS::S3::BucketPolicy') as [[string, Ressource]];
    const refus = (politique.Properties.PolicyDocument.Statement as { Effect: string; Condition?: unknown }[]).filter((d) => d.Effect === 'Deny');
    expect(refus.map((d) => d.Condition)).toEqual([{ Bool: { 'aws:SecureTransport': 'false' } }, { NumericLessThan: { 's3:TlsVersion': 1.2 } }]);
  });

  it('serves the web site from a private bucket through CloudFront, the API under the same origin, under a strict policy (issue 25, point 8)', () => {
    const [, distribution] = deType(s, 'AWS::CloudFront::Distribution').find(([id]) => id.startsWith('SiteDistribution'))!;
    const config = distribution.Properties.DistributionConfig;
    expect(config.DefaultCacheBehavior).toMatchObject({ ViewerProtocolPolicy: 'redirect-to-https', AllowedMethods: ['GET', 'HEAD'] });
    expect(config.DefaultCacheBehavior.TrustedKeyGroups).toBeUndefined();
    const api = config.CacheBehaviors.find((b: { PathPattern: string }) => b.PathPattern === '/api/*');
    expect(api).toMatchObject({
      ViewerProtocolPolicy: 'https-only',
      // CachingDisabled and AllViewerExceptHostHeader (AWS managed): answers are per account; the Authorization header reaches the API.
      CachePolicyId: '4135ea2d-6df8-44a3-9df3-4b5a84be39ad',
      OriginRequestPolicyId: 'b689b0a8-53d0-40ab-baf2-68738e2966ac',
    });
    expect(api.AllowedMethods).toEqual(expect.arrayContaining(['GET', 'POST', 'DELETE']));
    const origineApi = config.Origins.find((o: { Id: string }) => o.Id === api.TargetOriginId);
    // The stage's path (v1), read from the API's URL: /api/v1/… of the site reaches /v1/api/v1/… of API Gateway.
    expect(JSON.stringify(origineApi.OriginPath)).toContain('"Fn::Select":[3');
    // The site's bucket: private, reached through OAC only.
    const origineSite = config.Origins.find((o: { Id: string }) => o.Id === config.DefaultCacheBehavior.TargetOriginId);
    expect(origineSite.OriginAccessControlId).toBeDefined();
    const [, seau] = deType(s, 'AWS::S3::Bucket').find(([id]) => id.startsWith('SiteFichiers'))!;
    expect(seau.Properties.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    // The policy: no inline script, the user pool's Region and the bucket the studio PUTs photos to, the
    // result links' origin for images.
    const [, entetes] = deType(s, 'AWS::CloudFront::ResponseHeadersPolicy')[0]!;
    const csp = JSON.stringify(entetes.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig.ContentSecurityPolicy.ContentSecurityPolicy);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe');
    expect(csp).toContain(`connect-src 'self' https://cognito-idp.",{"Ref":"AWS::Region"}`);
    expect(csp).toContain(`.amazonaws.com https://",{"Fn::GetAtt":["${idDe(s, 'Stockage/Fichiers')}","RegionalDomainName"]}`);
    expect(csp).toContain(`img-src 'self' data: blob: https://",{"Fn::GetAtt":["${idDe(s, 'Liens/Distribution')}","DomainName"]}`);
    // /config.json from the stack's own values.
    const [, fonction] = deType(s, 'AWS::CloudFront::Function')[0]!;
    expect(JSON.stringify(fonction.Properties.FunctionCode)).toContain(idDe(s, 'Utilisateurs/Pool/Site'));
    const sorties = s.template.toJSON().Outputs as Record<string, unknown>;
    expect(Object.keys(sorties)).toEqual(expect.arrayContaining(['SiteUrl', 'SiteBucket', 'SiteDistributionId']));
  });

  it('serves results through CloudFront signed URLs (key group, OAC), the private key in Secrets Manager', () => {
    s.template.resourceCountIs('AWS::CloudFront::PublicKey', 1);
    s.template.resourceCountIs('AWS::CloudFront::KeyGroup', 1);
    // One per private bucket: the results' and the web site's.
    s.template.resourceCountIs('AWS::CloudFront::OriginAccessControl', 2);
    s.template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        DefaultCacheBehavior: Match.objectLike({
          TrustedKeyGroups: [{ Ref: Match.anyValue() }],
          ViewerProtocolPolicy: 'https-only',
          AllowedMethods: ['GET', 'HEAD'],
          // CachingDisabled (AWS managed policy): no edge copy outlives an erasure.
          CachePolicyId: '4135ea2d-6df8-44a3-9df3-4b5a84be39ad',
        }),
      }),
    });
    // The public key comes from the deploy-time key generator, never from the repository.
    const [[, cle]] = deType(s, 'AWS::CloudFront::PublicKey') as [[string, Ressource]];
    expect(JSON.stringify(cle.Properties.PublicKeyConfig.EncodedKey)).toContain('ClePublique');
    s.template.resourceCountIs('Custom::CleLiens', 1);

    // Exactly the functions that answer with links may read the key; the others cannot.
    const idSecret = idDe(s, 'Liens/ClePrivee');
    const signataires: string[] = [];
    for (const [chemin, [, f]] of fonctionsParChemin(s)) {
      const env = f.Properties.Environment.Variables as Record<string, unknown>;
      const lit = declarationsDuRole(s, f.Properties.Role['Fn::GetAtt'][0]).some(
        (d) => [d.Action].flat().includes('secretsmanager:GetSecretValue') && JSON.stringify(d.Resource) === JSON.stringify({ Ref: idSecret }),
      );
      expect(lit, chemin).toBe(env.RETOUCHE_LIENS_SECRET_ARN !== undefined || chemin.endsWith('/Liens/GenerateurCle/Resource'));
      if (env.RETOUCHE_LIENS_SECRET_ARN) {
        expect(env.RETOUCHE_LIENS_SECRET_ARN).toEqual({ Ref: idSecret });
        expect(JSON.stringify(env.RETOUCHE_LIENS_BASE)).toContain('DomainName');
        signataires.push(chemin.split('/')[2]!);
      }
    }
    // The three GET handlers that answer with result links; POST /travaux never has a result to link.
    // The webhook delivery function answers with them too (a delivery's data), and the webhook routes
    // derive the key of endpoints' secrets from the link key.
    expect(signataires.sort()).toEqual(['Livreur', 'Lot', 'Travail', 'TravauxListe', 'Webhooks']);
  });

  it('grants each function only the actions its code calls, on the table, prefixes and machine it uses', () => {
    const attendu: Record<string, string[]> = {
      'Api/Outils': [],
      'Api/Solde': ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
      'Api/Travail': ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'secretsmanager:GetSecretValue'],
      'Api/TravauxCreer': [
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        's3:DeleteObject',
        's3:GetObject',
        's3:PutObject',
        'states:StartExecution',
      ],
      'Api/TeleversementsCreer': ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 's3:PutObject'],
      'Flux/Preparer': ['dynamodb:GetItem', 'dynamodb:UpdateItem', 's3:PutObject'],
      // The listing text comes by its S3 key (pipeline/etape.ts): read under resultats/ only.
      // Query (gsi1) and PutItem of deliveries, SendMessage: a job's end announced to the account's webhooks.
      'Flux/Enregistrer': ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:UpdateItem', 's3:GetObject', 'sqs:SendMessage'],
      'Flux/Rembourser': ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:UpdateItem', 'sqs:SendMessage'],
      // The delivery, its endpoint, the job or batch it is about, the link key (fresh links), the next attempt.
      'Webhooks/Livreur': [
        'dynamodb:BatchGetItem',
        'dynamodb:DeleteItem',
        'dynamodb:GetItem',
        'dynamodb:UpdateItem',
        'secretsmanager:GetSecretValue',
        'sqs:ChangeMessageVisibility',
        'sqs:DeleteMessage',
        'sqs:GetQueueAttributes',
        'sqs:GetQueueUrl',
        'sqs:ReceiveMessage',
        'sqs:SendMessage',
      ],
      'Flux/Outil': [
        'bedrock:InvokeModel',
        'dynamodb:GetItem',
        ...ACTIONS_REKOGNITION,
        's3:GetObject',
        's3:PutObject',
        's3:PutObjectTagging',
        'secretsmanager:GetSecretValue',
      ],
      'Flux/Balayeur': [
        'dynamodb:BatchGetItem',
        'dynamodb:ConditionCheckItem',
        'dynamodb:DeleteItem',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
        's3:AbortMultipartUpload',
        's3:DeleteObject',
        's3:GetObject',
        's3:PutObject',
        's3:PutObjectTagging',
        'sqs:SendMessage',
        'states:DescribeExecution',
        'states:StartExecution',
      ],
      // Erasure: records its jobs and batches may be deleted, never an account or a key (see below).
      'Api/TravailEffacer': ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 's3:DeleteObject'],
      'Api/LotEffacer': ['dynamodb:BatchGetItem', 'dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 's3:DeleteObject'],
    };
    const journaux = ['logs:CreateLogStream', 'logs:PutLogEvents'];
    for (const [chemin, actions] of Object.entries(attendu)) {
      const [, f] = fonctionDuModule(s, chemin);
      const declarations = declarationsDuRole(s, f.Properties.Role['Fn::GetAtt'][0]);
      expect(actionsDe(declarations), chemin).toEqual([...actions, ...journaux].sort());
      for (const d of declarations) {
        const actionsD = [d.Action].flat();
        // "*" only where AWS accepts nothing else (Rekognition's DetectLabels).
        if (d.Resource === '*')
          expect(
            actionsD.every((a) => ACTIONS_REKOGNITION.includes(a)),
            chemin,
          ).toBe(true);
        expect(
          actionsD.some((a) => a.endsWith(':*')),
          chemin,
        ).toBe(false);
      }
    }
    // Queries name their index: no `/index/*`.
    const [, liste] = fonctionDuModule(s, 'Api/TravauxListe');
    const requete = declarationsDuRole(s, liste.Properties.Role['Fn::GetAtt'][0]).find((d) => [d.Action].flat().includes('dynamodb:Query'))!;
    const texte = JSON.stringify(requete.Resource);
    expect(texte).toContain(`/index/${INDEX.parCompte}`);
    expect(texte).toContain(`/index/${INDEX.parOutil}`);
    expect(texte).not.toContain('/index/*');
    // S3 grants are per prefix.
    const [, outil] = fonctionDuModule(s, 'Flux/Outil');
    const s3 = JSON.stringify(declarationsDuRole(s, outil.Properties.Role['Fn::GetAtt'][0]).filter((d) => String(d.Action).startsWith('s3:')));
    expect(s3).toContain('/entrees/*');
    expect(s3).toContain('/televersements/*');
    expect(s3).toContain('/resultats/*');
    expect(s3).not.toContain('/zips/*');
  });

  it('reaches the uploads prefix from exactly these functions: POST /televersements signs PUTs, POST /travaux and the tool step read, erasure deletes', () => {
    // Every role of the stack, every action it has on televersements/*.
    const televersements = `/${PREFIXES.televersements}*`;
    const parRole: Record<string, string[]> = {};
    for (const [, p] of deType(s, 'AWS::IAM::Policy')) {
      for (const d of p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[]) {
        if (!JSON.stringify(d.Resource).includes(televersements)) continue;
        for (const role of p.Properties.Roles as { Ref: string }[]) (parRole[role.Ref] ??= []).push(...[d.Action].flat());
      }
    }
    const role = (chemin: string) => fonctionDuModule(s, chemin)[1].Properties.Role['Fn::GetAtt'][0] as string;
    expect(parRole).toEqual({
      [role('Api/TeleversementsCreer')]: ['s3:PutObject'],
      [role('Api/TravauxCreer')]: ['s3:GetObject'],
      [role('Flux/Outil')]: ['s3:GetObject'],
      [role('Api/TravailEffacer')]: ['s3:DeleteObject'],
      [role('Api/LotEffacer')]: ['s3:DeleteObject'],
      [role('Flux/Balayeur')]: ['s3:DeleteObject'],
    });
    // Nothing else on the bucket can reach it either (bucket-wide or `/*` grants).
    const bucketEntier = JSON.stringify({ 'Fn::GetAtt': [idDe(s, 'Stockage/Fichiers'), 'Arn'] });
    for (const [id, p] of deType(s, 'AWS::IAM::Policy')) {
      for (const d of p.Properties.PolicyDocument.Statement as { Resource: unknown }[]) {
        const texte = JSON.stringify(d.Resource);
        expect(texte.includes(`${bucketEntier},"/*"`) || texte === bucketEntier, id).toBe(false);
      }
    }
  });

  it('lets erasure delete jobs, batches and its own requests, and keep tombstones — never an account or a key', () => {
    const r = references(s);
    for (const chemin of ['Api/TravailEffacer', 'Api/LotEffacer']) {
      expect(declarationsMetier(s, chemin), chemin).toEqual(
        trier([
          // The caller's key or session, the job or batch, the batch's jobs.
          lecture(r.table, chemin === 'Api/LotEffacer' ? ['BatchGetItem', 'GetItem'] : ['GetItem'], ['cle', 'utilisateur', 'travail', 'lot']),
          // The rate window; the batch it claims and takes the job out of; the Idempotency-Key it keeps without its answer.
          ecriture(r.table, 'UpdateItem', ['cadence', 'lot', 'idempotence']),
          // Its request, recorded first; each upload's nameless tombstone; the job's movements, anonymous.
          ecriture(r.table, 'PutItem', ['effacement', 'televersement', 'mouvement']),
          ecriture(r.table, 'DeleteItem', ['travail', 'lot', 'effacement']),
          // Keys are known from the records: the bucket is never listed.
          { Action: ['s3:DeleteObject'], Resource: [r.objets('entrees'), r.objets('resultats'), r.objets('televersements'), r.objets('zips')] },
        ]),
      );
    }
  });

  it('lets the tool step read inputs where they are, inline or uploaded, and write results', () => {
    const r = references(s);
    const modeles = ['bedrock:InvokeModel', ...ACTIONS_REKOGNITION];
    expect(declarationsMetier(s, 'Flux/Outil').filter((d) => !modeles.some((a) => d.Action.includes(a)))).toEqual(
      trier([
        // Its job, and no other kind of item.
        lecture(r.table, ['GetItem'], ['travail']),
        { Action: ['s3:GetObject'], Resource: [r.objets('entrees'), r.objets('televersements')] },
        // Tagged with the days its job has left (core/modele/retention.ts).
        { Action: ['s3:PutObject', 's3:PutObjectTagging'], Resource: [r.objets('resultats')] },
        // The C2PA key, to sign every result; not the link key.
        { Action: ['secretsmanager:GetSecretValue'], Resource: [r.secretC2pa] },
      ]),
    );
    // The step that fetches URLs is unchanged: it writes inputs, reads nothing from S3.
    expect(declarationsMetier(s, 'Flux/Preparer')).toEqual(
      trier([
        // It reads its job and marks it en_cours, and nothing else (issue 21, point 8; issue 40, point 7): one
        // statement, as CDK merges the read and the write of the same kind.
        { ...ecriture(r.table, 'UpdateItem', ['travail']), Action: ['dynamodb:GetItem', 'dynamodb:UpdateItem'] },
        { Action: ['s3:PutObject'], Resource: [r.objets('entrees')] },
      ]),
    );
  });

  it('lets the authenticated GET handlers write their rate-window items and nothing else', () => {
    // The condition covers the keys the rate limiter writes, and not an account's.
    expect(cleCadence('empreinte', 29_000_000).pk.startsWith(PREFIXE_CADENCE)).toBe(true);
    expect(cleCompte('compte').pk.startsWith(PREFIXE_CADENCE)).toBe(false);
    const r = references(s);
    const cadence = { Action: ['dynamodb:UpdateItem'], Resource: [r.table], Condition: MISE_A_JOUR_CADENCE };
    const signer = { Action: ['secretsmanager:GetSecretValue'], Resource: [r.secret] };
    // Each reads the caller's key (or a session's user) and what it shows: no other kind of item (issue 40, point 7).
    const authentification = ['cle', 'utilisateur'] as const;
    expect(declarationsMetier(s, 'Api/Solde')).toEqual(trier([lecture(r.table, ['GetItem'], [...authentification, 'compte']), cadence]));
    expect(declarationsMetier(s, 'Api/Travail')).toEqual(trier([lecture(r.table, ['GetItem'], [...authentification, 'travail']), cadence, signer]));
    expect(declarationsMetier(s, 'Api/Lot')).toEqual(
      trier([lecture(r.table, ['BatchGetItem', 'GetItem'], [...authentification, 'lot', 'travail']), cadence, signer]),
    );
    expect(declarationsMetier(s, 'Api/TravauxListe')).toEqual(
      trier([
        lecture(r.table, ['GetItem'], [...authentification]),
        // The account's partitions of gsi1 and gsi2 (COMPTE#<account>[#TEST][#<tool>]).
        requete([r.index(INDEX.parCompte), r.index(INDEX.parOutil)], ['compte']),
        cadence,
        signer,
      ]),
    );
    // Whatever GET routes routes.ts adds later: no write without the condition. GET /compte is apart:
    // it makes a user's account at their first visit (the next test); so is a function that also serves
    // other methods (the webhook routes'), whose writes are those of its POST and DELETE.
    const get = [
      ...new Set(
        ROUTES.filter(
          (route) =>
            route.methode === 'GET' && !ROUTES.some((autre) => autre.fonction === route.fonction && autre.methode !== 'GET') && route.fonction !== 'compte',
        ).map((route) => route.fonction),
      ),
    ];
    expect(get).toEqual(expect.arrayContaining(['solde', 'travaux-liste', 'travail', 'lot']));
    let verifiees = 0;
    for (const fonction of get) {
      for (const d of declarationsMetier(s, `Api/${nomConstruct(fonction)}`)) {
        const ecritures = d.Action.filter((a) => /^dynamodb:(UpdateItem|PutItem|DeleteItem|BatchWriteItem|ConditionCheckItem)$/.test(a));
        if (ecritures.length > 0) {
          expect(d, fonction).toEqual(cadence);
          verifiees++;
        }
      }
    }
    // The authenticated GET routes do write (their rate window): the loop above checked those writes, not nothing.
    expect(verifiees).toBeGreaterThanOrEqual(4);
  });

  it("lets the web site's account routes write what they make, and only the two key routes write keys (issue 25)", () => {
    const r = references(s);
    const cadence = { Action: ['dynamodb:UpdateItem'], Resource: [r.table], Condition: MISE_A_JOUR_CADENCE };
    // Sessions only: the user's link to their account, never a key read to authenticate (issue 40, point 7).
    const session = lecture(r.table, ['GetItem'], ['utilisateur']);
    // A user's link, their account and the record of its sign-up credits, created together at the first visit; never updated here.
    expect(declarationsMetier(s, 'Api/Compte')).toEqual(
      trier([lecture(r.table, ['GetItem'], ['utilisateur', 'compte']), cadence, ecriture(r.table, 'PutItem', ['apport', 'compte', 'utilisateur'])]),
    );
    expect(declarationsMetier(s, 'Api/Mouvements')).toEqual(
      trier([lecture(r.table, ['GetItem'], ['utilisateur', 'compte']), cadence, requete([r.index(INDEX.parCompte)], ['compte'])]),
    );
    // Stripe's webhook: a purchase's record, its payment and the balance it raises; a refund or dispute reads the payment
    // and updates it with the balance and a record of what was taken back. No job or key.
    expect(declarationsMetier(s, 'Api/PaiementStripe')).toEqual(
      trier([
        lecture(r.table, ['GetItem'], ['paiement']),
        ecriture(r.table, 'UpdateItem', ['compte', 'paiement']),
        ecriture(r.table, 'PutItem', ['apport', 'paiement']),
      ]),
    );
    // The keys listed from the account's partition of gsi1; when each was last used, its CADENCE# item.
    expect(declarationsMetier(s, 'Api/ClesListe')).toEqual(
      trier([lecture(r.table, ['BatchGetItem', 'GetItem'], ['utilisateur', 'cadence']), requete([r.index(INDEX.parCompte)], ['compte']), cadence]),
    );
    expect(declarationsMetier(s, 'Api/ClesCreer')).toEqual(
      trier([session, ecriture(r.table, 'UpdateItem', ['cadence', 'compte']), ecriture(r.table, 'PutItem', ['cle'])]),
    );
    // The key it revokes, by its hash.
    expect(declarationsMetier(s, 'Api/CleRevoquer')).toEqual(
      trier([lecture(r.table, ['GetItem'], ['utilisateur', 'cle']), ecriture(r.table, 'UpdateItem', ['cadence', 'cle', 'compte'])]),
    );
  });

  it("puts the web site's own routes behind the user pool's authorizer, and gives every authenticating function the pool's issuer and client", () => {
    const [idAutorisateur, autorisateur] = deType(s, 'AWS::ApiGateway::Authorizer')[0]!;
    expect(autorisateur.Properties).toMatchObject({ Type: 'COGNITO_USER_POOLS', IdentitySource: 'method.request.header.Authorization' });
    expect(autorisateur.Properties.ProviderARNs).toEqual([{ 'Fn::GetAtt': [idDe(s, 'Utilisateurs/Pool'), 'Arn'] }]);
    const methodes = deType(s, 'AWS::ApiGateway::Method').filter(([, m]) => m.Properties.HttpMethod !== 'ANY');
    const protegees = methodes.filter(([, m]) => m.Properties.AuthorizationType === 'COGNITO_USER_POOLS');
    expect(protegees).toHaveLength(ROUTES.filter((route) => route.session).length);
    for (const [, m] of protegees) expect(m.Properties.AuthorizerId).toEqual({ Ref: idAutorisateur });
    for (const route of ROUTES.filter((x) => x.authentifiee)) {
      const env = fonctionDuModule(s, `Api/${nomConstruct(route.fonction)}`)[1].Properties.Environment.Variables as Record<string, unknown>;
      expect(env.RETOUCHE_SESSION_CLIENT, route.fonction).toEqual({ Ref: idDe(s, 'Utilisateurs/Pool/Site') });
      expect(JSON.stringify(env.RETOUCHE_SESSION_EMETTEUR), route.fonction).toContain('cognito-idp.');
    }
    const [, compte] = fonctionDuModule(s, 'Api/Compte');
    expect(compte.Properties.Environment.Variables.RETOUCHE_CREDITS_INSCRIPTION).toBe('0');
    const [, pool] = deType(s, 'AWS::Cognito::UserPool')[0]!;
    expect(pool.Properties).toMatchObject({
      UsernameAttributes: ['email'],
      AutoVerifiedAttributes: ['email'],
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: false },
      Policies: { PasswordPolicy: { MinimumLength: 8, RequireUppercase: true, RequireLowercase: true, RequireNumbers: true } },
      AccountRecoverySetting: { RecoveryMechanisms: [{ Name: 'verified_email', Priority: 1 }] },
    });
    const [, client] = deType(s, 'AWS::Cognito::UserPoolClient')[0]!;
    expect(client.Properties).toMatchObject({ GenerateSecret: false, PreventUserExistenceErrors: 'ENABLED', EnableTokenRevocation: true });
    expect(client.Properties.ExplicitAuthFlows).toEqual(expect.arrayContaining(['ALLOW_USER_PASSWORD_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH']));
    // Issue 40: no OAuth flow nor callback the site does not use (CDK's default: code and implicit grants to
    // https://example.com), and no MFA the site cannot enrol nor answer (a user who turned it on was locked out).
    expect(client.Properties.AllowedOAuthFlows).toBeUndefined();
    expect(client.Properties.CallbackURLs).toBeUndefined();
    expect(client.Properties.AllowedOAuthFlowsUserPoolClient).toBe(false);
    expect(pool.Properties.MfaConfiguration).toBe('OFF');
    // A development stage without a sender named keeps Cognito's own (50 a day).
    expect(pool.Properties.EmailConfiguration).toEqual({ EmailSendingAccount: 'COGNITO_DEFAULT' });
  });

  it("sends the user pool's codes through SES from the address a stage names, and refuses a production stage without one", () => {
    const avecSes = synthetiser({ stage: 'recette', emailExpediteur: 'no-reply@retouche.example' });
    const [, pool] = deType(avecSes, 'AWS::Cognito::UserPool')[0]!;
    expect(pool.Properties.EmailConfiguration).toMatchObject({
      EmailSendingAccount: 'DEVELOPER',
      From: 'Retouche <no-reply@retouche.example>',
    });
    expect(JSON.stringify(pool.Properties.EmailConfiguration.SourceArn)).toContain(':identity/retouche.example');
    expect(() => synthetiser({ stage: 'prod' })).toThrow(/production stage: name the address .*-c emailExpediteur=/);
    expect(() => synthetiser({ stage: 'dev', production: 'true' })).toThrow(/-c emailExpediteur=/);
    expect(() => synthetiser({ stage: 'dev', emailExpediteur: 'nobody' })).toThrow(/emailExpediteur must be an e-mail address/);
  });

  it('lets the MCP server read the key it authenticates and count the call, and nothing more: its tools go through the API', () => {
    const r = references(s);
    expect(declarationsMetier(s, 'Api/Mcp')).toEqual(
      trier([
        // The key (a session's user, to refuse it).
        lecture(r.table, ['GetItem'], ['cle', 'utilisateur']),
        { Action: ['dynamodb:UpdateItem'], Resource: [r.table], Condition: MISE_A_JOUR_CADENCE },
      ]),
    );
    const [, mcp] = fonctionDuModule(s, 'Api/Mcp');
    // Its one wait (15 s) and the API calls around it end before API Gateway's 29 s.
    expect(mcp.Properties.Timeout).toBe(27);
    // The stage's own API, built from the RestApi's id (not its deployment: no cycle through the methods).
    const url = JSON.stringify(mcp.Properties.Environment.Variables.RETOUCHE_API_URL);
    expect(url).toContain('.execute-api.');
    expect(url).toContain('/v1/api/v1');
    expect(url).not.toContain('Deployment');
  });

  it('lets POST /travaux debit, record and start jobs, in 20 s, without reading jobs back or refunding', () => {
    const [, creer] = fonctionDuModule(s, 'Api/TravauxCreer');
    // Under API Gateway's 29 s, with time to answer after a debit.
    expect(creer.Properties.Timeout).toBe(20);
    const r = references(s);
    expect(declarationsMetier(s, 'Api/TravauxCreer')).toEqual(
      trier([
        // The key and its account, a stored answer, an upload and whether a job uses it, a job to reread.
        lecture(r.table, ['GetItem'], ['cle', 'utilisateur', 'compte', 'idempotence', 'televersement', 'travail']),
        // The rate window and the debit of the account; jobs (and listings' claims on uploads), the batch, the Idempotency-Key.
        ecriture(r.table, 'UpdateItem', ['cadence', 'compte']),
        ecriture(r.table, 'PutItem', ['travail', 'lot', 'idempotence']),
        { Action: ['s3:DeleteObject', 's3:PutObject'], Resource: [r.objets('entrees')] },
        // An image given as an upload id: its first bytes are read (format, pixel size), never written.
        { Action: ['s3:GetObject'], Resource: [r.objets('televersements')] },
        { Action: ['states:StartExecution'], Resource: [r.machine] },
      ]),
    );
  });

  it('lets POST /televersements create upload records and sign PUTs under televersements/, and nothing else', () => {
    const [, fn] = fonctionDuModule(s, 'Api/TeleversementsCreer');
    expect(fn.Properties.MemorySize).toBeGreaterThanOrEqual(256);
    expect(fn.Properties.MemorySize).toBeLessThanOrEqual(512);
    expect(fn.Properties.Timeout).toBe(10);
    const r = references(s);
    // Like the other API functions: table and bucket; no link key, no state machine.
    const env = fn.Properties.Environment.Variables as Record<string, unknown>;
    expect(
      Object.keys(env)
        .filter((k) => k.startsWith('RETOUCHE_'))
        .sort(),
    ).toEqual(['RETOUCHE_BUCKET', 'RETOUCHE_SESSION_CLIENT', 'RETOUCHE_SESSION_EMETTEUR', 'RETOUCHE_TABLE']);
    expect(env.RETOUCHE_TABLE).toEqual({ Ref: idDe(s, 'Donnees/Table') });
    expect(env.RETOUCHE_BUCKET).toEqual({ Ref: idDe(s, 'Stockage/Fichiers') });

    const cadence = ecriture(r.table, 'UpdateItem', ['cadence', 'compte']);
    const creation = { Action: ['dynamodb:PutItem'], Resource: [r.table], Condition: CREATION_TELEVERSEMENT };
    expect(declarationsMetier(s, 'Api/TeleversementsCreer')).toEqual(
      trier([
        // Authentication reads the key (or a session's user), and nothing else.
        lecture(r.table, ['GetItem'], ['cle', 'utilisateur']),
        // The rate window, as the GET handlers count it, and the account's count of outstanding uploads.
        cadence,
        // Upload records (the Puts of its TransactWriteItems): no account, job or batch.
        creation,
        // A presigned URL carries its signer's rights: PUT under the uploads prefix, nothing else.
        { Action: ['s3:PutObject'], Resource: [r.objets('televersements')] },
      ]),
    );
    // No write of the table without its prefix condition.
    for (const d of declarationsMetier(s, 'Api/TeleversementsCreer')) {
      if (d.Action.some((a) => /^dynamodb:(UpdateItem|PutItem|DeleteItem|BatchWriteItem|ConditionCheckItem)$/.test(a))) {
        expect([cadence, creation]).toContainEqual(d);
      }
    }
    // The conditions cover the keys the code writes, and none of the records it must not touch.
    expect(cleTeleversement('7d0f3c2a-0000-4000-8000-000000000000').pk.startsWith(PREFIXE_TELEVERSEMENT)).toBe(true);
    expect(cleCadence('empreinte', 29_000_000).pk.startsWith(PREFIXE_CADENCE)).toBe(true);
    for (const cle of [cleApi('e'), cleTravail('t'), cleLot('l'), cleIdempotence('c', 'k')]) {
      expect(cle.pk.startsWith(PREFIXE_TELEVERSEMENT), cle.pk).toBe(false);
      expect(cle.pk.startsWith(PREFIXE_CADENCE), cle.pk).toBe(false);
    }
  });

  it('runs the sweeper every minute, one at a time, with exactly the grants it needs', () => {
    const [idBalayeur, balayeur] = fonctionDuModule(s, 'Flux/Balayeur');
    expect(balayeur.Properties).toMatchObject({
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      MemorySize: 1024,
      Timeout: 600,
    });
    // One at a time by its turn in the table (core/depots/tour-balayage.ts), not by a reserved concurrency:
    // Lambda refuses a reservation that leaves an account under 100 unreserved executions, and a new
    // account's quota is often 10, so any reservation failed the whole stack there (issue 40).
    expect(balayeur.Properties.ReservedConcurrentExecutions).toBeUndefined();
    expect(deType(s, 'AWS::Lambda::Function').filter(([, f]) => f.Properties.ReservedConcurrentExecutions !== undefined)).toEqual([]);
    const r = references(s);
    const env = balayeur.Properties.Environment.Variables as Record<string, unknown>;
    expect(
      Object.keys(env)
        .filter((k) => k.startsWith('RETOUCHE_'))
        .sort(),
    ).toEqual(['RETOUCHE_BUCKET', 'RETOUCHE_MACHINE_ARN', 'RETOUCHE_TABLE', 'RETOUCHE_WEBHOOKS_FILE_URL']);
    expect(env.RETOUCHE_MACHINE_ARN).toEqual(r.machine);
    expect(env.RETOUCHE_TABLE).toEqual({ Ref: idDe(s, 'Donnees/Table') });

    const regles = deType(s, 'AWS::Events::Rule').map(([, regle]) => regle.Properties);
    expect(regles).toEqual([
      expect.objectContaining({
        ScheduleExpression: 'rate(1 minute)',
        State: 'ENABLED',
        Targets: [{ Arn: { 'Fn::GetAtt': [idBalayeur, 'Arn'] }, Id: 'Target0', RetryPolicy: { MaximumRetryAttempts: 0 } }],
      }),
    ]);
    // A tick that finds it busy is dropped, not queued behind it.
    s.template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: idBalayeur },
      MaximumEventAgeInSeconds: 60,
      MaximumRetryAttempts: 0,
    });

    expect(declarationsMetier(s, 'Flux/Balayeur')).toEqual(
      trier([
        // The records the open work names (a delivery made before, when it announces again): no account, key or payment.
        lecture(r.table, ['BatchGetItem', 'ConditionCheckItem', 'GetItem'], ['effacement', 'livraison', 'lot', 'televersement', 'travail']),
        // gsi3: the open work, by its partitions; gsi1: the account's webhooks, to announce what it ends.
        requete([r.index(INDEX.parCompte), r.index(INDEX.ouverts)], ['compte', ...Object.values(OUVERTS)]),
        // Jobs, accounts (refunds, uploads uncounted), uploads, its own turn, and what an erasure updates: never a key.
        ecriture(r.table, 'UpdateItem', ['travail', 'compte', 'televersement', 'tour', 'lot', 'idempotence']),
        ecriture(r.table, 'PutItem', ['effacement', 'televersement', 'mouvement', 'livraison']),
        ecriture(r.table, 'DeleteItem', ['televersement', 'travail', 'lot', 'effacement']),
        { Action: ['s3:GetObject'], Resource: [r.objets('resultats')] },
        { Action: ['s3:AbortMultipartUpload', 's3:PutObject', 's3:PutObjectTagging'], Resource: [r.objets('zips')] },
        // Erasures recorded while their work ran (core/domaine/effacement/), unused uploads.
        { Action: ['s3:DeleteObject'], Resource: [r.objets('entrees'), r.objets('resultats'), r.objets('televersements'), r.objets('zips')] },
        { Action: ['states:StartExecution'], Resource: [r.machine] },
        // The executions of this state machine only.
        { Action: ['states:DescribeExecution'], Resource: [r.executions] },
        { Action: ['sqs:SendMessage'], Resource: [{ 'Fn::GetAtt': [idDe(s, 'Webhooks/File'), 'Arn'] }] },
      ]),
    );
    expect(INDEX.ouverts).toBe('gsi3');
  });

  it('delivers webhooks through a queue with a dead-letter queue and an alarm; the delivery function alone consumes it; no stage delivers to loopback', () => {
    const [idFile, file] = deType(s, 'AWS::SQS::Queue').find(([id]) => id === idDe(s, 'Webhooks/File'))!;
    const idEchecs = idDe(s, 'Webhooks/Echecs');
    // Received 5 times without being handled (our side failing): parked in the dead-letter queue, kept 14 days.
    expect(file.Properties).toMatchObject({
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [idEchecs, 'Arn'] }, maxReceiveCount: 5 },
      SqsManagedSseEnabled: true,
      VisibilityTimeout: 360,
    });
    s.template.hasResourceProperties('AWS::SQS::Queue', { MessageRetentionPeriod: 14 * 24 * 3600, SqsManagedSseEnabled: true });
    // Both queues refuse requests without TLS.
    expect(deType(s, 'AWS::SQS::QueuePolicy')).toHaveLength(2);
    const [idLivreur, livreur] = fonctionDuModule(s, 'Webhooks/Livreur');
    expect(livreur.Properties).toMatchObject({ Runtime: 'nodejs24.x', Architectures: ['arm64'], Timeout: 60 });
    expect(deType(s, 'AWS::Lambda::EventSourceMapping').map(([, m]) => m.Properties)).toEqual([
      expect.objectContaining({
        EventSourceArn: { 'Fn::GetAtt': [idFile, 'Arn'] },
        FunctionName: { Ref: idLivreur },
        BatchSize: 10,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        ScalingConfig: { MaximumConcurrency: CONCURRENCE_MAX_LIVREUR },
      }),
    ]);
    const alarme = deType(s, 'AWS::CloudWatch::Alarm').find(([, a]) => JSON.stringify(a.Properties.Dimensions ?? []).includes(idEchecs));
    expect(alarme?.[1].Properties).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Namespace: 'AWS/SQS',
      Threshold: SEUILS.livraisonsEnEchec,
    });
    // Who may send to the queue: the steps that end a job or a batch, the sweeper, the webhook routes, the delivery function.
    const envoyeurs = [...fonctionsParChemin(s)]
      .filter(([, [, f]]) => (f.Properties.Environment?.Variables as Record<string, unknown> | undefined)?.RETOUCHE_WEBHOOKS_FILE_URL)
      .map(([chemin]) => chemin.split('/').slice(1, 3).join('/'))
      .sort();
    expect(envoyeurs).toEqual(['Api/Webhooks', 'Flux/Balayeur', 'Flux/Enregistrer', 'Flux/FinaliserLot', 'Flux/Rembourser', 'Webhooks/Livreur']);
    // The loopback allowance is never in a stage's environment, and a synth with it set stops.
    expect(JSON.stringify(s.template.toJSON())).not.toContain('RETOUCHE_WEBHOOKS_ALLOW_LOOPBACK');
    process.env.RETOUCHE_WEBHOOKS_ALLOW_LOOPBACK = '1';
    try {
      expect(() => synthetiser({ stage: 'dev' })).toThrow(/RETOUCHE_WEBHOOKS_ALLOW_LOOPBACK is for a local stack/);
    } finally {
      delete process.env.RETOUCHE_WEBHOOKS_ALLOW_LOOPBACK;
    }
  });

  it("bounds every DynamoDB write of every role to the kinds of item it writes, and lets no role but the web site's key routes write an API key (issue 21, point 8)", () => {
    const rolesDesCles = ['Api/ClesCreer', 'Api/CleRevoquer'].map((chemin) => fonctionDuModule(s, chemin)[1].Properties.Role['Fn::GetAtt'][0] as string);
    let ecritures = 0;
    for (const [id, p] of deType(s, 'AWS::IAM::Policy')) {
      for (const d of p.Properties.PolicyDocument.Statement as { Action: string | string[]; Condition?: Record<string, Record<string, string[]>> }[]) {
        const actions = [d.Action].flat();
        if (!actions.some((a) => /^dynamodb:(PutItem|UpdateItem|DeleteItem|BatchWriteItem)$/.test(a))) continue;
        ecritures++;
        const prefixes = d.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'];
        expect(prefixes, `${id}: ${actions.join(', ')}`).toBeDefined();
        expect(prefixes!.length).toBeGreaterThan(0);
        expect(
          prefixes!.every((pref) => Object.values(PREFIXES_TABLE).some((connu) => pref === `${connu}*`)),
          `${id}: ${prefixes}`,
        ).toBe(true);
        const role = (p.Properties.Roles as { Ref: string }[]).map((x) => x.Ref);
        if (!role.some((x) => rolesDesCles.includes(x))) expect(prefixes, id).not.toContain(`${PREFIXES_TABLE.cle}*`);
      }
    }
    expect(ecritures).toBeGreaterThan(10);
    // The link key generator: what cle-liens.ts calls, no Describe or Update of the secret.
    const [, generateur] = [...fonctionsParChemin(s)].find(([chemin]) => chemin.endsWith('/Liens/GenerateurCle/Resource'))!;
    const secrets = declarationsDuRole(s, generateur[1].Properties.Role['Fn::GetAtt'][0]).filter((d) =>
      [d.Action].flat().some((a) => a.startsWith('secretsmanager:')),
    );
    expect(secrets.flatMap((d) => [d.Action].flat()).sort()).toEqual(['secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue']);
  });

  it('bounds every DynamoDB read of every role to the kinds of item and index partitions it reads: API keys by the routes that authenticate one (issue 40, point 7)', () => {
    const role = (chemin: string) => fonctionDuModule(s, chemin)[1].Properties.Role['Fn::GetAtt'][0] as string;
    const lecteurs: Record<string, string[]> = {};
    let lectures = 0;
    for (const [id, p] of deType(s, 'AWS::IAM::Policy')) {
      for (const d of p.Properties.PolicyDocument.Statement as { Action: string | string[]; Condition?: Record<string, Record<string, string[]>> }[]) {
        const actions = [d.Action].flat();
        // Scan names no partition: LeadingKeys cannot bound it, and no function scans.
        expect(actions, id).not.toContain('dynamodb:Scan');
        expect(actions, id).not.toContain('dynamodb:PartiQLSelect');
        if (!actions.some((a) => /^dynamodb:(GetItem|BatchGetItem|Query|ConditionCheckItem)$/.test(a))) continue;
        lectures++;
        expect(Object.keys(d.Condition ?? {}), `${id}: ${actions.join(', ')}`).toEqual(['ForAllValues:StringLike']);
        const prefixes = d.Condition!['ForAllValues:StringLike']!['dynamodb:LeadingKeys'];
        expect(prefixes?.length, `${id}: ${actions.join(', ')}`).toBeGreaterThan(0);
        // An item kind's prefix; a query of gsi3 names its open-work partitions exactly.
        const connus = [...Object.values(PREFIXES_TABLE).map((x) => `${x}*`), ...(actions.includes('dynamodb:Query') ? Object.values(OUVERTS) : [])];
        expect(
          prefixes!.filter((x) => !connus.includes(x)),
          `${id}: ${prefixes}`,
        ).toEqual([]);
        // Query on the indexes only, the item reads on the table only.
        expect(actions.length === 1 || !actions.includes('dynamodb:Query'), id).toBe(true);
        expect(JSON.stringify(d).includes('/index/'), id).toBe(actions.includes('dynamodb:Query'));
        for (const x of prefixes!) for (const r of p.Properties.Roles as { Ref: string }[]) (lecteurs[x] ??= []).push(r.Ref);
      }
    }
    expect(lectures).toBeGreaterThan(20);
    // Every entry of LECTURES is some function's: as many roles read as there are entries.
    const roles = new Set(Object.values(lecteurs).flat());
    expect(roles.size).toBe(Object.keys(LECTURES).length);
    const par = (prefixe: string) => [...new Set(lecteurs[prefixe])].sort();
    // An API key's record (its hash, its account): the routes that take a key, and the one that revokes keys. Not the
    // job steps, the delivery function, Stripe's webhook, nor the web site's other routes (sessions only).
    expect(par(`${PREFIXES_TABLE.cle}*`)).toEqual(
      [
        'Api/Solde',
        'Api/TravauxListe',
        'Api/Travail',
        'Api/Lot',
        'Api/TravauxCreer',
        'Api/TeleversementsCreer',
        'Api/TravailEffacer',
        'Api/LotEffacer',
        'Api/Webhooks',
        'Api/Mcp',
        'Api/CleRevoquer',
      ]
        .map(role)
        .sort(),
    );
    // A payment: Stripe's webhook alone.
    expect(par(`${PREFIXES_TABLE.paiement}*`)).toEqual([role('Api/PaiementStripe')]);
  });

  it('grants no action wildcard (no states:*, dynamodb:*, s3:*) to any role', () => {
    for (const [id, p] of deType(s, 'AWS::IAM::Policy')) {
      for (const d of p.Properties.PolicyDocument.Statement as { Action: string | string[] }[]) {
        for (const action of [d.Action].flat()) expect(action, id).not.toMatch(/\*/);
      }
    }
  });

  it('grants bedrock:InvokeModel on the configured models and profiles only', () => {
    const [, outil] = fonctionDuModule(s, 'Flux/Outil');
    const bedrock = declarationsDuRole(s, outil.Properties.Role['Fn::GetAtt'][0]).find((d) => d.Action === 'bedrock:InvokeModel')!;
    const ressources = JSON.stringify(bedrock.Resource);
    expect(ressources).toContain('inference-profile/us.stability.stable-image-inpaint-v1:0');
    expect(ressources).toContain('foundation-model/stability.stable-image-inpaint-v1:0');
    expect(ressources).not.toMatch(/foundation-model\/\*|inference-profile\/\*/);
    expect(outil.Properties.Environment.Variables.RETOUCHE_MOTEUR).toBe('bedrock');
    // GET /outils says, and each new job records, that this stage's live jobs are no previews (issue 39).
    for (const api of ['Api/Outils', 'Api/TravauxCreer'])
      expect(fonctionDuModule(s, api)[1].Properties.Environment.Variables.RETOUCHE_MOTEUR, api).toBe('bedrock');
    // The first use of a model goes through AWS Marketplace with the operator's rights, never the function's.
    expect(JSON.stringify(declarationsDuRole(s, outil.Properties.Role['Fn::GetAtt'][0]))).not.toContain('aws-marketplace');
    // The operator's check-models reads the Region and models from this output (issue 28, point 2).
    const sortie = (s.template.toJSON().Outputs as Record<string, { Value: string }>).MoteurBedrock!;
    expect(JSON.parse(sortie.Value)).toEqual({
      region: outil.Properties.Environment.Variables.RETOUCHE_BEDROCK_REGION,
      modeles: {
        modeleInpaint: outil.Properties.Environment.Variables.RETOUCHE_BEDROCK_MODELE_INPAINT,
        modeleStructure: outil.Properties.Environment.Variables.RETOUCHE_BEDROCK_MODELE_STRUCTURE,
        modeleRemplacement: outil.Properties.Environment.Variables.RETOUCHE_BEDROCK_MODELE_REMPLACEMENT,
        modeleTexte: outil.Properties.Environment.Variables.RETOUCHE_BEDROCK_MODELE_TEXTE,
      },
    });
  });

  it('grants the detectors (Rekognition DetectLabels, DetectFaces, DetectText) alone on "*", which is all those actions support', () => {
    const surTout = declarationsMetier(s, 'Flux/Outil').filter((d) => d.Resource.includes('*'));
    expect(surTout.flatMap((d) => d.Action)).toEqual(ACTIONS_REKOGNITION);
    expect(surTout.flatMap((d) => d.Resource)).toEqual(['*']);
  });

  it('alarms on failed executions, late work, the sweeper, Lambda errors and throttles and API 5xx, to one topic', () => {
    const alarmes = deType(s, 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
    const metrique = (nom: string) => alarmes.filter((a) => a.MetricName === nom || JSON.stringify(a.Metrics ?? []).includes(`"MetricName":"${nom}"`));
    const sujet = [{ Ref: idDe(s, 'Observabilite/Alarmes') }];
    const machine = [{ Name: 'StateMachineArn', Value: { Ref: idDe(s, 'Flux/Travail') } }];
    // The stage's own service: two stages of one account share the namespace (issue 40, point 4).
    const service = [{ Name: 'service', Value: 'retouche-dev' }];
    const [idBalayeur] = fonctionDuModule(s, 'Flux/Balayeur');

    expect(alarme(s, 'ExecutionsEchouees')).toEqual({
      AlarmDescription: 'A refund or a batch ZIP failed past its retries; the sweeper finishes the job (see the runbook: docs/architecture.md, "Operators")',
      AlarmActions: sujet,
      Namespace: 'AWS/States',
      MetricName: 'ExecutionsFailed',
      Dimensions: machine,
      Statistic: 'Sum',
      Period: 300,
      EvaluationPeriods: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 1,
      TreatMissingData: 'notBreaching',
    });
    expect(alarme(s, 'ExecutionsInterrompues')).toMatchObject({
      AlarmDescription: 'Job executions timed out or were aborted: the sweeper runs such jobs again or refunds them',
      AlarmActions: sujet,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 1,
    });
    expect(JSON.stringify(alarme(s, 'ExecutionsInterrompues').Metrics)).toMatch(/ExecutionsTimedOut.*ExecutionsAborted/);
    // A model not enabled for the account (issue 28, point 2): the first refused call alarms.
    expect(alarme(s, 'AccesModeleRefuses')).toEqual({
      AlarmDescription: expect.stringContaining('admin -- check-models'),
      AlarmActions: sujet,
      Namespace: ESPACE_MESURES,
      MetricName: MESURES.accesRefuses,
      Dimensions: service,
      Statistic: 'Sum',
      Period: 300,
      EvaluationPeriods: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 1,
      TreatMissingData: 'notBreaching',
    });
    for (const [nom, mesure] of [
      ['TravauxEnRetard', MESURES.travauxEnRetard],
      ['LotsEnRetard', MESURES.lotsEnRetard],
      ['EffacementsEnRetard', MESURES.effacementsEnRetard],
    ] as const) {
      expect(alarme(s, nom)).toEqual({
        AlarmDescription: expect.stringMatching(/past (the guaranteed|their) bound/),
        AlarmActions: sujet,
        Namespace: ESPACE_MESURES,
        MetricName: mesure,
        // As Powertools' singleMetric emits it: the service dimension only.
        Dimensions: service,
        Statistic: 'Maximum',
        Period: 300,
        EvaluationPeriods: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        Threshold: 1,
        TreatMissingData: 'notBreaching',
      });
    }
    expect(alarme(s, 'BalayeurEnErreur')).toEqual({
      AlarmDescription: expect.stringContaining('sweeper'),
      AlarmActions: sujet,
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: idBalayeur } }],
      Statistic: 'Sum',
      Period: 300,
      EvaluationPeriods: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 1,
      TreatMissingData: 'notBreaching',
    });
    // The sweeper publishes its figures every run, zeros included: none for ten minutes, it did not run.
    expect(alarme(s, 'BalayeurAbsent')).toEqual({
      AlarmDescription: expect.stringContaining('did not run'),
      AlarmActions: sujet,
      Namespace: ESPACE_MESURES,
      MetricName: MESURES.travauxEnRetard,
      Dimensions: service,
      Statistic: 'SampleCount',
      Period: 600,
      EvaluationPeriods: 1,
      ComparisonOperator: 'LessThanThreshold',
      Threshold: 1,
      TreatMissingData: 'breaching',
    });
    expect(SEUILS).toMatchObject({ executionsEchouees: 1, travauxEnRetard: 1, lotsEnRetard: 1, erreursBalayeur: 1, balayeurAbsent: 1 });

    // A refunded job is a figure on the dashboard, not an alarm.
    expect(metrique(MESURES.remboursements)).toHaveLength(0);
    expect(Object.values(s.ressources).some((r) => r.Metadata?.['aws:cdk:path']?.includes('RemboursementsAnormaux'))).toBe(false);
    expect(metrique('ExecutionsFailed')).toHaveLength(1);
    expect(metrique('5XXError')).toHaveLength(1);
    const fonctions = deType(s, 'AWS::Lambda::Function').length;
    // Errors: every function but the two deploy-time key generators, links and C2PA (the sweeper's own alarm among them, at 1).
    expect(metrique('Errors')).toHaveLength(fonctions - 2);
    // Throttles: neither the key generators nor the sweeper, whose overlapping ticks are throttled by design.
    expect(metrique('Throttles')).toHaveLength(fonctions - 3);
    for (const generateur of ['Liens/GenerateurCle', 'Provenance/GenerateurCle']) {
      const [id] = fonctionDuModule(s, generateur);
      expect(
        alarmes.some((a) => JSON.stringify(a.Dimensions ?? a.Metrics).includes(`"${id}"`)),
        generateur,
      ).toBe(false);
    }
    expect(metrique('Throttles').some((a) => JSON.stringify(a.Dimensions).includes(idBalayeur))).toBe(false);
    for (const a of alarmes) expect(a.AlarmActions).toEqual(sujet);

    s.template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    const [[, tableau]] = deType(s, 'AWS::CloudWatch::Dashboard') as [[string, Ressource]];
    const corps = JSON.stringify(tableau.Properties.DashboardBody);
    for (const nom of [MESURES.remboursements, MESURES.travauxEnRetard, MESURES.lotsEnRetard, MESURES.effacementsEnRetard, MESURES.reprises])
      expect(corps).toContain(nom);
  });

  it('outputs what operators and the admin CLI need', () => {
    const sorties = s.template.toJSON().Outputs as Record<string, unknown>;
    expect(Object.keys(sorties)).toEqual(
      expect.arrayContaining([
        'ApiUrl',
        'McpUrl',
        'TableName',
        'BucketName',
        'LiensBase',
        'C2paCsr',
        'C2paSignataire',
        'C2paTest',
        'UserPoolId',
        'UserPoolClientId',
      ]),
    );
  });

  it("keeps one stage's alarms and logging role out of another's: the API named after its stack, the account's role kept (issue 40)", () => {
    const autre = synthetiser({ stage: 'recette' });
    const nomApi = (x: Synthese) => deType(x, 'AWS::ApiGateway::RestApi')[0]![1].Properties.Name;
    expect(nomApi(s)).toBe('Retouche-dev');
    expect(nomApi(autre)).toBe('Retouche-recette');
    // The 5xx alarm filters on the API's name, the custom metrics' alarms on the stage's service.
    for (const [x, stage] of [
      [s, 'dev'],
      [autre, 'recette'],
    ] as const) {
      const api5xx = alarme(x, 'Api5xx');
      expect(api5xx.Dimensions).toEqual([{ Name: 'ApiName', Value: `Retouche-${stage}` }]);
      expect(fonctionDuModule(x, 'Flux/Balayeur')[1].Properties.Environment.Variables.POWERTOOLS_SERVICE_NAME).toBe(`retouche-${stage}`);
      for (const a of deType(x, 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties))
        for (const d of [...(a.Dimensions ?? []), ...JSON.stringify(a.Metrics ?? []).matchAll(/"Name":"service","Value":"([^"]+)"/g)].map((m) =>
          Array.isArray(m) ? { Name: 'service', Value: m[1] } : m,
        ))
          if (d.Name === 'service') expect(d.Value).toBe(`retouche-${stage}`);
    }
    // API Gateway's logging role is the account's, in each Region: destroying a dev stack must not delete it.
    for (const type of ['AWS::ApiGateway::Account', 'AWS::IAM::Role']) {
      const ressources = deType(s, type).filter(([id]) => type === 'AWS::ApiGateway::Account' || id.includes('CloudWatchRole'));
      expect(ressources.length, type).toBe(1);
      for (const [id, r] of ressources) expect(r.DeletionPolicy, id).toBe('Retain');
    }
  });

  it('hard-codes no resource name', () => {
    const noms = ['TableName', 'BucketName', 'FunctionName', 'StateMachineName', 'RoleName', 'LogGroupName', 'Name'];
    for (const [id, r] of Object.entries(s.ressources)) {
      if (['AWS::ApiGateway::RestApi', 'AWS::ApiGateway::Authorizer'].includes(r.Type) || r.Type.startsWith('AWS::CloudFront::')) continue; // labels, not identities
      // A reference to another resource is fine; a literal would collide between stages.
      for (const nom of noms) expect(typeof r.Properties?.[nom], `${id}.${nom}`).not.toBe('string');
    }
  });
});

describe('the C2PA signing key (lib/provenance.ts)', () => {
  let s: Synthese;
  beforeAll(() => {
    s = synthetiser({ stage: 'dev' });
  });

  const ids = (x: Synthese) => ({
    secret: idDe(x, 'Provenance/CleC2pa'),
    // A CustomResource's CloudFormation resource is its `Default` child.
    ressource: Object.entries(x.ressources).find(([, r]) => r.Metadata?.['aws:cdk:path']?.endsWith('/Provenance/CleC2paRessource/Default'))![0],
    generateur: fonctionDuModule(x, 'Provenance/GenerateurCle')[0],
  });

  it('keeps the key in its own secret, written by a deploy-time resource with a test chain unless a chain is configured', () => {
    const { secret, ressource, generateur } = ids(s);
    expect(s.ressources[secret]).toMatchObject({ Type: 'AWS::SecretsManager::Secret', DeletionPolicy: 'Delete', UpdateReplacePolicy: 'Delete' });
    // Exactly these properties: no Chaine by default, and nothing secret in the template.
    expect(s.ressources[ressource]!.Type).toBe('Custom::CleC2pa');
    expect(s.ressources[ressource]!.Properties).toEqual({
      ServiceToken: { 'Fn::GetAtt': [generateur, 'Arn'] },
      Secret: { Ref: secret },
      Generation: GENERATION_CLE_C2PA,
      Organisation: 'Retouche dev (test, not trusted)',
    });
    expect(GENERATION_CLE_C2PA).toBe('1');
    expect(JSON.stringify(s.template.toJSON())).not.toContain('PRIVATE KEY');
    // The generator: its own small function, the module the bundles test runs.
    const [, fn] = fonctionDuModule(s, 'Provenance/GenerateurCle');
    expect(fn.Properties).toMatchObject({ MemorySize: 256, Timeout: 60, Runtime: 'nodejs24.x', Architectures: ['arm64'] });
    expect(fn.Metadata?.['aws:cdk:path']).toBe('Retouche-dev/Provenance/GenerateurCle/Resource');
    // It reads and writes that secret (current and previous versions), nothing else.
    expect(declarationsMetier(s, 'Provenance/GenerateurCle')).toEqual([
      { Action: ['secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue'], Resource: [{ Ref: secret }] },
    ]);
  });

  it('outputs the CSR for the operator, the signer and whether the chain is a test one', () => {
    const { ressource } = ids(s);
    const sorties = s.template.toJSON().Outputs as Record<string, { Value: unknown; Description: string }>;
    expect(sorties.C2paCsr).toEqual({ Value: { 'Fn::GetAtt': [ressource, 'Csr'] }, Description: expect.stringContaining('C2PA trust list') });
    expect(sorties.C2paSignataire).toEqual({ Value: { 'Fn::GetAtt': [ressource, 'Signataire'] }, Description: expect.any(String) });
    expect(sorties.C2paTest).toEqual({ Value: { 'Fn::GetAtt': [ressource, 'Test'] }, Description: expect.any(String) });
    expect(SORTIES_PROVENANCE).toEqual({ csr: 'C2paCsr', signataire: 'C2paSignataire', test: 'C2paTest' });
  });

  it('gives the tool function, and only it, the secret: its env, and GetSecretValue on that secret alone', () => {
    const { secret, ressource } = ids(s);
    const [idOutil, outil] = fonctionDuModule(s, 'Flux/Outil');
    const env = outil.Properties.Environment.Variables as Record<string, unknown>;
    expect(env.RETOUCHE_C2PA_SECRET_ARN).toEqual({ Ref: secret });
    // Changes with the key or the chain, so new containers read the new ones.
    expect(env.RETOUCHE_C2PA_EMPREINTE).toEqual({ 'Fn::GetAtt': [ressource, 'Empreinte'] });
    expect(
      Object.keys(env)
        .filter((k) => k.startsWith('RETOUCHE_C2PA_'))
        .sort(),
    ).toEqual(['RETOUCHE_C2PA_EMPREINTE', 'RETOUCHE_C2PA_SECRET_ARN']);
    for (const [chemin, [id, f]] of fonctionsParChemin(s)) {
      if (id === idOutil) continue;
      const autres = f.Properties.Environment?.Variables ?? {};
      expect(
        Object.keys(autres).filter((k) => k.startsWith('RETOUCHE_C2PA_')),
        chemin,
      ).toEqual([]);
    }
    const secretsDeOutil = declarationsMetier(s, 'Flux/Outil').filter((d) => d.Action.some((a) => a.startsWith('secretsmanager:')));
    expect(secretsDeOutil).toEqual([{ Action: ['secretsmanager:GetSecretValue'], Resource: [{ Ref: secret }] }]);

    // Every statement of every role of the stack that names the secret, or could reach it (a wildcard).
    const role = (chemin: string) => fonctionDuModule(s, chemin)[1].Properties.Role['Fn::GetAtt'][0] as string;
    const parRole: Record<string, string[]> = {};
    for (const [id, p] of deType(s, 'AWS::IAM::Policy')) {
      for (const d of p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[]) {
        const actions = [d.Action].flat();
        const texte = JSON.stringify(d.Resource);
        if (actions.some((a) => a.startsWith('secretsmanager:') || a === '*')) {
          // Secrets are named by reference, never by a pattern that could include this one.
          expect(texte, id).not.toMatch(/\*/);
        }
        if (!texte.includes(`"${secret}"`)) continue;
        for (const r of p.Properties.Roles as { Ref: string }[]) (parRole[r.Ref] ??= []).push(...actions);
      }
    }
    expect(parRole).toEqual({
      [role('Flux/Outil')]: ['secretsmanager:GetSecretValue'],
      [role('Provenance/GenerateurCle')]: ['secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue'],
    });
    // No resource policy opens it to anyone else.
    s.template.resourceCountIs('AWS::SecretsManager::ResourcePolicy', 0);
  });

  it('is kept (RETAIN) on a production stage, like the link key', () => {
    const prod = synthetiser({ stage: 'prod', emailExpediteur: 'no-reply@retouche.example' });
    expect(prod.ressources[idDe(prod, 'Provenance/CleC2pa')]!.DeletionPolicy).toBe('Retain');
    expect(prod.ressources[ids(prod).ressource]!.Properties.Organisation).toBe('Retouche prod (test, not trusted)');
  });

  describe('with -c c2paChaine=<file>', () => {
    let dossier: string;
    let pki: PkiTest;
    beforeAll(async () => {
      dossier = mkdtempSync(path.join(tmpdir(), 'retouche-c2pa-chaine-'));
      pki = await creerPkiTest('Retouche chain file');
      // As a CA sends it: text around the blocks, Windows line ends.
      writeFileSync(path.join(dossier, 'chaine.pem'), `Bag Attributes\n${pki.chaine[0]!.replace(/\n/g, '\r\n')}subject=…\n${pki.chaine[1]}`);
      writeFileSync(path.join(dossier, 'vide.pem'), 'nothing here\n');
      writeFileSync(path.join(dossier, 'avec-cle.pem'), `${pki.chaine.join('')}${pki.clePrivee}`);
      writeFileSync(path.join(dossier, 'abime.pem'), '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
    });
    afterAll(() => rmSync(dossier, { recursive: true, force: true }));

    it("passes the file's certificates, leaf first, as the resource's Chaine, and stays cdk-nag clean", () => {
      const v = synthetiser({ stage: 'dev', c2paChaine: path.join(dossier, 'chaine.pem') });
      const { secret, ressource, generateur } = ids(v);
      // Only the certificate blocks, Unix line ends, one after the other.
      const chaine = `${pki.chaine.map((c) => c.trim()).join('\n')}\n`;
      expect(v.ressources[ressource]!.Properties).toEqual({
        ServiceToken: { 'Fn::GetAtt': [generateur, 'Arn'] },
        Secret: { Ref: secret },
        Generation: GENERATION_CLE_C2PA,
        Organisation: 'Retouche dev (test, not trusted)',
        Chaine: chaine,
      });
      const blocs = (v.ressources[ressource]!.Properties.Chaine as string).match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)!;
      expect(blocs.map((b) => new X509Certificate(b).fingerprint256)).toEqual(pki.chaine.map((c) => new X509Certificate(c).fingerprint256));
      expect(JSON.stringify(v.template.toJSON())).not.toContain('PRIVATE KEY');
      const nag = v.rapportNag.pluginReports.find((r) => r.pluginName === 'AwsSolutions');
      expect(nag?.violations).toEqual([]);
      expect(nag?.conclusion).toBe('success');
    });

    it('stops the synth on a missing file, a file without a certificate, one that does not parse, or one holding a private key', () => {
      expect(() => synthetiser({ stage: 'dev', c2paChaine: path.join(dossier, 'absent.pem') })).toThrow(
        `context c2paChaine: no file ${path.join(dossier, 'absent.pem')}`,
      );
      expect(() => synthetiser({ stage: 'dev', c2paChaine: path.join(dossier, 'vide.pem') })).toThrow(/holds no PEM certificate/);
      expect(() => synthetiser({ stage: 'dev', c2paChaine: path.join(dossier, 'abime.pem') })).toThrow(/certificate 1 of .* does not parse/);
      expect(() => synthetiser({ stage: 'dev', c2paChaine: path.join(dossier, 'avec-cle.pem') })).toThrow(/holds a private key; give the certificates only/);
      // A relative path is read from where cdk runs (the project root).
      expect(lireChaineC2pa(path.relative(RACINE, path.join(dossier, 'chaine.pem')), RACINE)).toContain('-----BEGIN CERTIFICATE-----');
    });
  });
});

describe('a production stage', () => {
  it('keeps its data: RETAIN and deletion protection on the table, RETAIN on the bucket and the key', () => {
    const s = synthetiser({ stage: 'prod', concurrenceOutil: '8', emailExpediteur: 'no-reply@retouche.example' });
    const [[, table]] = deType(s, 'AWS::DynamoDB::Table') as [[string, Ressource]];
    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.Properties.DeletionProtectionEnabled).toBe(true);
    for (const type of ['AWS::S3::Bucket', 'AWS::SecretsManager::Secret']) {
      for (const [id, r] of deType(s, type)) expect(r.DeletionPolicy, id).toBe('Retain');
    }
    for (const [, g] of deType(s, 'AWS::Logs::LogGroup')) expect(g.Properties.RetentionInDays).toBe(CONSERVATION_JOURNAUX_JOURS.production);
    // -c concurrenceOutil caps the model calls at once; the other functions stay unreserved.
    const reservees = deType(s, 'AWS::Lambda::Function').filter(([, f]) => f.Properties.ReservedConcurrentExecutions !== undefined);
    expect(reservees.map(([, f]) => [f.Metadata['aws:cdk:path'].split('/')[2], f.Properties.ReservedConcurrentExecutions]).sort()).toEqual([['Outil', 8]]);
  });
});

describe('a synth with credentials (CDK_DEFAULT_ACCOUNT and _REGION set, as on a deploy)', () => {
  it('still passes cdk-nag: acknowledged findings name the literal account and region', () => {
    const s = synthetiser({ stage: 'dev' }, { account: '123456789012', region: 'eu-west-1' });
    const nag = s.rapportNag.pluginReports.find((r) => r.pluginName === 'AwsSolutions');
    expect(nag?.violations).toEqual([]);
    expect(nag?.conclusion).toBe('success');
    const executions = declarationsMetier(s, 'Flux/Balayeur').find((d) => d.Action.includes('states:DescribeExecution'))!;
    expect(JSON.stringify(executions.Resource)).toContain(':states:eu-west-1:123456789012:execution:');
  });
});

describe('the LocalStack fallback (-c liens=api -c moteur=local)', () => {
  it("serves links through the API's own checker instead of CloudFront, and grants no Bedrock", () => {
    const s = synthetiser({ stage: 'local', liens: 'api', moteur: 'local' });
    s.template.resourceCountIs('AWS::CloudFront::Distribution', 0);
    const [, fichier] = fonctionDuModule(s, 'Api/Fichier');
    const env = fichier.Properties.Environment.Variables;
    expect(JSON.stringify(env.RETOUCHE_LIENS_CLE_PUBLIQUE)).toContain('ClePublique');
    expect(env.RETOUCHE_LIENS_SECRET_ARN).toBeUndefined();
    const [, outil] = fonctionDuModule(s, 'Flux/Outil');
    expect(actionsDe(declarationsDuRole(s, outil.Properties.Role['Fn::GetAtt'][0]))).not.toContain('bedrock:InvokeModel');
    for (const action of ACTIONS_REKOGNITION) expect(actionsDe(declarationsDuRole(s, outil.Properties.Role['Fn::GetAtt'][0]))).not.toContain(action);
    expect(outil.Properties.Environment.Variables.RETOUCHE_MOTEUR).toBe('local');
    for (const api of ['Api/Outils', 'Api/TravauxCreer'])
      expect(fonctionDuModule(s, api)[1].Properties.Environment.Variables.RETOUCHE_MOTEUR, api).toBe('local');
    const nag = s.rapportNag.pluginReports.find((r) => r.pluginName === 'AwsSolutions');
    expect(nag?.violations).toEqual([]);
  });
});

describe('a stage that sells credits (-c packs, core/domaine/achats.ts)', () => {
  const PACKS = [{ lien: 'plink_1Abc', url: 'https://buy.stripe.com/abc', credits: 100, prix: '49 €' }];

  it("gives the webhook and the account page the packs, and only the webhook the signing secret's value", () => {
    const s = synthetiser({ stage: 'dev', packs: JSON.stringify(PACKS) });
    const [[idSecret, secret]] = deType(s, 'AWS::SecretsManager::Secret').filter(([id]) => id.includes('WebhookStripe')) as [[string, Ressource]];
    expect(secret).toMatchObject({ DeletionPolicy: 'Delete' });
    for (const [chemin, [, f]] of fonctionsParChemin(s)) {
      const env = f.Properties.Environment.Variables as Record<string, unknown>;
      const lit = declarationsDuRole(s, f.Properties.Role['Fn::GetAtt'][0]).some((d) => JSON.stringify(d.Resource) === JSON.stringify({ Ref: idSecret }));
      const module = chemin.split('/')[2];
      expect(lit, chemin).toBe(module === 'PaiementStripe');
      expect(env.RETOUCHE_STRIPE_SECRET_ARN, chemin).toEqual(module === 'PaiementStripe' ? { Ref: idSecret } : undefined);
      expect(env.RETOUCHE_PACKS === undefined ? undefined : JSON.parse(env.RETOUCHE_PACKS as string), chemin).toEqual(
        module === 'PaiementStripe' || module === 'Compte' ? PACKS : undefined,
      );
    }
    expect(Object.keys(s.template.findOutputs('*'))).toEqual(expect.arrayContaining(['StripeWebhookUrl', 'StripeWebhookSecretArn']));
    const nag = s.rapportNag.pluginReports.find((r) => r.pluginName === 'AwsSolutions');
    expect(nag?.violations).toEqual([]);
  });

  it('makes no secret and no outputs without packs, and refuses packs it cannot sell', () => {
    const s = synthetiser({ stage: 'dev' });
    expect(deType(s, 'AWS::SecretsManager::Secret').filter(([id]) => id.includes('WebhookStripe'))).toEqual([]);
    expect(Object.keys(s.template.findOutputs('*'))).not.toContain('StripeWebhookUrl');
    expect(() => synthetiser({ stage: 'dev', packs: '[{"lien":"prod_1","url":"https://buy.stripe.com/a","credits":10,"prix":"5 €"}]' })).toThrow(/0\.lien/);
    expect(() => synthetiser({ stage: 'dev', packs: JSON.stringify([{ ...PACKS[0], credits: 0 }]) })).toThrow(/0\.credits/);
    expect(() => synthetiser({ stage: 'dev', packs: 'absent.json' })).toThrow(/no file .*absent\.json/);
  });

  it('gives the account page, and it alone, the contact for credits (-c contactCredits): an address as a mailto: link, an https URL as it is', () => {
    const s = synthetiser({ stage: 'dev', contactCredits: 'ventes@retouche.example' });
    for (const [chemin, [, f]] of fonctionsParChemin(s)) {
      const env = f.Properties.Environment.Variables as Record<string, unknown>;
      expect(env.RETOUCHE_CONTACT_CREDITS, chemin).toBe(chemin.split('/')[2] === 'Compte' ? 'mailto:ventes@retouche.example' : undefined);
    }
    // Without the setting, nothing: the page says to ask the operator, with the address to give them.
    expect(fonctionDuModule(synthetiser({ stage: 'dev' }), 'Api/Compte')[1].Properties.Environment.Variables.RETOUCHE_CONTACT_CREDITS).toBeUndefined();
    expect(() => synthetiser({ stage: 'dev', contactCredits: 'ventes' })).toThrow(RefusDeConfiguration);
    const contact = (valeur: string) => configurationDepuisContexte((cle) => ({ stage: 'dev', contactCredits: valeur })[cle]).contactCredits;
    expect(contact('mailto:ventes@retouche.example')).toBe('mailto:ventes@retouche.example');
    expect(contact(' https://retouche.example/credits?source=site ')).toBe('https://retouche.example/credits?source=site');
    for (const refuse of [
      'http://retouche.example/credits',
      'javascript:alert(1)',
      'ventes',
      'mailto:ventes',
      'https://moi:secret@retouche.example/',
      'ftp://retouche.example',
    ])
      expect(() => synthetiser({ stage: 'dev', contactCredits: refuse }), refuse).toThrow(
        new RegExp(`^context contactCredits must be an e-mail address .* or an https:// URL \\(got ${refuse.replace(/[.?()]/g, '\\$&')}\\)$`),
      );
  });
});
