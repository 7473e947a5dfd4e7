import { defineConfig } from 'vitest/config';

/**
 * Three layers: unit (pure domain, fast), integration (real handlers, real ASL, real SDK calls
 * against the local stand-ins) and cdk (assertions on the synthesized template); `npm test` runs
 * them. A fourth, service, runs `npm start` itself as a user does (the README quick start and walk-through, the
 * service's behaviour under Ctrl-C and kill -9): about two minutes of real processes, so its own
 * script, `npm run test:service`, which CI (.ci/run) runs after `npm test`.
 */
const SERVICE = ['test/integration/readme.test.ts', 'test/integration/service-local.test.ts'];
/**
 * The clients people use (the SDK, its packed tarball, the `retouche` command, MCP) driven as a user
 * drives them against the local stack: a minute and more of child processes, so their own script,
 * `npm run test:clients`, which CI runs after `npm test`.
 */
const CLIENTS = ['test/integration/sdk.test.ts', 'test/integration/cli.test.ts', 'test/integration/mcp*.test.ts'];

export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Handlers log JSON lines and emit metrics; tests read answers, not stdout.
    env: { POWERTOOLS_METRICS_DISABLED: 'true', POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'SILENT' },
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          exclude: [...SERVICE, ...CLIENTS],
          // One DynamoDB Local (Java) for the whole run; each test file gets its own table.
          globalSetup: ['test/support/global-setup.ts'],
        },
      },
      { extends: true, test: { name: 'clients', include: CLIENTS, globalSetup: ['test/support/global-setup.ts'] } },
      // Each starts its own stacks (npm start, DynamoDB Local included).
      { extends: true, test: { name: 'service', include: SERVICE } },
      { extends: true, test: { name: 'cdk', include: ['test/cdk/**/*.test.ts'] } },
      // The web site in Chromium against npm start (`npm run test:site`, in CI after test:service).
      { extends: true, test: { name: 'navigateur', include: ['test/navigateur/**/*.test.ts'], fileParallelism: false } },
    ],
  },
});
