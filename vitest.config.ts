import { defineConfig } from 'vitest/config';

/**
 * Three layers: unit (pure domain, fast), integration (real handlers, real ASL, real SDK calls
 * against the local stand-ins) and cdk (assertions on the synthesized template).
 */
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
          // One DynamoDB Local (Java) for the whole run; each test file gets its own table.
          globalSetup: ['test/support/global-setup.ts'],
        },
      },
      { extends: true, test: { name: 'cdk', include: ['test/cdk/**/*.test.ts'] } },
    ],
  },
});
