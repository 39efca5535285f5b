import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '@shared/openapi/openapi-document';

const doc = buildOpenApiDocument() as unknown as {
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, any> };
};

describe('OpenAPI: geo, bulk create, QR codes', () => {
  it("documents shortLink's two forms: https deployed, plain HTTP on the edge's port locally", () => {
    const output = JSON.stringify(doc.components.schemas.Link.properties.shortLink);
    expect(output).toContain('`https://{domain}/{key}` deployed');
    expect(output).toContain('`http://{domain}:{edge port}/{key}`');
    expect(JSON.stringify(doc.components.schemas.LinkBulkResults)).toContain('{edge port}');
    const input = JSON.stringify(doc.components.schemas.ClientLinkReference.properties.shortLink);
    expect(input).toContain('`https://{domain}/{key}`');
    expect(input).toContain('`http://{domain}:{edge port}/{key}`');
  });

  it('documents geo on create, PATCH and the Link', () => {
    for (const id of ['LinkCreateRequest', 'DeepLinkCreateRequest', 'LinkPatchRequest', 'Link']) {
      expect(doc.components.schemas[id].properties.geo, id).toBeDefined();
    }
    expect(JSON.stringify(doc.components.schemas.LinkCreateRequest.properties.geo)).toContain('ISO 3166-1 alpha-2');
  });

  it('documents POST /v1/links/bulk: items are LinkCreateRequest, per-item results, Idempotency-Key', () => {
    const op = doc.paths['/v1/links/bulk']!.post;
    expect(op.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/LinkBulkCreateRequest',
    });
    expect(doc.components.schemas.LinkBulkCreateRequest.properties.links).toMatchObject({
      minItems: 1,
      maxItems: 100,
      items: { $ref: '#/components/schemas/LinkCreateRequest' },
    });
    expect(op.responses['200'].content['application/json'].schema.properties.data).toEqual({
      $ref: '#/components/schemas/LinkBulkResults',
    });
    expect(op.parameters.map((p: { name: string }) => p.name)).toContain('Idempotency-Key');
  });

  it('documents the QR routes as images with their query parameters and JSON errors', () => {
    for (const path of ['/v1/links/{linkId}/qr', '/v1/deep-links/{linkId}/qr']) {
      const op = doc.paths[path]!.get;
      expect(Object.keys(op.responses['200'].content).sort()).toEqual(['image/png', 'image/svg+xml']);
      expect(op.parameters.map((p: { name: string }) => p.name).sort()).toEqual([
        'background',
        'color',
        'ecc',
        'format',
        'linkId',
        'margin',
        'size',
      ]);
      expect(op.responses['404'].content['application/json'].schema.allOf).toEqual([
        { $ref: '#/components/schemas/ErrorEnvelope' },
        { type: 'object', properties: { error: { type: 'object', properties: { code: { enum: ['not_found'] } } } } },
      ]);
    }
  });
});
