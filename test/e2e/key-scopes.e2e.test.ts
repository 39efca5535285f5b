import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey } from '@shared/admin/api-key-lifecycle';
import { apiKeyRepository } from '@shared/auth/api-key-repository';
import { generateApiKey, hashApiKey } from '@shared/auth/api-keys';
import { routeScopes, type KeyScope } from '@shared/auth/scopes';
import { routeTable } from '@shared/routes/route-table';
import { http } from '@test/support/http-client';
import { startTestStack, type TestStack } from '@test/support/test-stack';
import { makeTenantFixture, routeCases, type TenantFixture } from '../reliability/route-cases';

let t: TestStack;
let a: TenantFixture;
const keyWith = async (scopes: KeyScope[]) =>
  (await issueKey({ workspaceId: a.tenant.workspaceId, kind: 'server', name: `scopes ${scopes.join(',')}`, scopes }))
    .key;

beforeAll(async () => {
  t = await startTestStack();
  a = await makeTenantFixture(t.tenantA);
});
afterAll(async () => t.stop());

const serverRoutes = routeTable.filter((r) => r.credential === 'server');

/** The same request with every id of the fixture replaced by one that does not exist. */
const withUnknownIds = (path: string) =>
  [a.shortLink.id, a.deepLink.id, a.tenant.domainId].reduce(
    (p, id) => p.replaceAll(id, `${id.split('_')[0] ?? 'x'}_doesnotexist0000000000`),
    path,
  );

const send = (handler: string, key: string, unknownIds = false) => {
  const route = serverRoutes.find((r) => r.handler === handler)!;
  const request = routeCases[handler]!(a, route);
  return http(t.baseUrl, request.method, unknownIds ? withUnknownIds(request.path) : request.path, {
    headers: { 'api-key': key, ...request.headers },
    json: request.json,
  });
};

describe('server key scopes', () => {
  it('every server-key route names a scope, and only server-key routes do', () => {
    for (const route of routeTable) {
      if (route.credential === 'server') expect(route.scope, route.handler).toBeDefined();
      else expect(route.scope, route.handler).toBeUndefined();
    }
  });

  for (const route of serverRoutes) {
    const label = `${route.method} ${route.path} (${route.handler})`;
    it(`${label}: a key without ${route.scope} gets 403 missing_scope, for an existing id and an unknown one alike`, async () => {
      const required = route.scope!;
      // Every other scope, and `read` too when the route needs a write scope.
      const others = routeScopes.filter((s) => s !== required);
      const key = await keyWith(required.endsWith(':write') ? [...others, 'read'] : others);
      const existing = await send(route.handler, key);
      expect(existing.status, existing.text.slice(0, 300)).toBe(403);
      expect(existing.body.error).toEqual({
        code: 'forbidden',
        message: `This key does not have the ${required} scope this route needs`,
        details: { reason: 'missing_scope', required },
      });
      const unknown = await send(route.handler, key, true);
      expect(unknown.status).toBe(403);
      expect(unknown.body.error).toEqual(existing.body.error);
    });
  }

  it('a key with the scope passes the scope check (reads and writes)', async () => {
    const reader = await keyWith(['links:read']);
    expect((await send('links-get', reader)).status).toBe(200);
    expect((await send('links-list', reader)).status).toBe(200);
    expect((await send('links-patch', reader)).status).toBe(403);
    const writer = await keyWith(['links:write']);
    expect((await send('links-patch', writer)).status).toBe(200);
    expect((await send('links-get', writer)).status).toBe(403);
  });

  it('`read` grants every *:read scope and no write; `all` and keys without scopes grant everything', async () => {
    const read = await keyWith(['read']);
    expect((await send('links-get', read)).status).toBe(200);
    expect((await send('domains-get', read)).status).toBe(200);
    expect((await send('deep-links-get', read)).status).toBe(200);
    const denied = await send('links-create', read);
    expect(denied.status).toBe(403);
    expect(denied.body.error.details).toEqual({ reason: 'missing_scope', required: 'links:write' });
    const all = await keyWith(['all']);
    expect((await send('links-create', all)).status).toBe(201);
    // bootstrap's server key has `all`; so has a key stored before scopes existed (no scopes attribute).
    expect((await send('links-create', a.tenant.serverKey)).status).toBe(201);
    const legacy = generateApiKey('server');
    await apiKeyRepository.put({
      keyHash: hashApiKey(legacy),
      kind: 'server',
      workspaceId: a.tenant.workspaceId,
      appId: null,
      revoked: false,
      createdAt: new Date().toISOString(),
      publishable: null,
    });
    expect((await send('links-create', legacy)).status).toBe(201);
    expect((await send('analytics-events', legacy)).status).not.toBe(403);
  });

  it('a scope never opens a route of another key kind', async () => {
    const key = await keyWith(['all']);
    const res = await http(t.baseUrl, 'POST', '/v1/client/resolve', {
      headers: { 'x-publishable-key': key },
      json: { linkId: a.shortLink.id },
    });
    expect([401, 403]).toContain(res.status);
  });
});
