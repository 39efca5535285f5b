import { describe, expect, it } from 'vitest';
import { ownRoute } from '@shared/routes/own-route';
import { routeTable } from '@shared/routes/route-table';
import { bundleOwnRoute } from '@test/support/bundle-own-route';

describe('ownRoute', () => {
  it('finds the row of a handler in the route table (tsx, vitest)', () => {
    expect(ownRoute('links-get')).toMatchObject({ handler: 'links-get', method: 'GET', credential: 'server' });
    expect(() => ownRoute('no-such-handler')).toThrow('No route for handler no-such-handler');
  });

  it('is inlined from the same row in a bundle, without the table', async () => {
    const route = routeTable.find((r) => r.handler === 'client-click')!;
    const { code, route: inBundle } = await bundleOwnRoute('client-click');
    expect(code).toContain('credential:"publishable"');
    // No other row travels with it.
    expect(code).not.toContain('links-get');
    expect(inBundle).toEqual({ handler: 'client-click', method: route.method, credential: route.credential });
  });
});
