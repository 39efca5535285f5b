import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { bundleSettings } from '@lib/bundle-settings';
import { clientClickRoute, clientResolveRoute } from '@shared/routes/client-routes';
import { linksPatchRoute } from '@shared/routes/link-routes';

/**
 * Bundles a module that imports one route object, with the Lambda bundle settings, and loads it:
 * the bundle's code and the route as the bundle has it.
 */
const bundledRoute = async (module: string, name: string): Promise<{ code: string; route: unknown }> => {
  const { code, exports } = await bundled(`export { ${name} as route } from '${module}';`);
  return { code, route: exports.route };
};

const bundled = async (contents: string): Promise<{ code: string; exports: Record<string, unknown> }> => {
  const result = await build({
    stdin: { contents, resolveDir: process.cwd(), loader: 'ts' },
    bundle: true,
    write: false,
    platform: 'node',
    format: bundleSettings.format,
    target: bundleSettings.target,
    minify: bundleSettings.minify,
    mainFields: [...bundleSettings.mainFields],
    tsconfig: 'tsconfig.json',
  });
  const code = result.outputFiles[0]?.text ?? '';
  const exports = (await import(`data:text/javascript,${encodeURIComponent(code)}`)) as Record<string, unknown>;
  return { code, exports };
};

describe('a Lambda finds its route by reference', () => {
  it("a bundle carries its own route object, with its schemas, and none of the table's other rows", async () => {
    const { code, route } = await bundledRoute('@shared/routes/client-routes', 'clientClickRoute');
    expect(route).toMatchObject({
      handler: 'client-click',
      method: clientClickRoute.method,
      credential: 'publishable',
      request: { body: expect.anything() },
    });
    // No other row travels with it: not its neighbour in the same file, not the table.
    expect(code).not.toContain(clientResolveRoute.path);
    expect(code).not.toContain('links-get');
  });

  it("a handler's bundle carries its route's scope", async () => {
    const { route } = await bundledRoute('@shared/routes/link-routes', 'linksPatchRoute');
    expect(route).toMatchObject({
      handler: 'links-patch',
      method: 'PATCH',
      credential: 'server',
      scope: 'links:write',
    });
    expect(linksPatchRoute.scope).toBe('links:write');
  });

  it('keeps the English validation messages in a bundle (zod-mini.ts is the one module kept for its side effect)', async () => {
    // Read from the code: run in this process, the bundle's zod would share the locale this
    // process already configured (zod keeps its config on globalThis).
    const { code } = await bundled(
      "import { linkIdPathSchema } from '@shared/schemas/link-id-path-schema'; export const schema = linkIdPathSchema;",
    );
    expect(code).toContain('Invalid input: expected');
  });
});
