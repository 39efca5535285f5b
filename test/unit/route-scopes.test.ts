import { describe, expect, it } from 'vitest';
import { grants, scopesOf } from '@shared/auth/scopes';
import { buildOpenApiDocument } from '@shared/openapi/openapi-document';
import { routeTable } from '@shared/routes/route-table';

describe('scopes', () => {
  it('a key grants its scopes, `read` every *:read scope, `all` everything', () => {
    expect(grants(['links:read'], 'links:read')).toBe(true);
    expect(grants(['links:read'], 'links:write')).toBe(false);
    expect(grants(['links:write'], 'links:read')).toBe(false);
    expect(grants(['read'], 'analytics:read')).toBe(true);
    expect(grants(['read'], 'audit:read')).toBe(true);
    expect(grants(['read'], 'links:write')).toBe(false);
    expect(grants(['all'], 'links:write')).toBe(true);
    expect(grants([], 'links:read')).toBe(false);
  });

  it('a key stored without scopes has `all`', () => {
    expect(scopesOf({})).toEqual(['all']);
    expect(scopesOf({ scopes: ['domains:read'] })).toEqual(['domains:read']);
  });

  it('the OpenAPI document shows the scope of every server-key operation', () => {
    const doc = buildOpenApiDocument() as unknown as {
      paths: Record<string, Record<string, { operationId: string; security: unknown; 'x-required-scope'?: string }>>;
    };
    const operations = Object.values(doc.paths).flatMap((p) => Object.values(p));
    for (const route of routeTable.filter((r) => r.credential === 'server')) {
      const op = operations.find((o) => o.operationId === route.handler);
      expect(op, route.handler).toBeDefined();
      expect(op?.security).toEqual([{ serverKey: [route.scope] }]);
      expect(op?.['x-required-scope']).toBe(route.scope);
    }
  });
});
