import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ApiContext, ApiEvent } from '@shared/http/api-types';
import { routeTable } from '@shared/routes/route-table';

const event = (path: string): ApiEvent =>
  ({
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: '',
    headers: {},
    requestContext: { http: { method: 'GET', path, sourceIp: '127.0.0.1', userAgent: 'test' } },
    isBase64Encoded: false,
  }) as ApiEvent;

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
  vi.resetModules();
});

describe('routes deployed without table access', () => {
  it('answer without TABLE_NAME in their environment, as their Lambdas are deployed', async () => {
    const noTable = routeTable.filter((r) => r.grants.table === 'none');
    expect(noTable.map((r) => r.handler).sort()).toEqual(['not-found', 'openapi-get']);
    delete process.env.TABLE_NAME;
    delete process.env.DYNAMODB_ENDPOINT;
    vi.resetModules();
    const { resetConfig } = await import('@shared/config/config');
    resetConfig();
    const notFound = await import('@lambdas/not-found');
    const openapi = await import('@lambdas/openapi-get');
    const missing = (await notFound.handler(event('/nope'), {} as ApiContext)) as { statusCode: number; body: string };
    expect(missing.statusCode).toBe(404);
    expect(JSON.parse(missing.body).error.code).toBe('not_found');
    const doc = (await openapi.handler(event('/v1/openapi.json'), {} as ApiContext)) as {
      statusCode: number;
      body: string;
    };
    expect(doc.statusCode).toBe(200);
    expect(JSON.parse(doc.body).openapi).toMatch(/^3\.1/);
  });
});
