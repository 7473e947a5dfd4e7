/**
 * IAM, simulated: the policies each function's role gets in the synthesized template (what
 * `cdk synth` builds, as test/cdk does), resolved to concrete ARNs, and the evaluation of recorded
 * AWS calls (local/enregistreur-iam.ts) against them with @cloud-copilot/iam-simulate, conditions
 * (`dynamodb:LeadingKeys`) included.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { runSimulation } from '@cloud-copilot/iam-simulate';
import { construireApplication } from '../../lib/application';
import { RACINE } from '../../lib/fonction';
import type { AppelAws, RessourceAppelee } from '../../local/enregistreur-iam';

export const COMPTE = '123456789012';
export const REGION = 'eu-west-3';

type Json = any;
type Ressources = Record<string, { Type: string; Properties?: Json; Metadata?: Json }>;

export interface Declaration {
  Effect: 'Allow' | 'Deny';
  Action: string | string[];
  Resource: string | string[];
  Condition?: Json;
}

export interface FonctionModele {
  /** Construct path under the stack: 'Api/TravauxCreer', 'Flux/Outil'. */
  chemin: string;
  role: string;
  declarations: Declaration[];
  /** The function's environment, resolved. */
  environnement: Record<string, string>;
}

export interface Modele {
  fonctions: Map<string, FonctionModele>;
}

const contexteCdk = (JSON.parse(readFileSync(path.join(RACINE, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> }).context;

/** The template of one stage, as `cdk synth` builds it (no bundling, no AWS). */
export const synthetiserModele = (stage: string): { ressources: Ressources } => {
  const app = new App({ context: { ...contexteCdk, stage, 'aws:cdk:bundling-stacks': [], 'aws:cdk:enable-path-metadata': true } });
  const stack = construireApplication(app);
  return { ressources: Template.fromStack(stack).toJSON().Resources as Ressources };
};

/** Intrinsic functions → strings, with placeholder names: a table, bucket, machine or secret is named after its logical id. */
const resoudre = (ressources: Ressources, valeur: Json): Json => {
  const r = (v: Json): Json => resoudre(ressources, v);
  if (typeof valeur === 'string' || typeof valeur === 'number' || typeof valeur === 'boolean' || valeur === null) return valeur;
  if (Array.isArray(valeur)) return valeur.map(r);
  const cles = Object.keys(valeur);
  if (cles.length === 1) {
    const [cle] = cles as [string];
    const arg = valeur[cle];
    if (cle === 'Ref') return reference(ressources, arg);
    if (cle === 'Fn::GetAtt') {
      const [id, attribut] = Array.isArray(arg) ? arg : String(arg).split('.');
      return attributDe(ressources, id, attribut);
    }
    if (cle === 'Fn::Join') return (r(arg[1]) as string[]).join(arg[0]);
    if (cle === 'Fn::Select') return (r(arg[1]) as string[])[Number(r(arg[0]))];
    if (cle === 'Fn::Split') return String(r(arg[1])).split(arg[0]);
    if (cle === 'Fn::Sub') {
      const [gabarit, variables] = Array.isArray(arg) ? arg : [arg, {}];
      return String(gabarit).replace(/\$\{([^}]+)\}/g, (_, nom: string) => {
        if (variables[nom] !== undefined) return r(variables[nom]);
        const [id, attribut] = nom.split('.');
        return attribut ? attributDe(ressources, id!, attribut) : reference(ressources, id!);
      });
    }
  }
  return Object.fromEntries(Object.entries(valeur).map(([k, v]) => [k, r(v)]));
};

const reference = (ressources: Ressources, id: string): string => {
  const pseudo: Record<string, string> = {
    'AWS::Partition': 'aws',
    'AWS::Region': REGION,
    'AWS::AccountId': COMPTE,
    'AWS::URLSuffix': 'amazonaws.com',
    'AWS::StackName': 'Retouche',
  };
  if (pseudo[id]) return pseudo[id]!;
  switch (ressources[id]?.Type) {
    case 'AWS::StepFunctions::StateMachine':
      return `arn:aws:states:${REGION}:${COMPTE}:stateMachine:${id}`;
    case 'AWS::SecretsManager::Secret':
      return `arn:aws:secretsmanager:${REGION}:${COMPTE}:secret:${id}-AbCdEf`;
    case 'AWS::S3::Bucket':
      return id.toLowerCase();
    case 'AWS::Lambda::Function':
    case 'AWS::DynamoDB::Table':
    case 'AWS::Logs::LogGroup':
    case 'AWS::IAM::Role':
    default:
      return id;
  }
};

const attributDe = (ressources: Ressources, id: string, attribut: string): string => {
  const type = ressources[id]?.Type;
  if (attribut === 'Arn') {
    switch (type) {
      case 'AWS::DynamoDB::Table':
        return `arn:aws:dynamodb:${REGION}:${COMPTE}:table/${id}`;
      case 'AWS::S3::Bucket':
        return `arn:aws:s3:::${id.toLowerCase()}`;
      case 'AWS::Logs::LogGroup':
        return `arn:aws:logs:${REGION}:${COMPTE}:log-group:${id}:*`;
      case 'AWS::Lambda::Function':
        return `arn:aws:lambda:${REGION}:${COMPTE}:function:${id}`;
      case 'AWS::IAM::Role':
        return `arn:aws:iam::${COMPTE}:role/${id}`;
      case 'AWS::StepFunctions::StateMachine':
        return reference(ressources, id);
      case 'AWS::SQS::Queue':
        return `arn:aws:sqs:${REGION}:${COMPTE}:${id}`;
      default:
        return `arn:aws:${type ?? 'inconnu'}:${REGION}:${COMPTE}:${id}`;
    }
  }
  if (attribut === 'Name') return id;
  return `${id}.${attribut}`;
};

/** Each Lambda function of the stack, by construct path, with its role's statements resolved. */
export const lireModele = ({ ressources }: { ressources: Ressources }): Modele => {
  const fonctions = new Map<string, FonctionModele>();
  for (const [, r] of Object.entries(ressources)) {
    if (r.Type !== 'AWS::Lambda::Function') continue;
    const cheminCdk: string | undefined = r.Metadata?.['aws:cdk:path'];
    if (!cheminCdk) continue;
    // '<stack>/Api/TravauxCreer/Resource' → 'Api/TravauxCreer'
    const chemin = cheminCdk.split('/').slice(1, -1).join('/');
    const role = r.Properties?.Role?.['Fn::GetAtt']?.[0] as string | undefined;
    if (!role) continue;
    const declarations = Object.values(ressources)
      .filter((p) => p.Type === 'AWS::IAM::Policy' && (p.Properties.Roles as Json[]).some((x) => x.Ref === role))
      .flatMap((p) => resoudre(ressources, p.Properties.PolicyDocument.Statement) as Declaration[]);
    const environnement = resoudre(ressources, r.Properties?.Environment?.Variables ?? {}) as Record<string, string>;
    fonctions.set(chemin, { chemin, role, declarations, environnement });
  }
  return { fonctions };
};

/** What the local names of a recorded call are on AWS: the template's table, bucket, machine and secrets. */
export interface Correspondance {
  table: { local: string; aws: string };
  bucket: { local: string; aws: string };
  machine: { local: string; aws: string };
  secretLiens: string;
  secretC2pa: string;
  /** The webhook delivery queue's ARN (from its URL: https://sqs.<region>.<suffix>/<account>/<name>). */
  fileWebhooks: string;
}

export const correspondanceDepuis = (modele: Modele, local: { table: string; bucket: string; machine: string }): Correspondance => {
  const envs = [...modele.fonctions.values()].map((f) => f.environnement);
  const premier = (nom: string): string => {
    const v = envs.find((e) => e[nom])?.[nom];
    if (!v) throw new Error(`no function of the template has ${nom}`);
    return v;
  };
  return {
    table: { local: local.table, aws: premier('RETOUCHE_TABLE') },
    bucket: { local: local.bucket, aws: premier('RETOUCHE_BUCKET') },
    machine: { local: local.machine, aws: premier('RETOUCHE_MACHINE_ARN') },
    secretLiens: premier('RETOUCHE_LIENS_SECRET_ARN'),
    secretC2pa: premier('RETOUCHE_C2PA_SECRET_ARN'),
    fileWebhooks: `arn:aws:sqs:${REGION}:${COMPTE}:${premier('RETOUCHE_WEBHOOKS_FILE_URL').split('/').pop()}`,
  };
};

/** The ARN a recorded call's resource has on AWS. */
export const arnSurAws = (c: Correspondance, r: RessourceAppelee): string => {
  const exiger = (local: string, attendu: string, quoi: string) => {
    if (local !== attendu) throw new Error(`a call on ${quoi} ${local}, not the stack's (${attendu})`);
  };
  switch (r.type) {
    case 'table':
      exiger(r.table, c.table.local, 'table');
      return `arn:aws:dynamodb:${REGION}:${COMPTE}:table/${c.table.aws}${r.index ? `/index/${r.index}` : ''}`;
    case 'objet':
      exiger(r.bucket, c.bucket.local, 'bucket');
      return `arn:aws:s3:::${c.bucket.aws}/${r.cle}`;
    case 'bucket':
      exiger(r.bucket, c.bucket.local, 'bucket');
      return `arn:aws:s3:::${c.bucket.aws}`;
    case 'machine':
      exiger(r.arn, c.machine.local, 'state machine');
      return c.machine.aws;
    case 'execution': {
      // arn:aws:states:<region>:<account>:execution:<machine>:<name>
      const machineLocale = c.machine.local.split(':').pop();
      const [, , , , , , machine, nom] = r.arn.split(':');
      exiger(machine!, machineLocale!, 'state machine');
      return `arn:aws:states:${REGION}:${COMPTE}:execution:${c.machine.aws.split(':').pop()}:${nom}`;
    }
    case 'secret':
      return r.quel === 'liens' ? c.secretLiens : c.secretC2pa;
    case 'file':
      return c.fileWebhooks;
  }
};

export interface Verdict {
  appel: AppelAws;
  arn: string;
  resultat: string;
}

/** Evaluates one call against the role's statements (identity policies only: no SCP, boundary or resource policy here). */
export const evaluer = async (fonction: FonctionModele, appel: AppelAws, arn: string): Promise<string> => {
  const contexte: Record<string, string | string[]> = {};
  // LeadingKeys is multivalued: every partition key the request touches (ForAllValues in the policies).
  if (appel.clesPrincipales) contexte['dynamodb:LeadingKeys'] = appel.clesPrincipales;
  const reponse = await runSimulation(
    {
      request: {
        principal: `arn:aws:iam::${COMPTE}:role/${fonction.role}`,
        action: appel.action,
        resource: { resource: arn, accountId: COMPTE },
        contextVariables: contexte,
      },
      identityPolicies: [{ name: 'role', policy: { Version: '2012-10-17', Statement: fonction.declarations } }],
      serviceControlPolicies: [],
      resourceControlPolicies: [],
    },
    { simulationMode: 'Strict' },
  );
  if (reponse.resultType === 'error') return `error: ${JSON.stringify(reponse.errors)}`;
  return reponse.overallResult;
};

/** Every action a role grants (wildcards as written). */
export const actionsAccordees = (f: FonctionModele): string[] =>
  [...new Set(f.declarations.filter((d) => d.Effect === 'Allow').flatMap((d) => [d.Action].flat()))].sort();
