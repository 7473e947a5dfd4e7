/**
 * The synthesized template, run locally: what `cdk synth` wrote (the template, its assets manifest,
 * each function's bundled asset, the state machine's definition asset) is run against the local
 * stand-ins, not the handler modules of the source tree. Each AWS::Lambda::Function is loaded from its
 * asset with its `Handler`, in its own worker thread with its `Environment.Variables` as the template
 * sets them, references resolved to the stand-ins:
 *
 * - Ref of the table, the bucket, the state machine, a secret → the local table (created from the
 *   template's key schema and indexes), the s3rver bucket, the local machine's ARN, the local Secrets
 *   Manager's ARN of that secret;
 * - GetAtt of a custom resource (the link key, the C2PA key) → the `Data` its own deploy-time function
 *   answered when this module ran it (Create), as CloudFormation would, against the local Secrets
 *   Manager; GetAtt Arn of a function → its local ARN;
 * - the API's invoke URL (`https://<api>.execute-api.<region>.<suffix>/<stage>`) → the local gateway;
 * - Ref of a queue → its local URL; GetAtt Arn, QueueName, QueueUrl → the local queue's (local/sqs.ts,
 *   each queue named by its logical id, its RedrivePolicy's dead-letter queue and maxReceiveCount kept).
 *
 * Each AWS::Lambda::EventSourceMapping of a queue has the local SQS give that queue's messages to its
 * function's worker, in batches of its BatchSize, at most its ScalingConfig.MaximumConcurrency batches
 * at a time, and reads the function's batchItemFailures only when its FunctionResponseTypes says
 * ReportBatchItemFailures, as Lambda does.
 *
 * The stand-ins are reached through the SDK's standard variables (AWS_ENDPOINT_URL_DYNAMODB, _S3,
 * _SFN, _SECRETS_MANAGER, _SQS), a region, dummy credentials (s3rver's), and RETOUCHE_S3_CHEMIN=1
 * (path-style, which s3rver needs): added to each function's environment, never over a variable of
 * the template (that would hide a renamed one). The state machine is the template's definition
 * asset with its DefinitionSubstitutions applied; each Task's function ARN is run by that function's
 * worker. Routes come from the template's API methods (method, resource path → integration function).
 *
 * sharp: image functions' assets hold sharp installed for linux-arm64 (Lambda's platform), whose
 * native part cannot load on this machine. Those assets are COPIED and the host's prebuilt sharp
 * binary package of the same version is added to the copy; nothing else changes (sharp's JS, c2pa-wasm,
 * the bundle). The arm64 install itself is proven separately, under emulation.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { CreateTableCommand, DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { BASE_CHEMIN, ROUTES } from '../lambdas/http/routes';
import { demarrerCognito, type CognitoLocal } from './cognito';
import { clientDynamoLocal } from './dynamodb';
import { demarrerFonctionWorker, type FonctionWorker } from './fonction-worker';
import { demarrerPasserelle } from './passerelle';
import { demarrerS3, identifiantsS3Local } from './s3';
import { demarrerSqs, type SqsLocal } from './sqs';
import { demarrerStepFunctions, type StepFunctionsLocal } from './stepfunctions';

const RACINE = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
const REGION = 'us-east-1';
const COMPTE = '000000000000';

export interface Ressource {
  Type: string;
  Properties?: Record<string, any>;
}
export interface Template {
  Resources: Record<string, Ressource>;
}
interface ManifesteAssets {
  files: Record<string, { source: { path: string; packaging?: string }; destinations: Record<string, { objectKey: string }> }>;
}

export interface Synthese {
  dossier: string;
  template: Template;
  assets: ManifesteAssets;
  /** What `cdk synth` printed, when `synthetiser` ran it. */
  sortieCdk?: { stdout: string; stderr: string };
}

/** `cdk synth` as a deploy runs it (the CLI, cdk.json's app, real bundling), into `dossier`. */
export const synthetiser = async (dossier: string, contexte: Record<string, string>): Promise<Synthese> => {
  const cdk = path.join(RACINE, 'node_modules', '.bin', 'cdk');
  // The Region these stand-ins play (a synth needs one named: bin/retouche.ts), unless the caller names another.
  const args = ['synth', '-q', '-o', dossier, ...Object.entries({ region: REGION, ...contexte }).flatMap(([k, v]) => ['-c', `${k}=${v}`])];
  const { stdout, stderr } = await promisify(execFile)(cdk, args, {
    cwd: RACINE,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, CDK_DISABLE_VERSION_CHECK: '1' },
  });
  const fichier = readdirSync(dossier).find((f) => f.endsWith('.template.json'));
  if (!fichier) throw new Error(`cdk synth wrote no template in ${dossier}`);
  return { ...lireSynthese(dossier, fichier.replace(/\.template\.json$/, '')), sortieCdk: { stdout, stderr } };
};

export const lireSynthese = (dossier: string, pile: string): Synthese => ({
  dossier,
  template: JSON.parse(readFileSync(path.join(dossier, `${pile}.template.json`), 'utf8')) as Template,
  assets: JSON.parse(readFileSync(path.join(dossier, `${pile}.assets.json`), 'utf8')) as ManifesteAssets,
});

/** The file or directory CloudFormation would get for an S3 key of the assets bucket. */
export const cheminAsset = (s: Synthese, cle: string): string => {
  for (const asset of Object.values(s.assets.files)) {
    if (Object.values(asset.destinations).some((d) => d.objectKey === cle)) return path.join(s.dossier, asset.source.path);
  }
  throw new Error(`no asset of the manifest is uploaded as ${cle}`);
};

/** What each reference of the template becomes locally. */
export interface Resolveur {
  ref(id: string): string;
  getAtt(id: string, attribut: string): string;
}

/** Resolves the intrinsic functions the template uses; anything else stops, rather than guessing. */
export const resoudre = (valeur: unknown, r: Resolveur): any => {
  if (typeof valeur === 'string' || typeof valeur === 'number' || typeof valeur === 'boolean' || valeur === null) return valeur;
  if (Array.isArray(valeur)) return valeur.map((v) => resoudre(v, r));
  const objet = valeur as Record<string, unknown>;
  const cles = Object.keys(objet);
  if (cles.length === 1 && (cles[0] === 'Ref' || cles[0]!.startsWith('Fn::'))) {
    const [fn, arg] = [cles[0]!, objet[cles[0]!] as any];
    switch (fn) {
      case 'Ref':
        return r.ref(arg);
      case 'Fn::GetAtt': {
        const [id, attribut] = typeof arg === 'string' ? arg.split(/\.(.*)/) : arg;
        return r.getAtt(id, attribut);
      }
      case 'Fn::Join':
        return (resoudre(arg[1], r) as string[]).join(arg[0]);
      case 'Fn::Select':
        return resoudre(arg[1], r)[Number(resoudre(arg[0], r))];
      case 'Fn::Split':
        return String(resoudre(arg[1], r)).split(arg[0]);
      case 'Fn::Sub': {
        const [texte, variables] = typeof arg === 'string' ? [arg, {}] : [arg[0] as string, resoudre(arg[1], r) as Record<string, string>];
        return texte.replace(/\$\{([^}!]+)\}/g, (_, nom: string) => {
          if (nom in variables) return variables[nom]!;
          const [id, attribut] = nom.split(/\.(.*)/);
          return attribut ? r.getAtt(id!, attribut) : r.ref(id!);
        });
      }
      default:
        throw new Error(`no local resolution for ${fn}`);
    }
  }
  return Object.fromEntries(Object.entries(objet).map(([k, v]) => [k, resoudre(v, r)]));
};

const lireCorps = async (requete: IncomingMessage): Promise<string> => {
  let corps = '';
  for await (const morceau of requete) corps += morceau;
  return corps;
};

/**
 * Secrets Manager (GetSecretValue, PutSecretValue with AWSCURRENT/AWSPREVIOUS) for the template's
 * secrets, each starting with a generated value as CloudFormation's GenerateSecretString gives, and
 * the response URL of custom resources (CloudFormation's pre-signed S3 URL), on one local server.
 */
export const demarrerSecrets = async (arns: string[]) => {
  const secrets = new Map<string, { courant: string; precedent?: string }>(arns.map((a) => [a, { courant: randomBytes(24).toString('base64url') }]));
  const reponses = new Map<string, { Status: string; Reason?: string; Data?: Record<string, string> }>();
  const serveur: Server = createServer(async (req, res) => {
    const corps = await lireCorps(req);
    if (req.method === 'PUT') {
      reponses.set(decodeURIComponent((req.url ?? '').split('/').pop() ?? ''), JSON.parse(corps));
      res.writeHead(200).end();
      return;
    }
    const repondre = (statut: number, contenu: unknown, type?: string) =>
      res.writeHead(statut, { 'content-type': 'application/x-amz-json-1.1', ...(type ? { 'x-amzn-errortype': type } : {}) }).end(JSON.stringify(contenu));
    const cible = String(req.headers['x-amz-target']);
    const entree = JSON.parse(corps || '{}') as { SecretId: string; SecretString?: string; VersionStage?: string };
    const secret = secrets.get(entree.SecretId);
    if (!secret)
      return repondre(400, { __type: 'ResourceNotFoundException', message: `Secrets Manager can't find the specified secret.` }, 'ResourceNotFoundException');
    if (cible === 'secretsmanager.GetSecretValue') {
      const valeur = entree.VersionStage === 'AWSPREVIOUS' ? secret.precedent : secret.courant;
      if (valeur === undefined) return repondre(400, { __type: 'ResourceNotFoundException', message: 'no such version' }, 'ResourceNotFoundException');
      return repondre(200, { ARN: entree.SecretId, Name: entree.SecretId.split(':').pop(), SecretString: valeur, VersionId: randomUUID() });
    }
    if (cible === 'secretsmanager.PutSecretValue') {
      secrets.set(entree.SecretId, { courant: entree.SecretString ?? '', precedent: secret.courant });
      return repondre(200, { ARN: entree.SecretId, VersionId: randomUUID() });
    }
    repondre(400, { __type: 'UnknownOperationException', message: cible }, 'UnknownOperationException');
  });
  await new Promise<void>((ok) => serveur.listen(0, '127.0.0.1', ok));
  const endpoint = `http://127.0.0.1:${(serveur.address() as AddressInfo).port}`;
  return { endpoint, secrets, reponses, arreter: () => new Promise<void>((ok) => serveur.close(() => ok())) };
};

/**
 * A copy of an image function's asset that loads on this machine: the host's prebuilt sharp binary
 * (`@img/sharp-<os>-<arch>` and its libvips) of the exact version the asset's sharp expects, taken
 * from the project's node_modules. The asset's own files are left as they are.
 */
const copieAvecSharpHote = (asset: string, destination: string): string => {
  cpSync(asset, destination, { recursive: true });
  const versionSharp = JSON.parse(readFileSync(path.join(destination, 'node_modules', 'sharp', 'package.json'), 'utf8')) as {
    version: string;
    optionalDependencies: Record<string, string>;
  };
  const hote = `${process.platform}-${process.arch}`;
  for (const paquet of [`@img/sharp-${hote}`, `@img/sharp-libvips-${hote}`]) {
    const source = path.join(RACINE, 'node_modules', paquet);
    const version = (JSON.parse(readFileSync(path.join(source, 'package.json'), 'utf8')) as { version: string }).version;
    if (versionSharp.optionalDependencies[paquet] !== version) {
      throw new Error(`the asset's sharp ${versionSharp.version} wants ${paquet}@${versionSharp.optionalDependencies[paquet]}, the host has ${version}`);
    }
    cpSync(source, path.join(destination, 'node_modules', paquet), { recursive: true, dereference: true });
  }
  return destination;
};

/** A function of the template, as it will be loaded. */
export interface FonctionTemplate {
  id: string;
  racine: string;
  /** The asset directory itself (the copy, if any, is `racine`). */
  asset: string;
  handler: string;
  env: Record<string, string>;
  memoireMo?: number;
  delaiSecondes?: number;
}

export interface PileTemplate {
  urlBase: string;
  table: string;
  dynamo: DynamoDBClient;
  fonctions: Record<string, FonctionTemplate>;
  workers: Record<string, FonctionWorker>;
  stepFunctions: StepFunctionsLocal;
  /** Route `fonction` (routes.ts) → logical id of the template's function for it. */
  routes: Record<string, string>;
  /** The local Secrets Manager's current value of a template secret (by logical id). */
  secret(id: string): string | undefined;
  /** The stand-in of the template's user pool. */
  cognito: CognitoLocal;
  /** The local SQS: the template's queues, each named by its logical id (`messages('Dlq')` reads a dead-letter queue). */
  sqs: SqsLocal;
  arreter(): Promise<void>;
}

export interface OptionsPileTemplate {
  synthese: Synthese;
  dynamoEndpoint: string;
  /** The template as read, or changed by a test (a renamed variable, a wrong handler). */
  template?: Template;
  pauseReessaiMs?: number;
  /** Extra environment for every function (e.g. POWERTOOLS_LOG_LEVEL for quiet tests). */
  environnementLocal?: Record<string, string>;
}

const parType = (t: Template, type: string) => Object.entries(t.Resources).filter(([, r]) => r.Type === type);

/** The template's API methods: `METHOD /path` → logical id of the integration's function. */
export const routesDuTemplate = (t: Template): Map<string, string> => {
  const chemin = (ressource: unknown): string => {
    const ref = (ressource as { Ref?: string }).Ref;
    if (!ref) return ''; // GetAtt RestApi.RootResourceId
    const r = t.Resources[ref]!.Properties!;
    return `${chemin(r.ParentId)}/${r.PathPart as string}`;
  };
  const routes = new Map<string, string>();
  for (const [, methode] of parType(t, 'AWS::ApiGateway::Method')) {
    const p = methode.Properties!;
    const fonction = JSON.stringify(p.Integration?.Uri ?? '').match(/"Fn::GetAtt":\["(\w+)","Arn"\]/)?.[1];
    if (fonction && t.Resources[fonction]?.Type === 'AWS::Lambda::Function') routes.set(`${p.HttpMethod as string} ${chemin(p.ResourceId) || '/'}`, fonction);
  }
  return routes;
};

export const demarrerPileTemplate = async (o: OptionsPileTemplate): Promise<PileTemplate> => {
  const t = o.template ?? o.synthese.template;
  const arrets: (() => Promise<void>)[] = [];
  const arreter = async () => {
    for (const a of arrets.reverse()) await a().catch(() => undefined);
    arrets.length = 0;
  };
  try {
    const temporaire = mkdtempSync(path.join(tmpdir(), 'retouche-template-'));
    arrets.push(async () => rmSync(temporaire, { recursive: true, force: true }));
    const unique = randomUUID().slice(0, 8);

    // Stand-ins for the template's stateful resources.
    const [tables, seaux, machines, apis] = ['AWS::DynamoDB::Table', 'AWS::S3::Bucket', 'AWS::StepFunctions::StateMachine', 'AWS::ApiGateway::RestApi'].map(
      (type) => parType(t, type),
    );
    if (tables!.length !== 1 || seaux!.length !== 1 || machines!.length !== 1 || apis!.length !== 1)
      throw new Error('expected one table, one bucket, one state machine, one REST API');
    const [idTable, table] = tables![0]!;
    const [idSeau] = seaux![0]!;
    const [idMachine, machine] = machines![0]!;
    const [idApi] = apis![0]!;
    const nomTable = `retouche-template-${unique}`;
    const nomSeau = `retouche-template-${unique}`;
    const dynamo = clientDynamoLocal(o.dynamoEndpoint);
    const pt = table.Properties!;
    await dynamo.send(
      new CreateTableCommand({
        TableName: nomTable,
        AttributeDefinitions: pt.AttributeDefinitions,
        KeySchema: pt.KeySchema,
        BillingMode: 'PAY_PER_REQUEST',
        ...(pt.GlobalSecondaryIndexes
          ? {
              GlobalSecondaryIndexes: (pt.GlobalSecondaryIndexes as any[]).map((i) => ({
                IndexName: i.IndexName,
                KeySchema: i.KeySchema,
                Projection: i.Projection,
              })),
            }
          : {}),
      }),
    );
    await dynamo.send(new DescribeTableCommand({ TableName: nomTable }));
    const s3 = await demarrerS3({ dossier: path.join(temporaire, 's3'), seaux: [nomSeau] });
    arrets.push(s3.arreter);
    const arnSecret = (id: string) => `arn:aws:secretsmanager:${REGION}:${COMPTE}:secret:${id}`;
    const secrets = await demarrerSecrets(parType(t, 'AWS::SecretsManager::Secret').map(([id]) => arnSecret(id)));
    arrets.push(secrets.arreter);
    const arnMachine = `arn:aws:states:${REGION}:${COMPTE}:stateMachine:${idMachine}`;
    const arnFonction = (id: string) => `arn:aws:lambda:${REGION}:${COMPTE}:function:${id}`;
    // The queues: started whether the template has any or not (an idle server), each named by its logical id.
    const sqs = await demarrerSqs({ region: REGION, compte: COMPTE });
    arrets.push(sqs.arreter);
    const idsFiles = parType(t, 'AWS::SQS::Queue').map(([id]) => id);
    const urlFile = (id: string) => `${sqs.endpoint}/${COMPTE}/${id}`;
    const arnFile = (id: string) => `arn:aws:sqs:${REGION}:${COMPTE}:${id}`;

    // The gateway first: the API's URL is in the functions' environment (the links' base).
    const handlersHttp: Record<string, (e: APIGatewayProxyEvent, c: Context) => Promise<APIGatewayProxyResult>> = {};
    let fichiers: ((req: IncomingMessage, res: ServerResponse) => Promise<boolean>) | undefined;
    const etape = (parType(t, 'AWS::ApiGateway::Stage')[0]?.[1].Properties?.StageName as string | undefined) ?? 'v1';
    const passerelle = await demarrerPasserelle({
      port: 0,
      handlers: handlersHttp,
      etape,
      autres: (req, res) => (fichiers ? fichiers(req, res) : Promise.resolve(false)),
    });
    arrets.push(passerelle.arreter);
    const origine = `http://127.0.0.1:${passerelle.port}`;
    // The web site's user pool and app client: the Cognito emulator's.
    const cognito: CognitoLocal = await demarrerCognito({ dossier: temporaire });
    arrets.push(cognito.arreter);
    const idRestApi = `api${unique}`;

    const donneesPersonnalisees = new Map<string, Record<string, string>>();
    const resolveur: Resolveur = {
      ref: (id) => {
        const pseudo: Record<string, string> = {
          'AWS::Region': REGION,
          'AWS::AccountId': COMPTE,
          'AWS::Partition': 'aws',
          'AWS::URLSuffix': 'amazonaws.com',
          'AWS::StackName': 'local',
        };
        if (id in pseudo) return pseudo[id]!;
        if (id === idTable) return nomTable;
        if (id === idSeau) return nomSeau;
        if (id === idMachine) return arnMachine;
        if (id === idApi) return idRestApi;
        const type = t.Resources[id]?.Type;
        if (type === 'AWS::SecretsManager::Secret') return arnSecret(id);
        if (type === 'AWS::Cognito::UserPool') return cognito.pool;
        if (type === 'AWS::Cognito::UserPoolClient') return cognito.client;
        if (type === 'AWS::SQS::Queue') return urlFile(id);
        // A function's name: the local function is named by its logical id.
        if (type === 'AWS::Lambda::Function') return id;
        throw new Error(`no local stand-in for Ref ${id} (${type ?? 'not in the template'})`);
      },
      getAtt: (id, attribut) => {
        const type = t.Resources[id]?.Type;
        if (type === 'AWS::Lambda::Function' && attribut === 'Arn') return arnFonction(id);
        if (type === 'AWS::SQS::Queue') {
          const attributs: Record<string, string> = { Arn: arnFile(id), QueueName: id, QueueUrl: urlFile(id) };
          if (attribut in attributs) return attributs[attribut]!;
        }
        const donnees = donneesPersonnalisees.get(id);
        if (type?.startsWith('Custom::') && donnees) {
          if (!(attribut in donnees)) throw new Error(`custom resource ${id} answered no ${attribut}`);
          return donnees[attribut]!;
        }
        throw new Error(`no local stand-in for GetAtt ${id}.${attribut} (${type ?? 'not in the template'})`);
      },
    };
    // Each queue after its dead-letter queue (creerFile wants it there), with the redrive policy's count.
    // The template's VisibilityTimeout (minutes, sized for Lambda's timeout) is not kept: a failed
    // delivery comes back after the local SQS's short default.
    const creees = new Set<string>();
    const creerFile = (id: string) => {
      if (creees.has(id)) return;
      creees.add(id);
      const p = t.Resources[id]!.Properties ?? {};
      const brute: unknown = p.RedrivePolicy === undefined ? undefined : resoudre(p.RedrivePolicy, resolveur);
      const redrive = (typeof brute === 'string' ? JSON.parse(brute) : brute) as
        { deadLetterTargetArn?: string; maxReceiveCount?: number | string } | undefined;
      let fileEchec: string | undefined;
      if (redrive) {
        fileEchec = idsFiles.find((autre) => arnFile(autre) === redrive.deadLetterTargetArn);
        if (!fileEchec) throw new Error(`queue ${id}: its dead-letter queue ${redrive.deadLetterTargetArn} is no queue of the template`);
        creerFile(fileEchec);
      }
      const creee = sqs.creerFile(id, redrive ? { fileEchec, maxReceptions: Number(redrive.maxReceiveCount) } : undefined);
      if (creee.url !== urlFile(id) || creee.arn !== arnFile(id)) throw new Error(`queue ${id}: URL or ARN`);
    };
    for (const id of idsFiles) creerFile(id);
    // The API's invoke URL, as API Gateway builds it, is the local gateway's origin.
    const urlApi = new RegExp(`^https://${idRestApi}\\.execute-api\\.${REGION}\\.amazonaws\\.com/${etape}(?=/|$)`);
    // The user pool's issuer, as Cognito names it, is the emulator's.
    const emetteur = `https://cognito-idp.${REGION}.amazonaws.com/${cognito.pool}`;
    const versLocal = (v: string) => (v === emetteur ? cognito.emetteur : v.replace(urlApi, origine));

    const local: Record<string, string> = {
      AWS_REGION: REGION,
      AWS_DEFAULT_REGION: REGION,
      AWS_ACCESS_KEY_ID: identifiantsS3Local.accessKeyId,
      AWS_SECRET_ACCESS_KEY: identifiantsS3Local.secretAccessKey,
      // As Lambda gives a role's temporary credentials: the SDK's environment source answers first.
      AWS_SESSION_TOKEN: 'local',
      AWS_CONFIG_FILE: path.join(temporaire, 'aucun'),
      AWS_SHARED_CREDENTIALS_FILE: path.join(temporaire, 'aucun'),
      AWS_ENDPOINT_URL_DYNAMODB: o.dynamoEndpoint,
      AWS_ENDPOINT_URL_S3: s3.endpoint,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
      AWS_ENDPOINT_URL_SQS: sqs.endpoint,
      RETOUCHE_S3_CHEMIN: '1',
      POWERTOOLS_METRICS_DISABLED: 'true',
      POWERTOOLS_TRACE_ENABLED: 'false',
    };

    const fonctions: Record<string, FonctionTemplate> = {};
    const workers: Record<string, FonctionWorker> = {};
    const preparer = (id: string): FonctionTemplate => {
      const p = t.Resources[id]!.Properties!;
      if (!p.Code?.S3Key) throw new Error(`function ${id}: no S3 asset code`);
      const asset = cheminAsset(o.synthese, String(resoudre(p.Code.S3Key, resolveur)));
      const racine = existsSync(path.join(asset, 'node_modules', 'sharp')) ? copieAvecSharpHote(asset, path.join(temporaire, 'code', id)) : asset;
      const variables = Object.fromEntries(
        Object.entries((p.Environment?.Variables ?? {}) as Record<string, unknown>).map(([k, v]) => [k, versLocal(String(resoudre(v, resolveur)))]),
      );
      for (const k of Object.keys(local)) if (k in variables) throw new Error(`function ${id}: the template sets ${k}, which the local stand-ins set too`);
      // What the Lambda runtime sets in every container (X-Ray's daemon aside: tracing is off locally).
      const runtime: Record<string, string> = {
        AWS_LAMBDA_FUNCTION_NAME: id,
        AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
        AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(p.MemorySize ?? 128),
        AWS_EXECUTION_ENV: `AWS_Lambda_${String(p.Runtime)}`,
        LAMBDA_TASK_ROOT: racine,
        TZ: ':UTC',
      };
      for (const k of Object.keys(runtime)) if (k in variables) throw new Error(`function ${id}: the template sets ${k}, a reserved variable of the runtime`);
      return {
        id,
        asset,
        racine,
        handler: String(p.Handler),
        env: { ...variables, ...runtime, ...local, ...o.environnementLocal },
        memoireMo: p.MemorySize,
        delaiSecondes: p.Timeout,
      };
    };
    const charger = async (id: string) => {
      const f = (fonctions[id] = preparer(id));
      workers[id] = await demarrerFonctionWorker({
        nom: id,
        racine: f.racine,
        handler: f.handler,
        env: f.env,
        memoireMo: f.memoireMo,
        delaiSecondes: f.delaiSecondes,
      });
      arrets.push(workers[id]!.arreter);
      return workers[id]!;
    };

    // The state machine: its definition asset (or string) with the template's substitutions.
    const pm = machine.Properties!;
    let texte = pm.DefinitionS3Location
      ? readFileSync(cheminAsset(o.synthese, String(resoudre(pm.DefinitionS3Location.Key, resolveur))), 'utf8')
      : String(resoudre(pm.DefinitionString, resolveur));
    for (const [nom, valeur] of Object.entries((resoudre(pm.DefinitionSubstitutions ?? {}, resolveur) ?? {}) as Record<string, string>))
      texte = texte.split(`\${${nom}}`).join(valeur);
    const definition = JSON.parse(texte) as { States: Record<string, { Type: string; Resource?: string }> };
    // Each Task's function ARN → that function's worker (stepfunctions.ts maps `${<Nom>FunctionArn}` to handler <Nom>).
    const taches: Record<string, string> = {};
    for (const [nomEtat, etatMachine] of Object.entries(definition.States)) {
      if (etatMachine.Type !== 'Task') continue;
      const id = Object.keys(t.Resources).find((r) => t.Resources[r]!.Type === 'AWS::Lambda::Function' && arnFonction(r) === etatMachine.Resource);
      if (!id) throw new Error(`state ${nomEtat}: ${etatMachine.Resource} is no function of the template`);
      etatMachine.Resource = `\${${id}FunctionArn}`;
      taches[id] = id;
    }
    const fichierDefinition = path.join(temporaire, 'definition.asl.json');
    writeFileSync(fichierDefinition, JSON.stringify(definition));
    const handlersTaches: Record<string, (e: unknown, c: Context) => Promise<unknown>> = {};
    for (const id of Object.keys(taches)) handlersTaches[id] = (e, c) => workers[id]!.invoquer(e, c);
    const stepFunctions = await demarrerStepFunctions({
      definition: fichierDefinition,
      nomMachine: idMachine,
      handlers: handlersTaches,
      pauseReessaiMs: o.pauseReessaiMs,
    });
    arrets.push(stepFunctions.arreter);
    if (stepFunctions.arnMachine !== arnMachine) throw new Error('state machine ARN');
    local.AWS_ENDPOINT_URL_SFN = stepFunctions.endpoint;

    // Custom resources: their deploy-time functions run (Create), and their Data is what GetAtt gives.
    for (const [id, ressource] of Object.entries(t.Resources).filter(
      ([, r]) => r.Type.startsWith('Custom::') || r.Type === 'AWS::CloudFormation::CustomResource',
    )) {
      const proprietes = resoudre(ressource.Properties, resolveur) as Record<string, string>;
      const service = proprietes.ServiceToken!.split(':').pop()!;
      if (arnFonction(service) !== proprietes.ServiceToken) throw new Error(`custom resource ${id}: its service token is no function of the template`);
      const generateur = workers[service] ?? (await charger(service));
      const requete = randomUUID();
      await generateur.invoquer({
        RequestType: 'Create',
        ResponseURL: `${secrets.endpoint}/reponses/${requete}`,
        StackId: `arn:aws:cloudformation:${REGION}:${COMPTE}:stack/local/${unique}`,
        RequestId: requete,
        ResourceType: ressource.Type,
        LogicalResourceId: id,
        ResourceProperties: proprietes,
      });
      const reponse = secrets.reponses.get(requete);
      if (reponse?.Status !== 'SUCCESS') throw new Error(`custom resource ${id}: ${reponse ? `${reponse.Status} ${reponse.Reason ?? ''}` : 'no response'}`);
      donneesPersonnalisees.set(id, reponse.Data ?? {});
    }

    // Every other function of the template, each in its own worker (a broken bundle or handler stops here).
    const restantes = parType(t, 'AWS::Lambda::Function')
      .map(([id]) => id)
      .filter((id) => !workers[id]);
    await Promise.all(restantes.map((id) => charger(id)));

    // Event source mappings: each queue's messages to its function's worker, as Lambda polls for it.
    for (const [idLien, lien] of parType(t, 'AWS::Lambda::EventSourceMapping')) {
      const p = lien.Properties!;
      if (p.Enabled === false) continue;
      const source = String(resoudre(p.EventSourceArn, resolveur));
      const file = idsFiles.find((id) => arnFile(id) === source);
      if (!file) throw new Error(`event source mapping ${idLien}: no local stand-in for its source ${source}`);
      const nomFonction = String(resoudre(p.FunctionName, resolveur));
      const fonction = Object.keys(workers).find((id) => id === nomFonction || arnFonction(id) === nomFonction);
      if (!fonction) throw new Error(`event source mapping ${idLien}: ${nomFonction} is no function of the template`);
      // Without ReportBatchItemFailures Lambda ignores the answer: the batch succeeded unless the function threw.
      const partiels = ((p.FunctionResponseTypes ?? []) as string[]).includes('ReportBatchItemFailures');
      // Without it, Lambda scales the batches up to the function's concurrency: no bound here.
      const concurrence: unknown = p.ScalingConfig?.MaximumConcurrency;
      sqs.consommer(
        file,
        async (evenement) => {
          const reponse = await workers[fonction]!.invoquer(evenement);
          return partiels ? reponse : undefined;
        },
        // 10: Lambda's default batch size for a queue.
        { tailleLot: Number(p.BatchSize ?? 10), ...(concurrence !== undefined ? { concurrenceMax: Number(concurrence) } : {}) },
      );
    }
    // Deliveries stop before the functions they call (stops run last first; a second stop does nothing).
    arrets.push(sqs.arreter);

    // Routes, from the template's API methods.
    const methodes = routesDuTemplate(t);
    const routes: Record<string, string> = {};
    for (const route of ROUTES) {
      const id = methodes.get(`${route.methode} ${BASE_CHEMIN}${route.chemin}`);
      if (!id) throw new Error(`the template's API has no ${route.methode} ${BASE_CHEMIN}${route.chemin}`);
      routes[route.fonction] = id;
    }
    const introuvable = methodes.get('ANY /{proxy+}');
    if (!introuvable) throw new Error("the template's API has no ANY /{proxy+}");
    routes.introuvable = introuvable;
    for (const [fonction, id] of Object.entries(routes)) handlersHttp[fonction] = (e, c) => workers[id]!.invoquer(e, c) as Promise<APIGatewayProxyResult>;
    const idFichier = methodes.get(`GET ${BASE_CHEMIN}/fichiers/{proxy+}`);
    if (idFichier) {
      // `-c liens=api`: the links route, a proxy resource the local gateway does not list (routes.ts).
      const prefixe = `${BASE_CHEMIN}/fichiers/`;
      fichiers = async (req, res) => {
        const url = new URL(req.url ?? '/', origine);
        if (req.method !== 'GET' || !url.pathname.startsWith(prefixe)) return false;
        const multiples: Record<string, string[]> = {};
        for (const [k, v] of url.searchParams) (multiples[k] ??= []).push(v);
        const evenement = {
          resource: `${prefixe}{proxy+}`,
          path: url.pathname,
          httpMethod: 'GET',
          headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
          multiValueHeaders: {},
          queryStringParameters: url.searchParams.size ? Object.fromEntries(url.searchParams) : null,
          multiValueQueryStringParameters: url.searchParams.size ? multiples : null,
          pathParameters: { proxy: url.pathname.slice(prefixe.length) },
          stageVariables: null,
          body: null,
          isBase64Encoded: false,
          requestContext: {
            stage: etape,
            requestId: randomUUID(),
            httpMethod: 'GET',
            path: `/${etape}${url.pathname}`,
            resourcePath: `${prefixe}{proxy+}`,
            identity: { sourceIp: '127.0.0.1' },
          },
        };
        const r = (await workers[idFichier]!.invoquer(evenement, { getRemainingTimeInMillis: () => 29_000 })) as APIGatewayProxyResult;
        const corps = Buffer.from(r.body ?? '', r.isBase64Encoded ? 'base64' : 'utf8');
        res.writeHead(r.statusCode, { ...(r.headers as Record<string, string>), 'Content-Length': String(corps.length) }).end(corps);
        return true;
      };
    }

    return {
      urlBase: `${origine}${BASE_CHEMIN}`,
      table: nomTable,
      dynamo,
      fonctions,
      workers,
      stepFunctions,
      routes,
      secret: (id) => secrets.secrets.get(arnSecret(id))?.courant,
      cognito,
      sqs,
      arreter: async () => {
        await stepFunctions.attendreInactivite().catch(() => undefined);
        await arreter();
      },
    };
  } catch (erreur) {
    await arreter();
    throw erreur;
  }
};
