#!/usr/bin/env node
/**
 * The CDK app: one stack per stage, e.g. `npx cdk deploy -c stage=prod` (README, "Deploy").
 */
import { App } from 'aws-cdk-lib';
import { construireApplication } from '../lib/application';

const app = new App();
construireApplication(app);
app.synth();
