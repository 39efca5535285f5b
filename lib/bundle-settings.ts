import type { RouteDef } from '@shared/routes/route-types';

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

/**
 * Build-time constants of one handler's bundle: its own route-table row's fields
 * (shared/routes/own-route.ts), so the bundle does not carry the whole table. esbuild `define`
 * values are JS expressions: JSON string literals here, which esbuild folds.
 */
export const bundleDefinesFor = (route: RouteDef): Record<string, string> => ({
  __ROUTE_HANDLER__: JSON.stringify(route.handler),
  __ROUTE_METHOD__: JSON.stringify(route.method),
  __ROUTE_CREDENTIAL__: JSON.stringify(route.credential),
  __ROUTE_SCOPE__: JSON.stringify(route.scope ?? null),
});

/** Node options of the deployed functions; the cold-start benchmark starts Node with them too. */
export const runtimeNodeOptions = '--enable-source-maps';
