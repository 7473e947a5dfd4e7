import { defineConfig } from 'vitest/config';

/**
 * Three layers: unit (pure domain, fast; the engines' campaigns on photos apart, in `photos`),
 * integration (real handlers, real ASL, real SDK calls against the local stand-ins; two projects,
 * `integration` and `integration-partagee`) and cdk (assertions on the synthesized template);
 * `npm test` runs them all (docs/tests.md: which suite when). A fourth, service, runs `npm start`
 * itself as a user does (the README quick start and walk-through, the service's behaviour under Ctrl-C
 * and kill -9): about two minutes of real processes, so its own script, `npm run test:service`, which
 * CI (.ci/run) runs after `npm test`.
 */
const SERVICE = ['test/integration/readme.test.ts', 'test/integration/service-local.test.ts'];
/**
 * The clients people use (the SDK, its packed tarball, the `retouche` command, MCP) driven as a user
 * drives them against the local stack: a minute and more of child processes, so their own script,
 * `npm run test:clients`, which CI runs after `npm test`.
 */
const CLIENTS = ['test/integration/sdk.test.ts', 'test/integration/cli.test.ts', 'test/integration/mcp*.test.ts'];
/**
 * The integration files that run on their worker's stack (test/support/pile.ts, `pilePartagee`) rather
 * than each starting its own: `isolate: false`, so a worker runs them one after another in one process
 * that keeps the stack. Each creates its own accounts and reads only what it owns, and none changes the
 * stack or the process's environment (docs/tests.md says which files stay apart, and why).
 */
const PILE_PARTAGEE = [
  'test/integration/api.test.ts',
  'test/integration/apercu.test.ts',
  'test/integration/c2pa.test.ts',
  'test/integration/concurrence.test.ts',
  'test/integration/fusion.test.ts',
  'test/integration/messages.test.ts',
  'test/integration/pages.test.ts',
  'test/integration/s3-local.test.ts',
  'test/integration/telechargements.test.ts',
  'test/integration/televersements.test.ts',
];
/**
 * The engines' campaigns: the local engine's trained models (NanoDet, BlazeFace) and its fill run over
 * whole images, the real photographs of test/photos or the drawn scenes of docs/engines.md, scored
 * against their truth. Two thirds of the unit tests' time, so their own project, `photos`: `npm test`
 * runs it, `npm run test:unit` (the fast loop while working) does not (docs/tests.md).
 */
const PHOTOS = [
  'test/unit/exemples.test.ts',
  'test/unit/floutage-local.test.ts',
  'test/unit/floutage-reel.test.ts',
  'test/unit/lumiere-ciel.test.ts',
  'test/unit/moteur-reel.test.ts',
  'test/unit/photos-fusion.test.ts',
  'test/unit/piece-nommee.test.ts',
  'test/unit/scenes-dessinees.test.ts',
  'test/unit/vider-remplissage.test.ts',
  'test/unit/visages-reels.test.ts',
];

export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Handlers log JSON lines and emit metrics; tests read answers, not stdout.
    env: { POWERTOOLS_METRICS_DISABLED: 'true', POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'SILENT' },
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'], exclude: PHOTOS } },
      // The models (NanoDet, BlazeFace, the fill) loaded once per worker, not once per file (a fifth less time): no file
      // here changes the environment, mocks a client or keeps state of its own.
      { extends: true, test: { name: 'photos', include: PHOTOS, isolate: false } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          exclude: [...SERVICE, ...CLIENTS, ...PILE_PARTAGEE],
          // One DynamoDB Local (Java) for the whole run; each test file gets its own table.
          globalSetup: ['test/support/global-setup.ts'],
        },
      },
      {
        extends: true,
        test: { name: 'integration-partagee', include: PILE_PARTAGEE, isolate: false, globalSetup: ['test/support/global-setup.ts'] },
      },
      // clients, service and navigateur run in CI beside the arm64 proof, which keeps one of the two cores: a test that
      // takes 25 s alone (two npm starts, five admin processes) took up to 60 s there while other work loaded the
      // machine too, so these hang guards are twice the others. What the tests assert does not change.
      { extends: true, test: { name: 'clients', include: CLIENTS, globalSetup: ['test/support/global-setup.ts'], testTimeout: 120_000 } },
      // Each starts its own stacks (npm start, DynamoDB Local included).
      { extends: true, test: { name: 'service', include: SERVICE, testTimeout: 120_000 } },
      { extends: true, test: { name: 'cdk', include: ['test/cdk/**/*.test.ts'] } },
      // The web site in Chromium against npm start (`npm run test:site`, in CI after test:service).
      { extends: true, test: { name: 'navigateur', include: ['test/navigateur/**/*.test.ts'], fileParallelism: false, testTimeout: 120_000 } },
    ],
  },
});
