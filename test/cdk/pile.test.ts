/**
 * The deployed shape, asserted on the synthesized template: what `cdk synth` builds (same app
 * module, same context as cdk.json), without bundling the functions (the bundles are checked in
 * bundles.test.ts). Nothing here talks to AWS.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFINITION_TABLE, INDEX } from '../../lambdas/core/table';
import { BASE_CHEMIN, ROUTES, TYPES_BINAIRES } from '../../lambdas/http/routes';
import { construireApplication } from '../../lib/application';
import { FICHIER_DEFINITION } from '../../lib/flux';
import { RACINE } from '../../lib/fonction';

const validerAsl = createRequire(import.meta.url)('asl-validator') as (
  definition: unknown,
) => { isValid: boolean; errors: { message?: string }[] };

const contexteCdk = (JSON.parse(readFileSync(path.join(RACINE, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> }).context;

type Ressource = { Type: string; Properties: Record<string, any>; DeletionPolicy?: string; [k: string]: any };

interface Synthese {
  template: Template;
  ressources: Record<string, Ressource>;
  rapportNag: { pluginReports: { pluginName: string; conclusion: string; violations: unknown[] }[] };
}

const synthetiser = (contexte: Record<string, unknown>): Synthese => {
  const app = new App({
    context: { ...contexteCdk, ...contexte, 'aws:cdk:bundling-stacks': [], 'aws:cdk:enable-path-metadata': true },
  });
  const stack = construireApplication(app);
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
    // outils, openapi, solde, travaux-liste, travaux-creer, travail, lot: one function each.
    expect(cibles.size).toBe(new Set(ROUTES.map((r) => r.fonction)).size);
    // Unknown paths and methods reach our own 404/405 function.
    expect(methodes.filter((m) => m.methode === 'ANY').map((m) => m.chemin)).toEqual(
      expect.arrayContaining(['/{proxy+}', `${BASE_CHEMIN}/{proxy+}`, `${BASE_CHEMIN}/travaux`, `${BASE_CHEMIN}/travaux/{id}`]),
    );
  });

  it('passes multipart and images as binary, and answers the gateway\'s own errors with the Erreur body', () => {
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

  it('runs every function on the current Node.js runtime, arm64, traced, with its own log group and retention', () => {
    const fonctions = deType(s, 'AWS::Lambda::Function');
    expect(fonctions.length).toBeGreaterThanOrEqual(15);
    for (const [id, f] of fonctions) {
      expect(f.Properties.Runtime, id).toBe('nodejs24.x');
      expect(f.Properties.Architectures, id).toEqual(['arm64']);
      expect(f.Properties.TracingConfig, id).toEqual({ Mode: 'Active' });
      expect(f.Properties.LoggingConfig?.LogGroup, id).toBeDefined();
      expect(f.Properties.Handler, id).toBe('index.handler');
      expect(f.Properties.Environment.Variables.NODE_OPTIONS, id).toBe('--enable-source-maps');
    }
    for (const [, g] of deType(s, 'AWS::Logs::LogGroup')) expect(g.Properties.RetentionInDays).toBe(14);
    // The tool step gets the memory sharp needs; the quick HTTP handlers do not.
    expect(fonctionDuModule(s, 'Flux/Outil')[1].Properties.MemorySize).toBe(2048);
    expect(fonctionDuModule(s, 'Api/Solde')[1].Properties.MemorySize).toBe(512);
  });

  it('builds the state machine from statemachines/travail.asl.json, every placeholder substituted', () => {
    const asl = readFileSync(FICHIER_DEFINITION, 'utf8');
    const placeholders = [...new Set([...asl.matchAll(/\$\{([A-Za-z0-9]+)\}/g)].map((m) => m[1]!))].sort();
    const [[, machine]] = deType(s, 'AWS::StepFunctions::StateMachine') as [[string, Ressource]];
    expect(Object.keys(machine.Properties.DefinitionSubstitutions).sort()).toEqual(placeholders);
    expect(machine.Properties.DefinitionS3Location).toBeDefined();
    expect(machine.Properties.StateMachineType).toBe('STANDARD');
    expect(machine.Properties.TracingConfiguration).toEqual({ Enabled: true });
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
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
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
      BucketEncryption: Match.objectLike({ ServerSideEncryptionConfiguration: [Match.objectLike({ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } })] }),
      LifecycleConfiguration: {
        Rules: Match.arrayWith([
          Match.objectLike({ Prefix: 'resultats/', ExpirationInDays: 90, Status: 'Enabled' }),
          Match.objectLike({ Prefix: 'zips/', ExpirationInDays: 90, Status: 'Enabled' }),
          Match.objectLike({ Prefix: 'entrees/', ExpirationInDays: 7, Status: 'Enabled' }),
          Match.objectLike({ AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } }),
        ]),
      },
    });
    s.template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('serves results through CloudFront signed URLs (key group, OAC), the private key in Secrets Manager', () => {
    s.template.resourceCountIs('AWS::CloudFront::PublicKey', 1);
    s.template.resourceCountIs('AWS::CloudFront::KeyGroup', 1);
    s.template.resourceCountIs('AWS::CloudFront::OriginAccessControl', 1);
    s.template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        DefaultCacheBehavior: Match.objectLike({
          TrustedKeyGroups: [{ Ref: Match.anyValue() }],
          ViewerProtocolPolicy: 'https-only',
          AllowedMethods: ['GET', 'HEAD'],
        }),
      }),
    });
    // The public key comes from the deploy-time key generator, never from the repository.
    const [[, cle]] = deType(s, 'AWS::CloudFront::PublicKey') as [[string, Ressource]];
    expect(JSON.stringify(cle.Properties.PublicKeyConfig.EncodedKey)).toContain('ClePublique');
    s.template.resourceCountIs('Custom::CleLiens', 1);

    // Exactly the functions that answer with links may read the key; the others cannot.
    const [[idSecret]] = deType(s, 'AWS::SecretsManager::Secret') as [[string, Ressource]];
    const signataires: string[] = [];
    for (const [chemin, [, f]] of fonctionsParChemin(s)) {
      const env = f.Properties.Environment.Variables as Record<string, unknown>;
      const lit = actionsDe(declarationsDuRole(s, f.Properties.Role['Fn::GetAtt'][0])).includes('secretsmanager:GetSecretValue');
      expect(lit, chemin).toBe(env.RETOUCHE_LIENS_SECRET_ARN !== undefined || chemin.includes('GenerateurCle'));
      if (env.RETOUCHE_LIENS_SECRET_ARN) {
        expect(env.RETOUCHE_LIENS_SECRET_ARN).toEqual({ Ref: idSecret });
        expect(JSON.stringify(env.RETOUCHE_LIENS_BASE)).toContain('DomainName');
        signataires.push(chemin.split('/')[2]!);
      }
    }
    expect(signataires.sort()).toEqual(['Lot', 'Travail', 'TravauxCreer', 'TravauxListe']);
  });

  it('grants each function only the actions its code calls, on the table, prefixes and machine it uses', () => {
    const attendu: Record<string, string[]> = {
      'Api/Outils': [],
      'Api/Solde': ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
      'Api/Travail': ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'secretsmanager:GetSecretValue'],
      'Api/TravauxCreer': [
        'dynamodb:BatchGetItem', 'dynamodb:ConditionCheckItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem',
        's3:DeleteObject', 's3:PutObject', 'secretsmanager:GetSecretValue', 'states:StartExecution',
      ],
      'Flux/Preparer': ['dynamodb:GetItem', 'dynamodb:UpdateItem', 's3:PutObject'],
      'Flux/Outil': ['bedrock:InvokeModel', 'dynamodb:GetItem', 's3:GetObject', 's3:PutObject'],
      'Flux/Relance': ['dynamodb:ConditionCheckItem', 'dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem', 'states:StartExecution'],
    };
    const journaux = ['logs:CreateLogStream', 'logs:PutLogEvents'];
    const traces = ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'];
    for (const [chemin, actions] of Object.entries(attendu)) {
      const [, f] = fonctionDuModule(s, chemin);
      const declarations = declarationsDuRole(s, f.Properties.Role['Fn::GetAtt'][0]);
      expect(actionsDe(declarations), chemin).toEqual([...actions, ...journaux, ...traces].sort());
      for (const d of declarations) {
        const actionsD = [d.Action].flat();
        // "*" only where AWS accepts nothing else (X-Ray).
        if (d.Resource === '*') expect(actionsD.every((a) => a.startsWith('xray:')), chemin).toBe(true);
        expect(actionsD.some((a) => a.endsWith(':*')), chemin).toBe(false);
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
    expect(s3).toContain('/resultats/*');
    expect(s3).not.toContain('/zips/*');
  });

  it('grants bedrock:InvokeModel on the configured models and profiles only', () => {
    const [, outil] = fonctionDuModule(s, 'Flux/Outil');
    const bedrock = declarationsDuRole(s, outil.Properties.Role['Fn::GetAtt'][0]).find((d) => d.Action === 'bedrock:InvokeModel')!;
    const ressources = JSON.stringify(bedrock.Resource);
    expect(ressources).toContain('inference-profile/us.stability.stable-image-inpaint-v1:0');
    expect(ressources).toContain('foundation-model/stability.stable-image-inpaint-v1:0');
    expect(ressources).not.toMatch(/foundation-model\/\*|inference-profile\/\*/);
    expect(outil.Properties.Environment.Variables.RETOUCHE_MOTEUR).toBe('bedrock');
  });

  it('alarms on failed executions, Lambda errors and throttles, API 5xx and refunds above normal, to one topic', () => {
    const alarmes = deType(s, 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
    const metrique = (nom: string) =>
      alarmes.filter((a) => a.MetricName === nom || JSON.stringify(a.Metrics ?? []).includes(`"MetricName":"${nom}"`));
    expect(metrique('ExecutionsFailed')).toHaveLength(1);
    expect(metrique('5XXError')).toHaveLength(1);
    expect(metrique('Remboursements')).toHaveLength(1);
    const fonctions = deType(s, 'AWS::Lambda::Function').length;
    // Every function but the deploy-time key generator is watched.
    expect(metrique('Errors')).toHaveLength(fonctions - 1);
    expect(metrique('Throttles')).toHaveLength(fonctions - 1);
    const [[idSujet]] = deType(s, 'AWS::SNS::Topic') as [[string, Ressource]];
    for (const a of alarmes) expect(a.AlarmActions).toEqual([{ Ref: idSujet }]);
    s.template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
  });

  it('outputs what operators and the admin CLI need', () => {
    const sorties = s.template.toJSON().Outputs as Record<string, unknown>;
    expect(Object.keys(sorties)).toEqual(expect.arrayContaining(['ApiUrl', 'TableName', 'BucketName', 'LiensBase']));
  });

  it('restarts stuck jobs on a schedule', () => {
    s.template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(2 minutes)' });
  });

  it('hard-codes no resource name', () => {
    const noms = ['TableName', 'BucketName', 'FunctionName', 'StateMachineName', 'RoleName', 'LogGroupName', 'Name'];
    for (const [id, r] of Object.entries(s.ressources)) {
      if (r.Type === 'AWS::ApiGateway::RestApi' || r.Type.startsWith('AWS::CloudFront::')) continue; // labels, not identities
      // A reference to another resource is fine; a literal would collide between stages.
      for (const nom of noms) expect(typeof r.Properties?.[nom], `${id}.${nom}`).not.toBe('string');
    }
  });
});

describe('a production stage', () => {
  it('keeps its data: RETAIN and deletion protection on the table, RETAIN on the bucket and the key', () => {
    const s = synthetiser({ stage: 'prod', concurrenceOutil: '8' });
    const [[, table]] = deType(s, 'AWS::DynamoDB::Table') as [[string, Ressource]];
    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.Properties.DeletionProtectionEnabled).toBe(true);
    for (const type of ['AWS::S3::Bucket', 'AWS::SecretsManager::Secret']) {
      for (const [id, r] of deType(s, type)) expect(r.DeletionPolicy, id).toBe('Retain');
    }
    for (const [, g] of deType(s, 'AWS::Logs::LogGroup')) expect(g.Properties.RetentionInDays).toBe(90);
    // -c concurrenceOutil caps the model calls at once; the other functions stay unreserved.
    const reservees = deType(s, 'AWS::Lambda::Function').filter(([, f]) => f.Properties.ReservedConcurrentExecutions !== undefined);
    expect(reservees.map(([, f]) => [f.Metadata['aws:cdk:path'].split('/')[2], f.Properties.ReservedConcurrentExecutions]).sort()).toEqual([
      ['Outil', 8],
      ['Relance', 1],
    ]);
  });
});

describe('the LocalStack fallback (-c liens=api -c moteur=local)', () => {
  it('serves links through the API\'s own checker instead of CloudFront, and grants no Bedrock', () => {
    const s = synthetiser({ stage: 'local', liens: 'api', moteur: 'local' });
    s.template.resourceCountIs('AWS::CloudFront::Distribution', 0);
    const [, fichier] = fonctionDuModule(s, 'Api/Fichier');
    const env = fichier.Properties.Environment.Variables;
    expect(JSON.stringify(env.RETOUCHE_LIENS_CLE_PUBLIQUE)).toContain('ClePublique');
    expect(env.RETOUCHE_LIENS_SECRET_ARN).toBeUndefined();
    const [, outil] = fonctionDuModule(s, 'Flux/Outil');
    expect(actionsDe(declarationsDuRole(s, outil.Properties.Role['Fn::GetAtt'][0]))).not.toContain('bedrock:InvokeModel');
    expect(outil.Properties.Environment.Variables.RETOUCHE_MOTEUR).toBe('local');
    const nag = s.rapportNag.pluginReports.find((r) => r.pluginName === 'AwsSolutions');
    expect(nag?.violations).toEqual([]);
  });
});
