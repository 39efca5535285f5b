import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { bundleDefinesFor } from '@lib/bundle-settings';
import { ownRoute } from '@shared/routes/own-route';
import { routeTable } from '@shared/routes/route-table';

describe('ownRoute', () => {
  it('finds the row of a handler in the route table (tsx, vitest)', () => {
    expect(ownRoute('links-get')).toMatchObject({ handler: 'links-get', method: 'GET', credential: 'server' });
    expect(() => ownRoute('no-such-handler')).toThrow('No route for handler no-such-handler');
  });

  it('is inlined from the same row in a bundle, without the table', async () => {
    const route = routeTable.find((r) => r.handler === 'client-click')!;
    const result = await build({
      stdin: {
        contents: "import { ownRoute } from '@shared/routes/own-route'; export const r = ownRoute('client-click');",
        resolveDir: process.cwd(),
        loader: 'ts',
      },
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'node',
      minify: true,
      tsconfig: 'tsconfig.json',
      define: bundleDefinesFor(route),
    });
    const code = result.outputFiles[0]!.text;
    expect(code).toContain('credential:"publishable"');
    // No other row travels with it.
    expect(code).not.toContain('links-get');
    const mod = (await import(`data:text/javascript,${encodeURIComponent(code)}`)) as { r: unknown };
    expect(mod.r).toEqual({ handler: 'client-click', method: route.method, credential: route.credential });
  });
});
