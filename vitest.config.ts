import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const dir = (p: string) => fileURLToPath(new URL(p, import.meta.url));

/** Every file's own environment: a table name, a temporary event lake, quiet logs. No DynamoDB. */
const env = 'test/support/test-env.ts';
/**
 * At least two workers: Vitest's default is one worker fewer than the cores, which on a 2-core
 * machine ran the files one after another on one core. The unit, CDK, integration and end-to-end
 * files run on them (each integration and end-to-end file has its own table and its own local
 * stack on its own ports); the reliability files do not.
 */
const twoWorkers = { maxWorkers: Math.max(2, availableParallelism() - 1) };
/** The unit and CDK files need no DynamoDB Local and are mostly computation: they run first. */
const computeOnly = { sequence: { groupOrder: 0 }, ...twoWorkers };
/**
 * The files of test/reliability/ that measure nothing of their own load (hostile input over every
 * route, the walls between tenants, secrets in logs, a workspace's erasure): they run beside the
 * end-to-end files, not one at a time.
 */
const reliabilityBesideE2e = ['hostile-input', 'tenant-walls', 'secrets', 'workspace-erasure'].map(
  (name) => `test/reliability/${name}.e2e.test.ts`,
);
/** One DynamoDB Local for the run (global setup), and a table of each file's own in it. */
const dynamo = {
  sequence: { groupOrder: 1 },
  globalSetup: ['test/support/global-setup.ts'],
  setupFiles: [env, 'test/support/dynamo-table.ts'],
};

export default defineConfig({
  resolve: {
    alias: {
      '@shared': dir('./shared'),
      '@lib': dir('./lib'),
      '@lambdas': dir('./lambdas'),
      '@test': dir('./test'),
      '@bench': dir('./bench'),
    },
  },
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: true,
    // Each project inherits the options above (`extends` is true by default) and adds only the
    // setup its tests need: `vitest run --project unit` starts no DynamoDB Local and no browser.
    projects: [
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts'], setupFiles: [env], ...computeOnly } },
      { test: { name: 'integration', include: ['test/integration/**/*.test.ts'], ...dynamo, ...twoWorkers } },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts', ...reliabilityBesideE2e],
          ...dynamo,
          ...twoWorkers,
          // The console's browser tests need console/dist (built here when missing or stale).
          globalSetup: [...dynamo.globalSetup, 'test/support/console-build-setup.ts'],
          // Every answer of the service API checked against the OpenAPI document.
          setupFiles: [...dynamo.setupFiles, 'test/support/openapi-contract-setup.ts'],
        },
      },
      // Load, races, stalls and outages: last, one file at a time, so that what they measure is
      // their own load and not another file's.
      {
        test: {
          name: 'reliability',
          include: ['test/reliability/**/*.test.ts'],
          exclude: reliabilityBesideE2e,
          ...dynamo,
          sequence: { groupOrder: 2 },
          maxWorkers: 1,
          setupFiles: [...dynamo.setupFiles, 'test/support/openapi-contract-setup.ts'],
        },
      },
      // The CDK files only read the synthesized stack. One worker process runs them all, so
      // aws-cdk-lib is loaded and the default stack synthesized (test/support/synth-stack.ts) once per
      // run rather than once per file: the single most expensive step of the suite.
      {
        test: {
          name: 'cdk',
          include: ['test/cdk/**/*.test.ts'],
          setupFiles: [env],
          isolate: false,
          ...computeOnly,
        },
      },
    ],
  },
});
