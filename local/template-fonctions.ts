/**
 * The template's functions in their local run (local/pile-template.ts): each loaded from its asset
 * with its Handler, in its own worker thread, with its environment as the template sets it (resolved
 * to the stand-ins), what the Lambda runtime adds, and what reaches the stand-ins. Image functions run
 * from a copy of their asset with the host's sharp binary (the asset's is for linux-arm64). The
 * deploy-time functions of custom resources run here too, as CloudFormation runs them.
 */
import { randomUUID } from 'node:crypto';
import { cpSync, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { demarrerFonctionWorker, type FonctionWorker } from './fonction-worker';
import { identifiantsS3Local } from './s3';
import type { Ressources } from './template-ressources';
import { cheminAsset, COMPTE, RACINE, REGION, resoudre, type Resolveur, type Synthese, type Template } from './template-synthese';

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

/**
 * What every function is given to reach the stand-ins, through the SDK's standard variables; never
 * over a variable of the template (that would hide a renamed one). `AWS_ENDPOINT_URL_SFN` is added
 * once the state machine runs.
 */
export const environnementLocal = (dynamoEndpoint: string, r: Ressources, temporaire: string): Record<string, string> => ({
  AWS_REGION: REGION,
  AWS_DEFAULT_REGION: REGION,
  AWS_ACCESS_KEY_ID: identifiantsS3Local.accessKeyId,
  AWS_SECRET_ACCESS_KEY: identifiantsS3Local.secretAccessKey,
  // As Lambda gives a role's temporary credentials: the SDK's environment source answers first.
  AWS_SESSION_TOKEN: 'local',
  AWS_CONFIG_FILE: path.join(temporaire, 'aucun'),
  AWS_SHARED_CREDENTIALS_FILE: path.join(temporaire, 'aucun'),
  AWS_ENDPOINT_URL_DYNAMODB: dynamoEndpoint,
  AWS_ENDPOINT_URL_S3: r.s3.endpoint,
  AWS_ENDPOINT_URL_SECRETS_MANAGER: r.secrets.endpoint,
  AWS_ENDPOINT_URL_SQS: r.sqs.endpoint,
  RETOUCHE_S3_CHEMIN: '1',
  POWERTOOLS_METRICS_DISABLED: 'true',
  POWERTOOLS_TRACE_ENABLED: 'false',
});

export interface ContexteFonctions {
  t: Template;
  synthese: Synthese;
  resolveur: Resolveur;
  temporaire: string;
  /** environnementLocal's, read as each function loads. */
  local: Record<string, string>;
  /** The options' extra environment, over everything else. */
  environnementLocal?: Record<string, string>;
  versLocal: (valeur: string) => string;
  arrets: (() => Promise<void>)[];
}

const preparer = (c: ContexteFonctions, id: string): FonctionTemplate => {
  const p = c.t.Resources[id]!.Properties!;
  if (!p.Code?.S3Key) throw new Error(`function ${id}: no S3 asset code`);
  const asset = cheminAsset(c.synthese, String(resoudre(p.Code.S3Key, c.resolveur)));
  const racine = existsSync(path.join(asset, 'node_modules', 'sharp')) ? copieAvecSharpHote(asset, path.join(c.temporaire, 'code', id)) : asset;
  const variables = Object.fromEntries(
    Object.entries((p.Environment?.Variables ?? {}) as Record<string, unknown>).map(([k, v]) => [k, c.versLocal(String(resoudre(v, c.resolveur)))]),
  );
  for (const k of Object.keys(c.local)) if (k in variables) throw new Error(`function ${id}: the template sets ${k}, which the local stand-ins set too`);
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
    env: { ...variables, ...runtime, ...c.local, ...c.environnementLocal },
    memoireMo: p.MemorySize,
    delaiSecondes: p.Timeout,
  };
};

/** The functions loaded so far, and what loads one more (its worker's stop pushed on `arrets`). */
export const chargeurFonctions = (c: ContexteFonctions) => {
  const fonctions: Record<string, FonctionTemplate> = {};
  const workers: Record<string, FonctionWorker> = {};
  const charger = async (id: string) => {
    const f = (fonctions[id] = preparer(c, id));
    workers[id] = await demarrerFonctionWorker({
      nom: id,
      racine: f.racine,
      handler: f.handler,
      env: f.env,
      memoireMo: f.memoireMo,
      delaiSecondes: f.delaiSecondes,
    });
    c.arrets.push(workers[id]!.arreter);
    return workers[id]!;
  };
  return { fonctions, workers, charger };
};

/**
 * Custom resources: their deploy-time functions run (Create), as CloudFormation runs them, and their
 * Data is what GetAtt gives (`donneesPersonnalisees`, which the resolver reads).
 */
export const creerRessourcesPersonnalisees = async (
  c: ContexteFonctions,
  r: Ressources,
  chargeur: ReturnType<typeof chargeurFonctions>,
  unique: string,
  donneesPersonnalisees: Map<string, Record<string, string>>,
) => {
  for (const [id, ressource] of Object.entries(c.t.Resources).filter(
    ([, x]) => x.Type.startsWith('Custom::') || x.Type === 'AWS::CloudFormation::CustomResource',
  )) {
    const proprietes = resoudre(ressource.Properties, c.resolveur) as Record<string, string>;
    const service = proprietes.ServiceToken!.split(':').pop()!;
    if (r.arnFonction(service) !== proprietes.ServiceToken) throw new Error(`custom resource ${id}: its service token is no function of the template`);
    const generateur = chargeur.workers[service] ?? (await chargeur.charger(service));
    const requete = randomUUID();
    await generateur.invoquer({
      RequestType: 'Create',
      ResponseURL: `${r.secrets.endpoint}/reponses/${requete}`,
      StackId: `arn:aws:cloudformation:${REGION}:${COMPTE}:stack/local/${unique}`,
      RequestId: requete,
      ResourceType: ressource.Type,
      LogicalResourceId: id,
      ResourceProperties: proprietes,
    });
    const reponse = r.secrets.reponses.get(requete);
    if (reponse?.Status !== 'SUCCESS') throw new Error(`custom resource ${id}: ${reponse ? `${reponse.Status} ${reponse.Reason ?? ''}` : 'no response'}`);
    donneesPersonnalisees.set(id, reponse.Data ?? {});
  }
};
