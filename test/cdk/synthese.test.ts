/**
 * What `cdk synth` tells an operator (bin/retouche.ts): the Region it needs and where it came from, a refusal as one
 * line with exit 1, the summary after a synth, and the one `npm run deploy` prints from cdk-outputs.json
 * (exploitation/deploiement.ts). The refusals run the app as the CDK CLI runs it, a child process with the context in
 * CDK_CONTEXT_JSON, a HOME of its own (no real ~/.aws read) and no AWS_* variable: each fails before building a stack,
 * in about two seconds. The summaries are built in this process, without synthesizing the template.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { App } from 'aws-cdk-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { lireSorties, resumeDeploiement } from '../../exploitation/deploiement';
import { SORTIE_MOTEUR } from '../../lambdas/moteurs/bedrock/configuration';
import { construireStage, resumeSynthese, type EnvironnementApplication } from '../../lib/application';
import { RACINE } from '../../lib/fonction';
import { SORTIES_PROVENANCE } from '../../lib/provenance';
import { regionConfiguree, sourcesRegion, type SourcesRegion } from '../../lib/region';
import { SORTIES } from '../../lib/retouche-stack';

const dossier = mkdtempSync(path.join(tmpdir(), 'retouche-synthese-'));
afterAll(() => rmSync(dossier, { recursive: true, force: true }));

/** The app as the CLI starts it, with only these variables (and PATH) set. */
const lancer = async (contexte: Record<string, unknown> | string, variables: Record<string, string> = {}) => {
  const home = mkdtempSync(path.join(dossier, 'home-'));
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    CDK_OUTDIR: path.join(home, 'cdk.out'),
    CDK_CONTEXT_JSON: typeof contexte === 'string' ? contexte : JSON.stringify(contexte),
    ...variables,
  };
  try {
    // tsx as a loader of this Node: one process, where its CLI would start two.
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'bin/retouche.ts'], { cwd: RACINE, env });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const erreur = e as { code: number; stdout: string; stderr: string };
    return { code: erreur.code, stdout: erreur.stdout, stderr: erreur.stderr };
  }
};

/** One line on stderr, nothing on stdout, exit 1, no stack trace. */
const refusPropre = (r: { code: number; stdout: string; stderr: string }, attendu: RegExp) => {
  expect(r.code).toBe(1);
  expect(r.stdout).toBe('');
  expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
  expect(r.stderr).toMatch(attendu);
  expect(r.stderr).not.toMatch(/^\s+at /m);
};

describe('a synth refuses, in one line and exit 1', () => {
  // In parallel: each is a Node process starting tsx.
  const resultats = Promise.all([
    lancer({ stage: 'dev' }),
    lancer({ stage: 'dev' }, { CDK_DEFAULT_REGION: 'us-east-1' }),
    lancer({ stage: 'eu', residence: 'eu' }, { CDK_DEFAULT_REGION: 'us-west-2', AWS_REGION: 'us-west-2' }),
    lancer({ stage: 'dev', moteur: 'gpu' }, { AWS_REGION: 'eu-west-1' }),
    lancer('{"stage": ', { AWS_REGION: 'eu-west-1' }),
  ]);

  it('a stage no Region names, the app run alone: how to name one', async () => {
    refusPropre(
      (await resultats)[0],
      /^Stage dev has no AWS Region: no -c region, no AWS_REGION, no region in your AWS profile, .* Name one: add -c region=eu-west-1 \(or any Region\) to the command, or export AWS_REGION=eu-west-1/,
    );
  });

  it("the CDK CLI's silent us-east-1, when nothing it reads names it", async () => {
    refusPropre((await resultats)[1], /^Stage dev has no AWS Region: .* the CDK CLI's fallback, us-east-1, is not a choice\./);
  });

  it('an EU stage whose Region is outside the EU (here from AWS_REGION)', async () => {
    refusPropre(
      (await resultats)[2],
      /^context residence=eu: the stage's Region us-west-2, from AWS_REGION, is not in the EU\. Deploy with -c region=eu-west-1/,
    );
  });

  it('a context value out of its choices', async () => {
    refusPropre((await resultats)[3], /^context moteur must be one of bedrock, local \(got gpu\)$/m);
  });

  it('but an unexpected error keeps its stack trace', async () => {
    const r = (await resultats)[4];
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^\s+at /m);
  });
});

describe('the Region a stage takes', () => {
  const variable = (code: string) => ({ nom: 'AWS_REGION', code });
  const profil = (code: string) => ({ nom: 'the AWS profile "default" (~/.aws/config)', code });
  const cas: [string, string | undefined, SourcesRegion, string | undefined][] = [
    ['-c region, above everything', 'eu-west-3', { cli: 'us-east-1', variable: variable('eu-west-1') }, 'eu-west-3 from -c region'],
    ['the CLI, when AWS_REGION says the same', undefined, { cli: 'us-east-1', variable: variable('us-east-1') }, 'us-east-1 from AWS_REGION'],
    [
      'the CLI, when the profile says the same',
      undefined,
      { cli: 'us-east-1', profil: profil('us-east-1') },
      'us-east-1 from the AWS profile "default" (~/.aws/config)',
    ],
    [
      'the CLI, when it is not its fallback (its --region or --profile)',
      undefined,
      { cli: 'eu-central-1', variable: variable('eu-west-1') },
      "eu-central-1 from the CDK CLI's --region or --profile (CDK_DEFAULT_REGION)",
    ],
    ['the app alone: AWS_REGION, then the profile', undefined, { variable: variable('eu-west-1'), profil: profil('us-west-2') }, 'eu-west-1 from AWS_REGION'],
    ['the app alone: the profile', undefined, { profil: profil('us-west-2') }, 'us-west-2 from the AWS profile "default" (~/.aws/config)'],
    ["none: the CLI's fallback only", undefined, { cli: 'us-east-1' }, undefined],
    [
      'none: the CLI says us-east-1 where AWS_REGION says otherwise (its --region flag, unseen)',
      undefined,
      { cli: 'us-east-1', variable: variable('eu-west-1') },
      undefined,
    ],
    ['none at all', undefined, {}, undefined],
  ];
  it.each(cas)('%s', (_, contexte, sources, attendu) => {
    const r = regionConfiguree(contexte, sources);
    expect(r && `${r.code} from ${r.origine}`).toBe(attendu);
  });

  it('reads the profile as the CLI does: AWS_PROFILE in ~/.aws/credentials, then ~/.aws/config, then the default profile', async () => {
    const aws = path.join(dossier, 'aws');
    mkdirSync(aws, { recursive: true });
    writeFileSync(path.join(aws, 'config'), '[default]\nregion = eu-west-1\n\n[profile atelier]\nregion = eu-west-3\n\n[profile stock]\nregion = eu-south-1\n');
    writeFileSync(path.join(aws, 'credentials'), '[default]\naws_access_key_id = AKIAEXAMPLE\n\n[stock]\nregion = eu-north-1\n');
    const fichiers = { AWS_CONFIG_FILE: path.join(aws, 'config'), AWS_SHARED_CREDENTIALS_FILE: path.join(aws, 'credentials') };
    expect(await sourcesRegion({ ...fichiers, AWS_PROFILE: 'atelier', CDK_DEFAULT_REGION: 'eu-west-3' })).toEqual({
      cli: 'eu-west-3',
      profil: { nom: `the AWS profile "atelier" (${fichiers.AWS_CONFIG_FILE})`, code: 'eu-west-3' },
    });
    expect((await sourcesRegion({ ...fichiers, AWS_PROFILE: 'stock' })).profil).toEqual({
      nom: `the AWS profile "stock" (${fichiers.AWS_SHARED_CREDENTIALS_FILE})`,
      code: 'eu-north-1',
    });
    expect(await sourcesRegion({ ...fichiers, AWS_DEFAULT_REGION: 'us-west-2' })).toEqual({
      variable: { nom: 'AWS_DEFAULT_REGION', code: 'us-west-2' },
      profil: { nom: `the AWS profile "default" (${fichiers.AWS_CONFIG_FILE})`, code: 'eu-west-1' },
    });
  });
});

describe('the summary after a synth (stderr)', () => {
  /** The stage as bin/retouche.ts builds it, Region required, without synthesizing its template. */
  const resume = (contexte: Record<string, unknown>, sources: SourcesRegion, options: { deploiement?: boolean } = {}) => {
    const app = new App({ context: { ...contexte, 'aws:cdk:bundling-stacks': [] } });
    const environnement: EnvironnementApplication = { sources, regionRequise: true };
    return resumeSynthese(construireStage(app, environnement), { dossier: path.join(RACINE, 'cdk.out'), ...options });
  };
  const AWS_REGION = (code: string): SourcesRegion => ({ cli: code, variable: { nom: 'AWS_REGION', code } });

  it("a Bedrock stage: its Region and where it came from, the tools, each model with where it routes, Anthropic's form, the next command", () => {
    const texte = resume({ stage: 'dev' }, AWS_REGION('eu-west-3'));
    expect(texte.split('\n').length).toBeLessThanOrEqual(25);
    expect(texte).toContain('Synthesized Retouche-dev: cdk.out/Retouche-dev.template.json\n');
    expect(texte).toContain('  Region  eu-west-3 (from AWS_REGION)\n');
    expect(texte).toContain('  Engine  bedrock, models called from us-east-1\n');
    expect(texte).toContain('  Tools   vider, staging, renovation, saison, ciel, annonce, fusion\n');
    expect(texte).toMatch(
      /^ {4}vider, staging {2}us\.stability\.stable-image-inpaint-v1:0\n {20}routes within its geography \(us\.; the grant allows us-east-1, us-east-2, us-west-1, us-west-2\)$/m,
    );
    expect(texte).toMatch(/^ {4}renovation +us\.stability\.stable-image-control-structure-v1:0$/m);
    expect(texte).toMatch(/^ {4}saison, ciel +us\.stability\.stable-image-search-replace-v1:0$/m);
    expect(texte).toMatch(/^ {4}annonce +us\.anthropic\.claude-haiku-4-5-20251001-v1:0\n.*\n +Anthropic: submit the first-use form once per account/m);
    expect(texte.match(/first-use form/g)).toHaveLength(1);
    expect(texte).toMatch(/^Next: npx cdk bootstrap -c stage=dev .*\n +npm run deploy -- -c stage=dev\n$/m);
  });

  it('a local-engine stage: no model to enable; the next command carries its settings', () => {
    const texte = resume({ stage: 'essai', moteur: 'local', liens: 'api', region: 'eu-west-1' }, { cli: 'us-east-1' });
    expect(texte).toContain('  Region  eu-west-1 (from -c region)\n');
    expect(texte).toContain('  Engine  local: sharp previews, no model called\n');
    expect(texte).not.toMatch(/Models|bedrock/);
    expect(texte).toContain('npm run deploy -- -c stage=essai -c region=eu-west-1 -c moteur=local -c liens=api\n');
  });

  it("an EU stage: its default Region when nothing names one, its offered tools' models only, routed inside the EU", () => {
    const texte = resume({ stage: 'eu', residence: 'eu', outils: 'annonce' }, { cli: 'us-east-1' });
    expect(texte).toContain("  Region  eu-west-1 (the EU stage's default: nothing names a Region), EU residence\n");
    expect(texte).toContain('  Tools   annonce\n');
    expect(texte).toMatch(
      /^ {4}annonce {2}eu\.anthropic\.claude-haiku-4-5-20251001-v1:0\n {13}routes from eu-west-1 to eu-central-1, eu-north-1, eu-south-1, eu-south-2, eu-west-1, eu-west-3$/m,
    );
    expect(texte).not.toMatch(/stability|us\./);
    expect(texte).toContain('npm run deploy -- -c stage=eu -c residence=eu -c outils=annonce\n');
  });

  it("during npm run deploy: a header, no next command (the deploy's own summary follows)", () => {
    const texte = resume({ stage: 'dev', moteur: 'local' }, AWS_REGION('eu-west-3'), { deploiement: true });
    expect(texte.split('\n')[0]).toBe('Deploying Retouche-dev');
    expect(texte).not.toContain('Next');
  });
});

describe('the summary after a deploy, from cdk-outputs.json', () => {
  const moteur = {
    region: 'us-east-1',
    modeles: {
      modeleInpaint: 'us.stability.stable-image-inpaint-v1:0',
      modeleStructure: 'us.stability.stable-image-control-structure-v1:0',
      modeleRemplacement: 'us.stability.stable-image-search-replace-v1:0',
      modeleTexte: 'us.anthropic.claude-haiku-4-5-20251001-v1:0',
    },
  };
  const sorties = (extra: Record<string, string>) => ({
    [SORTIES.api]: 'https://a1b2c3.execute-api.eu-west-3.amazonaws.com/v1',
    [SORTIES.mcp]: 'https://a1b2c3.execute-api.eu-west-3.amazonaws.com/v1/mcp',
    [SORTIES.table]: 'Retouche-dev-Table',
    [SORTIES.bucket]: 'retouche-dev-bucket',
    [SORTIES.liens]: 'https://d111111abcdef8.cloudfront.net',
    [SORTIES.alarmes]: 'arn:aws:sns:eu-west-3:123456789012:Retouche-dev-Alarmes',
    [SORTIES_PROVENANCE.csr]: '-----BEGIN CERTIFICATE REQUEST-----\nMIIB\n-----END CERTIFICATE REQUEST-----\n',
    [SORTIES_PROVENANCE.signataire]: 'CN=Retouche dev (test, not trusted)',
    [SORTIES_PROVENANCE.test]: 'true',
    ...extra,
  });

  it('a Bedrock stage: its Region, the outputs an operator reads, check-models then create-account', () => {
    const fichier = path.join(dossier, 'cdk-outputs.json');
    writeFileSync(fichier, JSON.stringify({ 'Retouche-dev': sorties({ [SORTIE_MOTEUR]: JSON.stringify(moteur) }) }));
    const texte = resumeDeploiement(lireSorties(fichier), 'cdk-outputs.json');
    expect(texte.split('\n').length).toBeLessThanOrEqual(25);
    expect(texte).toMatch(/^Deployed Retouche-dev in eu-west-3\n/);
    expect(texte).toMatch(/^ {2}ApiUrl +https:\/\/a1b2c3\.execute-api\.eu-west-3\.amazonaws\.com\/v1$/m);
    expect(texte).toMatch(/^ {2}McpUrl +https:\/\/a1b2c3\.execute-api\.eu-west-3\.amazonaws\.com\/v1\/mcp {2}\(for AI assistants/m);
    expect(texte).toMatch(/^ {2}LiensBase +https:\/\/d111111abcdef8\.cloudfront\.net$/m);
    expect(texte).toMatch(/^ {2}AlarmesTopic +arn:aws:sns:.*subscribe to it/m);
    expect(texte).toMatch(/^ {2}C2paTest +true: a test chain signs the results/m);
    expect(texte).toMatch(/^ {2}MoteurBedrock +4 Bedrock models called from us-east-1/m);
    expect(texte).not.toContain('BEGIN CERTIFICATE REQUEST');
    expect(texte).toMatch(
      /Next:\n {2}npm run --silent admin -- check-models --outputs cdk-outputs\.json .*\n {2}npm run --silent admin -- create-account --credits 100 --outputs cdk-outputs\.json/,
    );
  });

  it('a local-engine stage: no check-models', () => {
    const texte = resumeDeploiement({ 'Retouche-essai': sorties({ [SORTIES_PROVENANCE.test]: 'false' }) }, 'cdk-outputs.json');
    expect(texte).not.toMatch(/check-models|MoteurBedrock|C2paTest/);
    expect(texte).toContain('create-account');
  });

  it('a file without a Retouche stack says so', () => {
    expect(resumeDeploiement({ Autre: { Sortie: 'x' } }, 'autre.json')).toBe('autre.json names no Retouche stack (no ApiUrl output): nothing to summarize.\n');
  });
});
