#!/usr/bin/env node
/**
 * The CDK app: one stack per stage, e.g. `npx cdk deploy -c stage=prod` (docs/deployment.md). A refusal (a context
 * value, no Region, EU residence) is one line on stderr and exit 1: its message says what to type, and a stack trace
 * would bury it. After the synth, a short summary on stderr (lib/application.ts); stdout stays the CLI's.
 */
import { App } from 'aws-cdk-lib';
import { construireStage, resumeSynthese } from '../lib/application';
import { RefusDeConfiguration } from '../lib/configuration';
import { sourcesRegion } from '../lib/region';

try {
  const app = new App();
  const stage = construireStage(app, { compte: process.env.CDK_DEFAULT_ACCOUNT, sources: await sourcesRegion(), regionRequise: true });
  const assemblage = app.synth();
  // The CLI runs the app again when context lookups are missing: only the last run speaks. It passes no stack to
  // bundle for the commands that only read the app (ls, bootstrap, destroy): those print their own answer.
  const lecture = (app.node.tryGetContext('aws:cdk:bundling-stacks') as unknown[] | undefined)?.length === 0;
  if (!assemblage.manifest.missing?.length && !lecture) {
    process.stderr.write(resumeSynthese(stage, { dossier: app.outdir, deploiement: process.env.RETOUCHE_DEPLOIEMENT === '1' }));
  }
} catch (erreur) {
  if (!(erreur instanceof RefusDeConfiguration)) throw erreur;
  process.stderr.write(`${erreur.message}\n`);
  process.exitCode = 1;
}
