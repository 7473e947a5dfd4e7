/**
 * The app's content, apart from bin/ so the tests build exactly what `cdk synth` builds: one stack
 * for the stage named in the context, and cdk-nag's AwsSolutions checks, whose unacknowledged
 * findings fail the synth.
 */
import { Validations, type App } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { configurationDepuisContexte } from './configuration';
import { regionDuStage } from './residence';
import { RetoucheStack } from './retouche-stack';

export const NAG = (app: App) => new AwsSolutionsChecks(app, { verbose: true });

export const construireApplication = (app: App): RetoucheStack => {
  const config = configurationDepuisContexte((cle) => app.node.tryGetContext(cle));
  const stack = new RetoucheStack(app, `Retouche-${config.stage}`, {
    config,
    description: `Retouche ${config.stage}: property photo retouching API`,
    // -c region, else the CLI's; an EU stage refuses a Region outside the EU (lib/residence.ts).
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: regionDuStage(config, process.env.CDK_DEFAULT_REGION) },
    terminationProtection: config.production,
  });
  Validations.of(app).addPlugins(NAG(app));
  return stack;
};
