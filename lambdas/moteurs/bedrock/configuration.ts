/**
 * Which Bedrock models the production engine calls, and where. Everything is a setting read from the
 * environment with a default that works in us-east-1, so a stage can move region or model version
 * without a code change.
 *
 * This module imports nothing at run time (types only): the CDK stack imports it to grant
 * `bedrock:InvokeModel` on exactly the models the engine calls, and must not bundle sharp or the SDK.
 *
 * | Variable | Default | Used by |
 * |---|---|---|
 * | `RETOUCHE_BEDROCK_REGION` | `us-east-1` | the Bedrock runtime client |
 * | `RETOUCHE_BEDROCK_MODELE_INPAINT` | `us.stability.stable-image-inpaint-v1:0` | vider, staging |
 * | `RETOUCHE_BEDROCK_MODELE_STRUCTURE` | `us.stability.stable-image-control-structure-v1:0` | renovation |
 * | `RETOUCHE_BEDROCK_MODELE_REMPLACEMENT` | `us.stability.stable-image-search-replace-v1:0` | saison, ciel |
 * | `RETOUCHE_BEDROCK_MODELE_TEXTE` | `us.anthropic.claude-haiku-4-5-20251001-v1:0` | annonce (Converse) |
 * | `RETOUCHE_BEDROCK_MAX_TOKENS` | `1500` | annonce: the answer's ceiling (Bedrock reserves quota for it) |
 * | `RETOUCHE_BEDROCK_PIXELS_TRAVAIL` | `9437184` | most pixels of the image sent to a model (262 144 – 9 437 184, Stability's ceiling) |
 * | `RETOUCHE_REKOGNITION_REGION` | the Bedrock region | the furniture detector (Rekognition DetectLabels) |
 *
 * A model is overridden per Stability *service*, not per tool: the request body is the service's
 * (inpaint, control-structure, search-replace), so an override may change the region prefix or the
 * version of a service, never swap one service for another.
 */
import type { OutilImage } from '../../core/modele/outils';

export const DEFAUTS = {
  region: 'us-east-1',
  inpaint: 'us.stability.stable-image-inpaint-v1:0',
  structure: 'us.stability.stable-image-control-structure-v1:0',
  remplacement: 'us.stability.stable-image-search-replace-v1:0',
  texte: 'us.anthropic.claude-haiku-4-5-20251001-v1:0',
  maxTokens: 1500,
  // Stability's own ceiling: the edited area is upscaled only as much as the model's limit forces.
  pixelsTravail: 9_437_184,
} as const;

/** The models the engine calls: what the CDK stack grants, nothing more. */
export interface ModelesBedrock {
  region: string;
  /** Model or inference profile id per image tool. */
  images: Record<OutilImage, string>;
  /** Model or inference profile id of the listing writer (Converse). */
  texte: string;
}

export interface ConfigurationBedrock extends ModelesBedrock {
  maxTokens: number;
  pixelsTravail: number;
  /** Where the furniture detector (Rekognition) is called: the Bedrock region unless set. */
  regionDetection: string;
}

type Env = Readonly<Record<string, string | undefined>>;

const texte = (env: Env, nom: string, defaut: string): string => env[nom]?.trim() || defaut;

const entier = (env: Env, nom: string, defaut: number, min: number, max: number): number => {
  const valeur = Number(env[nom]);
  // A typo in a stage's settings must not send a 50 000 px image or a zero-token request.
  return Number.isInteger(valeur) && valeur >= min && valeur <= max ? valeur : defaut;
};

/**
 * The region and the model / inference profile ids the engine will call, as read from `env`.
 * With an empty environment: region `us-east-1`; vider and staging on
 * `us.stability.stable-image-inpaint-v1:0`, renovation on `us.stability.stable-image-control-structure-v1:0`,
 * saison and ciel on `us.stability.stable-image-search-replace-v1:0`; texte
 * `us.anthropic.claude-haiku-4-5-20251001-v1:0`.
 */
export const modelesBedrock = (env: Env = process.env): ModelesBedrock => {
  const inpaint = texte(env, 'RETOUCHE_BEDROCK_MODELE_INPAINT', DEFAUTS.inpaint);
  const structure = texte(env, 'RETOUCHE_BEDROCK_MODELE_STRUCTURE', DEFAUTS.structure);
  const remplacement = texte(env, 'RETOUCHE_BEDROCK_MODELE_REMPLACEMENT', DEFAUTS.remplacement);
  return {
    region: texte(env, 'RETOUCHE_BEDROCK_REGION', DEFAUTS.region),
    images: { vider: inpaint, staging: inpaint, renovation: structure, saison: remplacement, ciel: remplacement },
    texte: texte(env, 'RETOUCHE_BEDROCK_MODELE_TEXTE', DEFAUTS.texte),
  };
};

export const configurationBedrock = (env: Env = process.env): ConfigurationBedrock => ({
  ...modelesBedrock(env),
  maxTokens: entier(env, 'RETOUCHE_BEDROCK_MAX_TOKENS', DEFAUTS.maxTokens, 256, 8192),
  // 9 437 184 is Stability's ceiling: no setting can exceed it; 512² is the least worth a model call.
  pixelsTravail: entier(env, 'RETOUCHE_BEDROCK_PIXELS_TRAVAIL', DEFAUTS.pixelsTravail, 262_144, 9_437_184),
  regionDetection: texte(env, 'RETOUCHE_REKOGNITION_REGION', texte(env, 'RETOUCHE_BEDROCK_REGION', DEFAUTS.region)),
});

/** The stack output that names a Bedrock stage's Region and models (lib/retouche-stack.ts), for the operator's `admin -- check-models`. */
export const SORTIE_MOTEUR = 'MoteurBedrock';

/** Every distinct id the engine calls (images and text), for a grant or a dashboard. */
export const identifiantsBedrock = (modeles: ModelesBedrock): string[] => [...new Set([...Object.values(modeles.images), modeles.texte])].sort();

const PREFIXES_PROFIL = /^(us|eu|apac|us-gov|jp|au|ca|global)\./;

/**
 * The commercial Regions of each geography of Bedrock's cross-Region (geographic) inference profiles.
 * A geographic profile routes only to Regions of its own geography (AWS Bedrock User Guide, "Supported
 * Regions and models for inference profiles", which lists each profile's destinations: the `us.`
 * Stability profiles route to us-east-1, us-east-2 and us-west-2, Claude's `us.` ones to those and
 * us-west-1). `global.` profiles route to any commercial Region: only `*` can grant them. An EU stage
 * grants the exact destinations of each `eu.` profile instead (lib/residence.ts).
 */
export const REGIONS_GEOGRAPHIE: Readonly<Record<string, readonly string[]>> = {
  us: ['us-east-1', 'us-east-2', 'us-west-1', 'us-west-2'],
  'us-gov': ['us-gov-east-1', 'us-gov-west-1'],
  ca: ['ca-central-1', 'ca-west-1'],
  eu: ['eu-central-1', 'eu-central-2', 'eu-north-1', 'eu-south-1', 'eu-south-2', 'eu-west-1', 'eu-west-2', 'eu-west-3'],
  apac: [
    'ap-east-2',
    'ap-northeast-1',
    'ap-northeast-2',
    'ap-northeast-3',
    'ap-south-1',
    'ap-south-2',
    'ap-southeast-1',
    'ap-southeast-2',
    'ap-southeast-3',
    'ap-southeast-4',
    'ap-southeast-5',
    'ap-southeast-7',
  ],
  jp: ['ap-northeast-1', 'ap-northeast-3'],
  au: ['ap-southeast-2', 'ap-southeast-4'],
  global: ['*'],
};

/**
 * IAM resources for `bedrock:InvokeModel` on these models. A cross-region inference profile
 * (`us.…`) needs the profile in the stage's region and the foundation model in every region the
 * profile routes to: the Regions of its geography, never every Region (`*`) but for a `global.` one.
 */
export const ressourcesIamBedrock = (modeles: ModelesBedrock, compte: string, partition = 'aws'): string[] =>
  identifiantsBedrock(modeles).flatMap((id) => {
    const geographie = PREFIXES_PROFIL.exec(id)?.[1];
    if (!geographie) return [`arn:${partition}:bedrock:${modeles.region}::foundation-model/${id}`];
    const modele = id.replace(PREFIXES_PROFIL, '');
    return [
      `arn:${partition}:bedrock:${modeles.region}:${compte}:inference-profile/${id}`,
      ...REGIONS_GEOGRAPHIE[geographie]!.map((region) => `arn:${partition}:bedrock:${region}::foundation-model/${modele}`),
    ];
  });
