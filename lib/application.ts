/**
 * The app's content, apart from bin/ so the tests build exactly what `cdk synth` builds: one stack
 * for the stage named in the context, and cdk-nag's AwsSolutions checks, whose unacknowledged
 * findings fail the synth. Also the summary bin/retouche.ts prints after a synth.
 */
import path from 'node:path';
import { App, CfnOutput, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { OUTILS } from '../lambdas/core/modele/outils';
import { configurationDepuisContexte, type ConfigurationStage } from './configuration';
import type { Fonction } from './fonction';
import { ORIGINE_DEFAUT_UE, regionConfiguree, regionDuStage, type RegionChoisie, type SourcesRegion } from './region';
import { MODELES_RESIDENCE, routage } from './residence';
import { RetoucheStack, SORTIES } from './retouche-stack';

export const NAG = (app: App) => new AwsSolutionsChecks(app, { verbose: true });

/** Where the stage's account and Region come from. */
export interface EnvironnementApplication {
  /** CDK_DEFAULT_ACCOUNT. */
  compte?: string;
  /** What names a Region (lib/region.ts). */
  sources: SourcesRegion;
  /** Whether a stage whose Region nobody named is refused: so for `cdk synth` (bin/retouche.ts). */
  regionRequise: boolean;
}

/**
 * The tests' environment: CDK_DEFAULT_REGION taken as named (a test sets it to say what the CLI passed), a stage
 * without it Region-agnostic, as the templates of test/cdk were always built.
 */
const environnementDesTests = (): EnvironnementApplication => ({
  compte: process.env.CDK_DEFAULT_ACCOUNT,
  sources: process.env.CDK_DEFAULT_REGION ? { variable: { nom: 'CDK_DEFAULT_REGION', code: process.env.CDK_DEFAULT_REGION } } : {},
  regionRequise: false,
});

export interface StageConstruit {
  stack: RetoucheStack;
  config: ConfigurationStage;
  region: RegionChoisie | undefined;
}

export const construireStage = (app: App, environnement: EnvironnementApplication = environnementDesTests()): StageConstruit => {
  const config = configurationDepuisContexte((cle) => app.node.tryGetContext(cle));
  // An EU stage refuses a Region outside the EU, and without one takes its own default (lib/region.ts).
  const region = regionDuStage(config, regionConfiguree(config.region, environnement.sources), environnement.regionRequise);
  const stack = new RetoucheStack(app, `Retouche-${config.stage}`, {
    config,
    description: `Retouche ${config.stage}: property photo retouching API`,
    env: { account: environnement.compte, region: region?.code },
    terminationProtection: config.production,
  });
  Validations.of(app).addPlugins(NAG(app));
  return { stack, config, region };
};

export const construireApplication = (app: App, environnement?: EnvironnementApplication): RetoucheStack => construireStage(app, environnement).stack;

/**
 * The stack's functions (RetoucheStack's `fonctions`) as the bundles test and the cold-start bench bundle them: from
 * a stage whose links the API serves (`-c liens=api`), the only one with the file function, synthesized without
 * bundling (each bundles what it needs, as `cdk synth` would).
 */
export const fonctionsDeLaPile = (stage: string): Fonction[] =>
  construireApplication(new App({ context: { stage, liens: 'api', 'aws:cdk:bundling-stacks': [] } })).fonctions;

/** The stage's Bedrock Region and model per setting, as its MoteurBedrock output names them (a Bedrock stage only). */
const moteurBedrock = (stack: RetoucheStack): { region: string; modeles: Record<string, string> } | undefined => {
  const sortie = stack.node.tryFindChild(SORTIES.modeles);
  return sortie instanceof CfnOutput ? (JSON.parse(sortie.value as string) as { region: string; modeles: Record<string, string> }) : undefined;
};

const origine = (region: RegionChoisie) => (region.origine === ORIGINE_DEFAUT_UE ? `${ORIGINE_DEFAUT_UE}: nothing names a Region` : `from ${region.origine}`);

/** The stage's settings as `-c` options, for the next command: the ones that change what is deployed where. */
const reglagesDonnes = (config: ConfigurationStage, region: RegionChoisie | undefined): string =>
  [
    `-c stage=${config.stage}`,
    ...(region?.origine === '-c region' ? [`-c region=${region.code}`] : []),
    ...(config.residence ? [`-c residence=${config.residence}`] : []),
    ...(config.moteur !== 'bedrock' ? [`-c moteur=${config.moteur}`] : []),
    ...(config.liens !== 'cloudfront' ? [`-c liens=${config.liens}`] : []),
    ...(config.outils ? [`-c outils=${config.outils.join(',')}`] : []),
    ...(config.sourcePacks ? [`-c packs=${config.sourcePacks}`] : []),
    ...(config.emailExpediteur ? [`-c emailExpediteur=${config.emailExpediteur}`] : []),
  ].join(' ');

/**
 * What an operator needs after `cdk synth`, on stderr so stdout stays the CLI's: the stack and its template, the Region
 * and where it came from, the engine, the tools, a Bedrock stage's models to enable with where each routes, and the next
 * command. `deploiement`: the synth of `npm run deploy`, whose own summary follows the deploy (exploitation/deployer.ts).
 */
export const resumeSynthese = ({ stack, config, region }: StageConstruit, options: { dossier: string; deploiement?: boolean }): string => {
  const outils = config.outils ?? OUTILS;
  const relatif = path.relative(process.cwd(), options.dossier);
  const gabarit = path.join(relatif.startsWith('..') ? options.dossier : relatif, stack.templateFile);
  const moteur = config.moteur === 'bedrock' ? moteurBedrock(stack) : undefined;
  const lignes = [
    options.deploiement ? `Deploying ${stack.stackName}` : `Synthesized ${stack.stackName}: ${gabarit}`,
    `  Region  ${region ? `${region.code} (${origine(region)})` : 'none (a Region-agnostic template)'}${config.residence === 'eu' ? ', EU residence' : ''}`,
    `  Engine  ${moteur ? `bedrock, models called from ${moteur.region}` : 'local: sharp previews, no model called'}`,
    `  Tools   ${outils.join(', ')}`,
    `  Email   ${config.emailExpediteur ? `codes sent from ${config.emailExpediteur} through SES (its domain verified in SES in the stage's Region)` : "Cognito's own sender, 50 emails a day (-c emailExpediteur=… to send through SES)"}`,
    `  Packs   ${config.packs ? config.packs.map((p) => `${p.credits} credits for ${p.prix} (${p.lien})`).join(', ') : `none: no credits sold on the site (-c packs=<file.json>); users ask ${config.contactCredits ?? 'the operator, with no contact shown (-c contactCredits=<email or https URL>)'}`}`,
  ];
  if (moteur) {
    lignes.push('  Models to enable, once per account (after the deploy, check-models calls each once):');
    const familles = MODELES_RESIDENCE.filter((m) => m.outils.some((o) => outils.includes(o)) && moteur.modeles[m.contexte]);
    const colonnes = familles.map((m) => m.outils.filter((o) => outils.includes(o)).join(', '));
    const largeur = Math.max(...colonnes.map((c) => c.length)) + 2;
    familles.forEach((famille, i) => {
      const id = moteur.modeles[famille.contexte]!;
      lignes.push(`    ${colonnes[i]!.padEnd(largeur)}${id}`);
      lignes.push(`    ${''.padEnd(largeur)}routes ${routage(id, moteur.region)}`);
      // Anthropic asks for this form before any call, whoever makes it (exploitation/modeles-stage.ts).
      if (id.includes('anthropic.'))
        lignes.push(`    ${''.padEnd(largeur)}Anthropic: submit the first-use form once per account (Bedrock console, Model access)`);
    });
  }
  if (!options.deploiement) {
    const contexte = reglagesDonnes(config, region);
    lignes.push(`Next: npx cdk bootstrap ${contexte}   (once per account and Region)`, `      npm run deploy -- ${contexte}`);
  }
  return `${lignes.join('\n')}\n`;
};
