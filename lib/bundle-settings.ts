/**
 * How every Lambda is bundled: the CDK construct (lib/service-function.ts), `npm run build` and
 * the benchmark all use these settings, so what is measured is what is deployed.
 */
export const bundleSettings = {
  target: 'node22',
  format: 'esm',
  minify: true,
  sourcemap: true,
  mainFields: ['module', 'main'],
  /** ESM bundles still meet CommonJS dependencies that call require(). */
  banner:
    "import { createRequire as __createRequire } from 'module'; const require = __createRequire(import.meta.url);",
  /** Bundle the SDK too: pinned versions, and smaller cold starts than the runtime's copy. */
  external: [] as string[],
} as const;

/** Node options of the deployed functions; the cold-start benchmark starts Node with them too. */
export const runtimeNodeOptions = '--enable-source-maps';
