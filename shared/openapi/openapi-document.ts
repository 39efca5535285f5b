import type { $ZodType } from 'zod/v4/core';
import type { CredentialKind } from '@shared/auth/credential';
import { routeTable } from '@shared/routes/route-table';
import type { RouteDef } from '@shared/routes/route-types';
import { errorEnvelopeSchema, paginationSchema, tagResourceSchema } from '@shared/schemas/resource-schemas';
import * as z from '@shared/schemas/zod-mini';
import { routeSchemas, type RouteSchemas } from './route-schemas';
import { eventComponents, webhooksSection } from './webhook-components';
import { required } from '@shared/util/required';

type JsonSchema = Record<string, unknown>;

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

const securitySchemes = {
  serverKey: {
    type: 'apiKey',
    in: 'header',
    name: 'api-key',
    description:
      'Workspace server key (sk_...). Each operation lists the scope it needs (also as x-required-scope): links:read, links:write, domains:read, analytics:read or audit:read; a key with `read` has every *:read scope, one with `all` every scope.',
  },
  appKey: { type: 'apiKey', in: 'header', name: 'api-key', description: 'Deep-link app key (ak_...)' },
  publishableKey: {
    type: 'apiKey',
    in: 'header',
    name: 'x-publishable-key',
    description: 'Publishable client key (pk_...)',
  },
  publishableBearer: { type: 'http', scheme: 'bearer', description: 'Publishable client key as a bearer token' },
  mobileKey: { type: 'apiKey', in: 'header', name: 'api-key', description: 'Legacy workspace mobile key (mk_...)' },
};

const securityOf: Record<CredentialKind, Array<Record<string, string[]>>> = {
  server: [{ serverKey: [] }],
  app: [{ appKey: [] }],
  publishable: [{ publishableKey: [] }, { publishableBearer: [] }],
  'legacy-mobile': [{ mobileKey: [] }],
  'legacy-app': [{ appKey: [] }],
  none: [],
};

/** Converts a registry in one go, so shared schemas become components referenced by `$ref`. */
const toComponents = (entries: Array<[string, $ZodType]>, io: 'input' | 'output'): Record<string, JsonSchema> => {
  const registry = z.registry<{ id: string }>();
  const seen = new Set<$ZodType>();
  for (const [id, schema] of entries) {
    if (seen.has(schema)) continue;
    seen.add(schema);
    registry.add(schema, { id });
  }
  const { schemas } = z.toJSONSchema(registry, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    uri: (id) => `#/components/schemas/${id}`,
  });
  // Recursive schemas (z.json()) land in a `__shared` bag of $defs: lift them into components.
  const prefix = io === 'input' ? 'SharedInput' : 'SharedOutput';
  const { __shared, ...named } = JSON.parse(
    JSON.stringify(schemas).replaceAll('#/components/schemas/__shared#/$defs/', `#/components/schemas/${prefix}_`),
  ) as Record<string, JsonSchema>;
  const shared = Object.entries((__shared?.$defs ?? {}) as Record<string, JsonSchema>).map(
    ([id, s]) => [`${prefix}_${id}`, s] as const,
  );
  return Object.fromEntries(
    [...Object.entries(named), ...shared].map(([id, { $schema: _s, $id: _i, ...schema }]) => [id, schema]),
  );
};

const openApiPath = (path: string) => path.replace(/\{(\w+)\+\}/g, '{$1}');
const pathParams = (path: string) =>
  [...path.matchAll(/\{(\w+)\+?\}/g)].map((m) => required(m[1], 'the name group of a path parameter'));
const methodsOf = (route: RouteDef) =>
  route.method === 'ANY' ? ['get', 'post', 'put', 'patch', 'delete'] : [route.method.toLowerCase()];

const successEnvelope = (schemas: RouteSchemas): JsonSchema => {
  const data = schemas.response
    ? schemas.response.list
      ? { type: 'array', items: ref(schemas.response.id) }
      : ref(schemas.response.id)
    : {};
  return {
    type: 'object',
    required: [
      'success',
      'requestId',
      ...(schemas.response ? ['data'] : []),
      ...(schemas.response?.list ? ['pagination'] : []),
    ],
    properties: {
      success: { const: true },
      data,
      ...(schemas.response?.list ? { pagination: ref('Pagination') } : {}),
      requestId: { type: 'string', description: 'Also in the X-Request-Id header' },
    },
  };
};

const v1ErrorResponses = (route: RouteDef) => {
  const statuses = [
    '400',
    ...(route.credential === 'none' ? [] : ['401', '403']),
    '404',
    '409',
    '415',
    // Per-workspace rate limits (docs/operations.md): every route with a credential.
    ...(route.credential === 'none' ? [] : ['429']),
    '500',
    // analytics_unavailable (503) is answered by the three analytics routes only.
    ...(route.grants.analytics ? ['503'] : []),
  ];
  const rateLimitHeaders = {
    RateLimit: {
      description: 'Requests left in the window and seconds to its reset ("<budget>";r=<n>;t=<s>)',
      schema: { type: 'string' },
    },
    'RateLimit-Policy': {
      description: 'The budget: quota per window ("<budget>";q=<n>;w=60)',
      schema: { type: 'string' },
    },
  };
  return Object.fromEntries(
    statuses.map((s) => [
      s,
      {
        description:
          s === '429'
            ? 'rate_limited: the workspace used its per-minute budget for this kind of key'
            : s === '403' && route.scope
              ? `forbidden: a key of another kind, or a server key without the ${route.scope} scope (details.reason "missing_scope", details.required "${route.scope}")`
              : 'Error (v1 envelope; error.code from the documented code list)',
        ...(s === '429'
          ? {
              headers: {
                ...rateLimitHeaders,
                'Retry-After': { description: 'Seconds until the window resets', schema: { type: 'integer' } },
              },
            }
          : {}),
        content: { 'application/json': { schema: ref('ErrorEnvelope') } },
      },
    ]),
  );
};

const operationFor = (route: RouteDef, method: string, inputs: Record<string, JsonSchema>) => {
  const schemas = routeSchemas[route.handler];
  const isV1 = route.path.startsWith('/v1/');
  const pathShape = schemas?.path
    ? (z.toJSONSchema(schemas.path, { io: 'input', unrepresentable: 'any' }).properties as Record<string, JsonSchema>)
    : {};
  const queryShape = schemas?.query
    ? ((required(inputs[schemas.query.id], `the input schema ${schemas.query.id}`).properties ?? {}) as Record<
        string,
        JsonSchema
      >)
    : {};
  const parameters = [
    ...pathParams(route.path).map((name) => ({
      name,
      in: 'path',
      required: true,
      schema: pathShape[name] ?? { type: 'string' },
    })),
    ...Object.entries(queryShape).map(([name, schema]) => ({
      name,
      in: 'query',
      required: false,
      ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
      schema,
    })),
    ...(schemas?.idempotent
      ? [
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            description: 'Same key and body within 24 h replays the stored response',
            schema: { type: 'string', maxLength: 255 },
          },
        ]
      : []),
  ];
  const success = schemas
    ? {
        [String(schemas.status)]: {
          description: 'Success',
          content: schemas.binary
            ? Object.fromEntries(
                schemas.binary.map((type) => [type, { schema: { type: 'string', contentMediaType: type } }]),
              )
            : {
                'application/json': {
                  schema: route.handler === 'openapi-get' ? { type: 'object' } : successEnvelope(schemas),
                },
              },
        },
      }
    : { '200': { description: 'Success' } };
  return {
    operationId: methodsOf(route).length > 1 ? `${route.handler}-${method}` : route.handler,
    summary: route.summary,
    description:
      schemas?.description ??
      (schemas
        ? route.summary
        : `${route.summary}. Request and response are described in the feature's documentation.`),
    tags: [route.path.split('/').filter(Boolean).slice(0, 2).join('/') || 'meta'],
    // OpenAPI 3.1 lets an apiKey requirement list the roles it needs: the key's scope.
    security: route.scope ? [{ serverKey: [route.scope] }] : securityOf[route.credential],
    ...(route.scope ? { 'x-required-scope': route.scope } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(schemas?.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: ref(schemas.body.id) } } } }
      : {}),
    responses: { ...success, ...(isV1 ? v1ErrorResponses(route) : { default: { description: 'Error' } }) },
  };
};

/**
 * The OpenAPI 3.1 document of the service API, built from the route table (every row of the
 * service API but the catch-all) and the zod schemas the handlers validate with.
 */
export const buildOpenApiDocument = (routes: readonly RouteDef[] = routeTable) => {
  const registered = Object.values(routeSchemas);
  const inputs = toComponents(
    registered.flatMap((s) => [
      ...(s.body ? [[s.body.id, s.body.schema] as [string, $ZodType]] : []),
      ...(s.query ? [[s.query.id, s.query.schema] as [string, $ZodType]] : []),
    ]),
    'input',
  );
  const outputs = toComponents(
    [
      ...registered.flatMap((s) => (s.response ? [[s.response.id, s.response.schema] as [string, $ZodType]] : [])),
      ['Tag', tagResourceSchema],
      ['Pagination', paginationSchema],
      ['ErrorEnvelope', errorEnvelopeSchema],
      ...eventComponents(),
    ],
    'output',
  );
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    if (route.api !== 'service' || route.path === '$default') continue;
    const path = openApiPath(route.path);
    paths[path] ??= {};
    for (const method of methodsOf(route)) paths[path][method] = operationFor(route, method, inputs);
  }
  const queryIds = new Set(registered.flatMap((s) => (s.query ? [s.query.id] : [])));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Link service API',
      version: '1.0.0',
      description: 'Short links, deep links, domains, analytics and client attribution. Errors use the v1 envelope.',
    },
    servers: [{ url: '/' }],
    paths,
    webhooks: webhooksSection(),
    components: {
      schemas: { ...Object.fromEntries(Object.entries(inputs).filter(([id]) => !queryIds.has(id))), ...outputs },
      securitySchemes,
    },
  };
};

export type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;
