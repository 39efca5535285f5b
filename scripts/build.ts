/**
 * `npm run build`: bundles every route's handler exactly as the CDK stack does (same settings,
 * lib/bundle-settings.ts) into dist/<handler>/index.mjs and prints the sizes.
 */
import path from 'node:path';
import { build, type BuildOptions } from 'esbuild';
import { bundleSettings } from '@lib/bundle-settings';
import { projectRoot } from '@shared/local/paths';
import { routeTable } from '@shared/routes/route-table';
import { handlerEntry } from '@shared/routes/route-types';

export const distDir = path.join(projectRoot, 'dist');

/** esbuild's options for one Lambda entry, as the CDK construct bundles it (lib/bundle-settings.ts). */
export const bundleOptions = (entry: string, define: Record<string, string> = {}) =>
  ({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    target: bundleSettings.target,
    format: bundleSettings.format,
    minify: bundleSettings.minify,
    sourcemap: bundleSettings.sourcemap,
    mainFields: [...bundleSettings.mainFields],
    banner: { js: bundleSettings.banner },
    external: [...bundleSettings.external],
    define,
    tsconfig: path.join(projectRoot, 'tsconfig.json'),
    metafile: true,
    logLevel: 'error',
  }) satisfies BuildOptions;

export const bundleEntry = async (entry: string, outfile: string, define: Record<string, string> = {}) => {
  const result = await build({ ...bundleOptions(entry, define), outfile });
  const output = Object.entries(result.metafile.outputs).find(([file]) => file.endsWith('.mjs'));
  if (!output) throw new Error(`esbuild wrote no .mjs file for ${outfile}`);
  return { outfile, bytes: output[1].bytes, metafile: result.metafile };
};

export const buildAll = async () => {
  // One bundle per handler (a handler may serve several routes, e.g. GET and HEAD: the first row).
  const routes = routeTable.filter((r, i) => routeTable.findIndex((x) => x.handler === r.handler) === i);
  return Promise.all(
    routes.map(async (route) => ({
      handler: route.handler,
      ...(await bundleEntry(
        path.join(projectRoot, handlerEntry(route)),
        path.join(distDir, route.handler, 'index.mjs'),
      )),
    })),
  );
};

if (import.meta.url === `file://${process.argv[1]}`) {
  const built = await buildAll();
  for (const b of built.sort((x, y) => x.handler.localeCompare(y.handler))) {
    console.log(
      `${b.handler.padEnd(32)} ${(b.bytes / 1024).toFixed(1).padStart(8)} KiB  ${path.relative(projectRoot, b.outfile)}`,
    );
  }
}
