import SwaggerParser from '@apidevtools/swagger-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { routeTable } from '@shared/routes/route-table';
import type { RouteDef } from '@shared/routes/route-types';
import { buildOpenApiDocument } from '@shared/openapi/openapi-document';
import { http } from '@test/support/http-client';
import { startTestStack, type TestStack } from '@test/support/test-stack';

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack();
  return () => t.stop();
});

const opFor = (doc: any, route: Pick<RouteDef, 'method' | 'path'>) =>
  doc.paths[route.path.replace(/\{(\w+)\+\}/g, '{$1}')]?.[route.method.toLowerCase()];

describe('GET /v1/openapi.json', () => {
  it('serves a valid OpenAPI 3.1 document without a key', async () => {
    const res = await http(t.baseUrl, 'GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(res.body.openapi).toBe('3.1.0');
    await expect(SwaggerParser.validate(structuredClone(res.body))).resolves.toBeTruthy();
  });

  it('has every service-API row of the route table, with its credential', async () => {
    const doc = (await http(t.baseUrl, 'GET', '/v1/openapi.json')).body;
    const rows = routeTable.filter((r) => r.api === 'service' && r.path !== '$default');
    expect(rows.length).toBeGreaterThanOrEqual(13);
    for (const route of rows) {
      const op = opFor(doc, route);
      expect(op, `${route.method} ${route.path}`).toBeDefined();
      expect(op.operationId).toContain(route.handler);
      if (route.credential === 'none') expect(op.security).toEqual([]);
      else expect(op.security.length).toBeGreaterThan(0);
    }
  });

  it("describes bodies, queries and responses from the handlers' zod schemas", async () => {
    const doc = (await http(t.baseUrl, 'GET', '/v1/openapi.json')).body;
    const list = opFor(doc, { method: 'GET', path: '/v1/links' });
    expect(list.parameters.map((p: { name: string }) => p.name)).toEqual([
      'limit',
      'cursor',
      'search',
      'tag',
      'domain',
      'archived',
      'sort',
    ]);
    expect(list.parameters.find((p: { name: string }) => p.name === 'sort').schema.enum).toContain('clicks_asc');
    expect(list.responses['200'].content['application/json'].schema.properties.pagination).toEqual({
      $ref: '#/components/schemas/Pagination',
    });
    const create = opFor(doc, { method: 'POST', path: '/v1/links' });
    expect(create.parameters.map((p: { name: string }) => p.name)).toEqual(['Idempotency-Key']);
    expect(Object.keys(doc.components.schemas.LinkCreateRequest.properties)).toEqual(
      expect.arrayContaining(['url', 'destinationUrl', 'domain', 'platformOverrides']),
    );
    expect(doc.components.schemas.LinkPatchRequest.additionalProperties).not.toBe(false);
    expect(Object.keys(doc.components.schemas.Domain.properties).sort()).toEqual(
      [
        'id',
        'domain',
        'verified',
        'placeholder',
        'expiredUrl',
        'notFoundUrl',
        'primary',
        'archived',
        'createdAt',
        'updatedAt',
      ].sort(),
    );
    expect(opFor(doc, { method: 'DELETE', path: '/v1/links/{linkId}' }).parameters[0]).toMatchObject({
      name: 'linkId',
      in: 'path',
      required: true,
    });
  });

  it('still lists routes that have no registered schema (later features), with a generic description', async () => {
    const extra: RouteDef = {
      handler: 'future-thing',
      method: 'POST',
      path: '/api/mobile/{proxy+}',
      credential: 'legacy-mobile',
      api: 'service',
      grants: { table: 'read' },
      summary: 'A later feature',
    };
    const doc = buildOpenApiDocument([...routeTable, extra]);
    const op = opFor(doc, extra);
    expect(op).toMatchObject({
      operationId: 'future-thing',
      summary: 'A later feature',
      description: expect.stringContaining('A later feature'),
    });
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
  });
});

describe('OpenAPI error statuses', () => {
  it('documents 503 analytics_unavailable on the analytics routes only', () => {
    const doc = buildOpenApiDocument() as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    for (const route of routeTable.filter((r) => r.path.startsWith('/v1/') && r.method !== 'OPTIONS')) {
      const path = route.path;
      const op = doc.paths[path]?.[route.method.toLowerCase()];
      expect(op, `${route.method} ${path}`).toBeDefined();
      expect('503' in op!.responses, `${route.method} ${path}`).toBe(Boolean(route.grants.analytics));
    }
  });
});
