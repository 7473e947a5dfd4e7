/**
 * A stage's AWS Region: what names one when the app runs (read as the CDK CLI reads it), the one the operator
 * chose, and the stage's (an EU stage's within the EU, lib/residence.ts). Apart from the EU's facts, since every
 * stage has a Region and most are not EU stages.
 */
import { loadSharedConfigFiles } from '@smithy/core/config';
import { RefusDeConfiguration } from './configuration';
import { AIDE_REGIONS_UE, REGION_UE_DEFAUT, REGIONS_EUROPE_HORS_UE, REGIONS_UE } from './residence';

/** A stage's Region, and where it came from, in the words the summary and the refusals use ("from <origine>"). */
export interface RegionChoisie {
  code: string;
  origine: string;
}

/**
 * What names a Region when the app runs, read the way the CDK CLI reads it (node_modules/aws-cdk, `AwsCliCompatible.region`):
 * the first of AWS_REGION, AMAZON_REGION, AWS_DEFAULT_REGION, AMAZON_DEFAULT_REGION; else the `region` of the profile
 * (AWS_PROFILE, AWS_DEFAULT_PROFILE, else `default`) in ~/.aws/credentials then ~/.aws/config, else of `default`; else,
 * on EC2, the instance's; else us-east-1. The CLI passes its answer as CDK_DEFAULT_REGION (its `--region` and `--profile`
 * flags included, which the app cannot see).
 */
export interface SourcesRegion {
  /** CDK_DEFAULT_REGION; absent when the app runs without the CLI. */
  cli?: string;
  /** The first Region variable set, and its name. */
  variable?: { nom: string; code: string };
  /** The profile's Region, and where. */
  profil?: { nom: string; code: string };
}

/** What the CDK CLI passes when nothing names a Region; it says so only with --verbose. */
export const REGION_REPLI_CLI = 'us-east-1';

export const VARIABLES_REGION = ['AWS_REGION', 'AMAZON_REGION', 'AWS_DEFAULT_REGION', 'AMAZON_DEFAULT_REGION'] as const;

/** The sources of `env` (the app's environment), the profile's Region read with the SDK's own loader, as the CLI does. */
export const sourcesRegion = async (env: NodeJS.ProcessEnv = process.env): Promise<SourcesRegion> => {
  const nom = VARIABLES_REGION.find((v) => env[v]);
  const profil = env.AWS_PROFILE || env.AWS_DEFAULT_PROFILE || 'default';
  const { configFile, credentialsFile } = await loadSharedConfigFiles({
    ignoreCache: true,
    ...(env.AWS_SHARED_CREDENTIALS_FILE ? { filepath: env.AWS_SHARED_CREDENTIALS_FILE } : {}),
    ...(env.AWS_CONFIG_FILE ? { configFilepath: env.AWS_CONFIG_FILE } : {}),
  });
  const credentials = env.AWS_SHARED_CREDENTIALS_FILE ?? '~/.aws/credentials';
  const config = env.AWS_CONFIG_FILE ?? '~/.aws/config';
  const trouve = [
    { nom: profil, fichier: credentialsFile, chemin: credentials },
    { nom: profil, fichier: configFile, chemin: config },
    { nom: 'default', fichier: credentialsFile, chemin: credentials },
    { nom: 'default', fichier: configFile, chemin: config },
  ].find((f) => f.fichier[f.nom]?.region);
  return {
    ...(env.CDK_DEFAULT_REGION ? { cli: env.CDK_DEFAULT_REGION } : {}),
    ...(nom ? { variable: { nom, code: env[nom]! } } : {}),
    ...(trouve ? { profil: { nom: `the AWS profile "${trouve.nom}" (${trouve.chemin})`, code: trouve.fichier[trouve.nom]!.region! } } : {}),
  };
};

/**
 * The Region the operator named: `-c region`; else the CLI's when its source can be seen (a Region variable, the
 * profile) or when it is not the CLI's silent fallback (then it came from `--region`, `--profile` or the instance);
 * without the CLI, the variable's or the profile's. Undefined: nothing names one, or only the fallback does (a
 * `--region us-east-1` or `--profile` flag naming us-east-1 looks the same, and is told to say it with -c region).
 */
export const regionConfiguree = (regionContexte: string | undefined, sources: SourcesRegion): RegionChoisie | undefined => {
  if (regionContexte) return { code: regionContexte, origine: '-c region' };
  const { cli, variable, profil } = sources;
  if (variable && (cli === undefined || variable.code === cli)) return { code: variable.code, origine: variable.nom };
  if (profil && (cli === undefined || profil.code === cli)) return { code: profil.code, origine: profil.nom };
  if (cli !== undefined && cli !== REGION_REPLI_CLI) return { code: cli, origine: "the CDK CLI's --region or --profile (CDK_DEFAULT_REGION)" };
  return undefined;
};

/** The origin of an EU stage's Region when nothing names one. */
export const ORIGINE_DEFAUT_UE = "the EU stage's default";

/**
 * The stage's Region: the one the operator named (`regionConfiguree`), else, for an EU stage, REGION_UE_DEFAUT (its
 * documented default: `-c residence=eu` already chose the geography). `requise`: a stage whose Region nobody named is
 * refused (bin/retouche.ts: the CLI's silent us-east-1 is no choice); without it (tests building a template), such a
 * stage gets none, a Region-agnostic template. An EU stage whose Region is not in the EU is refused.
 */
export const regionDuStage = (config: { stage: string; residence?: 'eu' }, nommee: RegionChoisie | undefined, requise = false): RegionChoisie | undefined => {
  if (config.residence !== 'eu') {
    if (nommee || !requise) return nommee;
    throw new RefusDeConfiguration(
      `Stage ${config.stage} has no AWS Region: no -c region, no AWS_REGION, no region in your AWS profile, and the CDK CLI's ` +
        `fallback, ${REGION_REPLI_CLI}, is not a choice. Name one: add -c region=${REGION_UE_DEFAUT} (or any Region) to the command, ` +
        `or export AWS_REGION=${REGION_UE_DEFAUT}, or run aws configure set region ${REGION_UE_DEFAUT}.`,
    );
  }
  const choisie = nommee ?? { code: REGION_UE_DEFAUT, origine: ORIGINE_DEFAUT_UE };
  if (!(choisie.code in REGIONS_UE)) {
    const hors = REGIONS_EUROPE_HORS_UE[choisie.code] ? ` (${REGIONS_EUROPE_HORS_UE[choisie.code]}: in Europe, not in the EU)` : '';
    throw new RefusDeConfiguration(
      `context residence=eu: the stage's Region ${choisie.code}${hors}, from ${choisie.origine}, is not in the EU. ` +
        `Deploy with -c region=${REGION_UE_DEFAUT} (or AWS_REGION=${REGION_UE_DEFAUT}), or another EU Region. ${AIDE_REGIONS_UE}.`,
    );
  }
  return choisie;
};
