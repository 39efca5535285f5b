import { build } from 'esbuild';
import { bundleDefinesFor } from '@lib/bundle-settings';
import { routeTable } from '@shared/routes/route-table';

/**
 * Bundles `ownRoute(handler)` as a Lambda entry is bundled (the route's build-time defines) and
 * returns the bundle's code and what `ownRoute` gave inside it.
 */
export const bundleOwnRoute = async (handler: string): Promise<{ code: string; route: unknown }> => {
  const row = routeTable.find((r) => r.handler === handler);
  if (!row) throw new Error(`No route for handler ${handler}`);
  const result = await build({
    stdin: {
      contents: `import { ownRoute } from '@shared/routes/own-route'; export const r = ownRoute('${handler}');`,
      resolveDir: process.cwd(),
      loader: 'ts',
    },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    minify: true,
    tsconfig: 'tsconfig.json',
    define: bundleDefinesFor(row),
  });
  const code = result.outputFiles[0]?.text ?? '';
  const mod = (await import(`data:text/javascript,${encodeURIComponent(code)}`)) as { r: unknown };
  return { code, route: mod.r };
};
