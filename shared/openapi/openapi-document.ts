import type { $ZodType } from 'zod/v4/core';
import type { CredentialKind } from '@shared/auth/credential';
import { routeTable } from '@shared/routes/route-table';
import type { RouteDef } from '@shared/routes/route-types';
import { errorEnvelopeSchema, paginationSchema, tagResourceSchema } from '@shared/schemas/resource-schemas';
import * as z from '@shared/schemas/zod-mini';
import { routeSchemas, type RouteSchemas } from './route-schemas';
import { eventComponents, webhooksSection } from './webhook-components';
import { asMultipartForm, legacyInputComponents, legacyOperation, legacyOutputComponents } from './legacy-components';
import { required } from '@shared/util/required';
import { errorStatus, type ErrorCode } from '@shared/errors/error-code';
import { v1ErrorCodes } from './route-errors';

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

/**
 * The JSON value (zod's recursive `z.json()`, in link `objects`), as a component generators can
 * type: openapi-typescript turns `items: {$ref: JsonValue}` into `JsonValue[]`, a type that refers
 * to itself outside an object type, which `tsc --strict` refuses (TS2502). Array items are `{}`
 * (any JSON value: the same values, since a JSON body holds nothing else); objects still recurse.
 */
const jsonValueComponent = (): JsonSchema => ({
  description: 'Any JSON value: string, number, boolean, null, array or object',
  anyOf: [
    { type: 'string' },
    { type: 'number' },
    { type: 'boolean' },
    { type: 'null' },
    { type: 'array', items: {} },
    { type: 'object', additionalProperties: ref('JsonValue') },
  ],
});

/** Is this lifted recursive schema (its own address `self`) the one `z.json()` produces? */
const isJsonValue = (schema: unknown, self: string) =>
  JSON.stringify(schema) ===
  JSON.stringify({
    anyOf: [
      { type: 'string' },
      { type: 'number' },
      { type: 'boolean' },
      { type: 'null' },
      { type: 'array', items: { $ref: self } },
      { type: 'object', propertyNames: { type: 'string' }, additionalProperties: { $ref: self } },
    ],
  });

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
  // Recursive schemas (z.json()) land in a `__shared` bag of $defs: lift them into components,
  // the JSON value under its own name, anything else under a prefixed one.
  const sharedAddress = '#/components/schemas/__shared#/$defs/';
  const prefix = io === 'input' ? 'SharedInput' : 'SharedOutput';
  const sharedDefs = (schemas.__shared?.$defs ?? {}) as Record<string, JsonSchema>;
  const names = new Map(
    Object.entries(sharedDefs).map(([id, s]) => [
      id,
      isJsonValue(s, `${sharedAddress}${id}`) ? 'JsonValue' : `${prefix}_${id}`,
    ]),
  );
  const { __shared, ...named } = JSON.parse(
    JSON.stringify(schemas).replace(
      /#\/components\/schemas\/__shared#\/\$defs\/(\w+)/g,
      (_match, id: string) => `#/components/schemas/${names.get(id) ?? `${prefix}_${id}`}`,
    ),
  ) as Record<string, JsonSchema>;
  const shared = Object.entries((__shared?.$defs ?? {}) as Record<string, JsonSchema>).map(([id, s]) => {
    const name = names.get(id) ?? `${prefix}_${id}`;
    return [name, name === 'JsonValue' ? jsonValueComponent() : s] as const;
  });
  return Object.fromEntries(
    [...Object.entries(named), ...shared].map(([id, { $schema: _s, $id: _i, ...schema }]) => [id, schema]),
  );
};

/**
 * A query parameter as a client sends it. The handlers read the query string's text (digits for
 * numbers, "true"/"false" for flags), so zod's input schema says `string`; generators and
 * validators want the value's type: `integer` or `boolean` (serialized the same way).
 */
const queryParameterSchema = (schema: JsonSchema): JsonSchema => {
  const { type, pattern, enum: values, ...rest } = schema;
  if (
    type === 'string' &&
    Array.isArray(values) &&
    values.length === 2 &&
    values.includes('true') &&
    values.includes('false')
  )
    return { ...rest, type: 'boolean' };
  if (type === 'string' && typeof pattern === 'string') {
    if (pattern === '^\\+?\\d+$') return { ...rest, type: 'integer', minimum: 0 };
    const digits = /^\^\\d\{1,(\d+)\}\$$/.exec(pattern)?.[1];
    if (digits !== undefined) return { ...rest, type: 'integer', minimum: 0, maximum: 10 ** Number(digits) - 1 };
  }
  return schema;
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
    additionalProperties: false,
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
const retryAfterHeader = { description: 'Seconds until the window resets', schema: { type: 'integer' } };
const rateLimitedDescription =
  'rate_limited: the workspace used its per-minute budget for this kind of key (Retry-After says when to retry)';

/** API Gateway's stage throttling, on every route: its own 429 answer, not the envelope. */
const GATEWAY_THROTTLING =
  "Too Many Requests from API Gateway: the stage's throttling (the deployment's rate and burst), before the route's function runs: {message}, not the envelope";

/** API Gateway's own error answer (before a function runs): `{"message": "..."}`, not the v1 envelope. */
const gatewayErrorSchema = z.object({ message: z.string() });

/** What each error code means on a v1 route: when the route answers it. */
const v1ErrorCodeDescription = (route: RouteDef, code: ErrorCode): string => {
  switch (code) {
    case 'invalid_request':
      return 'invalid_request: validation failed (details is [{path, message}])';
    case 'invalid_json':
      return 'invalid_json: the body does not parse or is not UTF-8';
    case 'invalid_cursor':
      return 'invalid_cursor: a list cursor tampered with, expired or from another query';
    case 'unauthorized':
      return 'unauthorized: the key is missing, unknown, revoked or expired';
    case 'forbidden':
      return route.scope
        ? `forbidden: a key of another kind, or a server key without the ${route.scope} scope (details.reason "missing_scope", details.required "${route.scope}")`
        : 'forbidden: a key of another kind for this route';
    case 'client_restriction_failed':
      return "client_restriction_failed: the key's environment, platform, origin, package, certificate or bundle restriction fails (details.reason)";
    case 'not_found':
      return "not_found: an unknown id, or another workspace's id";
    case 'slug_taken':
      return 'slug_taken: the domain and key are already used (archived links keep their slug)';
    case 'idempotency_key_reused':
      return 'idempotency_key_reused: the same Idempotency-Key with another body';
    case 'idempotency_request_in_progress':
      return 'idempotency_request_in_progress: the same Idempotency-Key while the first request runs';
    case 'unsupported_media_type':
      return 'unsupported_media_type: a request body that is not application/json';
    case 'rate_limited':
      if (route.credential === 'none')
        return 'rate_limited: after 100 failed keys from one address in 5 minutes (a number the deployment may change), further failed keys (Retry-After says when to retry)';
      return `${rateLimitedDescription}; also after 100 failed keys from one address in 5 minutes (a number the deployment may change), further failed keys`;
    case 'analytics_unavailable':
      return 'analytics_unavailable: the analytics backend is not available (the rest of the API keeps working)';
    case 'internal_error':
      return 'internal_error: a bug; a generic message, logged with the request id';
  }
};

/**
 * The error answers of a v1 route: for each status it can answer, the envelope with the
 * `error.code` values it carries there (an enum, so validators and generated types know them).
 */
const v1ErrorResponses = (route: RouteDef, schemas: RouteSchemas | undefined) => {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of v1ErrorCodes(route, schemas)) {
    const status = errorStatus[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  // API Gateway's own answers, on any route, before the function runs: a body too large, and the
  // stage's throttling (429 with {message}, beside the route's own rate_limited where it has one).
  byStatus.set(413, []);
  byStatus.set(429, byStatus.get(429) ?? []);
  return Object.fromEntries(
    [...byStatus.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, codes]) => [
        String(status),
        status === 413
          ? {
              description:
                "Request Entity Too Large: a body over API Gateway's 10 MB, or a request over Lambda's 6 MB invocation limit. The gateway's own answer, before the route's function runs: {message}, not the envelope",
              content: { 'application/json': { schema: ref('GatewayError') } },
            }
          : status === 429 && codes.length === 0
            ? {
                description: GATEWAY_THROTTLING,
                content: { 'application/json': { schema: ref('GatewayError') } },
              }
            : {
                description: [
                  ...codes.map((code) => v1ErrorCodeDescription(route, code)),
                  ...(status === 429 ? [GATEWAY_THROTTLING] : []),
                ].join('; '),
                ...(status === 429 ? { headers: { ...rateLimitHeaders, 'Retry-After': retryAfterHeader } } : {}),
                content: {
                  'application/json': {
                    schema: (() => {
                      const envelope = {
                        allOf: [
                          ref('ErrorEnvelope'),
                          {
                            type: 'object',
                            properties: { error: { type: 'object', properties: { code: { enum: codes } } } },
                          },
                        ],
                      };
                      return status === 429 ? { oneOf: [envelope, ref('GatewayError')] } : envelope;
                    })(),
                  },
                },
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
      schema: queryParameterSchema(schema),
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
    ? schemas.status === 204
      ? { '204': { description: 'Success, with no body' } }
      : {
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
  const common = {
    operationId: methodsOf(route).length > 1 ? `${route.handler}-${method}` : route.handler,
    summary: route.summary,
    tags: [route.path.split('/').filter(Boolean).slice(0, 2).join('/') || 'meta'],
    // OpenAPI 3.1 lets an apiKey requirement list the roles it needs: the key's scope.
    security: route.scope ? [{ serverKey: [route.scope] }] : securityOf[route.credential],
  };
  if (!isV1) {
    return {
      ...common,
      ...legacyOperation(route, {
        description: rateLimitedDescription,
        headers: { ...rateLimitHeaders, 'Retry-After': retryAfterHeader },
      }),
    };
  }
  return {
    ...common,
    description:
      schemas?.description ??
      (schemas
        ? route.summary
        : `${route.summary}. Request and response are described in the feature's documentation.`),
    ...(route.scope ? { 'x-required-scope': route.scope } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(schemas?.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: ref(schemas.body.id) } } } }
      : {}),
    responses: { ...success, ...v1ErrorResponses(route, schemas) },
  };
};

/**
 * The OpenAPI 3.1 document of the service API, built from the route table (every row of the
 * service API but the catch-all) and the zod schemas the handlers validate with.
 */
export const buildOpenApiDocument = (routes: readonly RouteDef[] = routeTable) => {
  const registered = Object.values(routeSchemas);
  const inputs = toComponents(
    registered
      .flatMap((s) => [
        ...(s.body ? [[s.body.id, s.body.schema] as [string, $ZodType]] : []),
        ...(s.query ? [[s.query.id, s.query.schema] as [string, $ZodType]] : []),
      ])
      .concat(legacyInputComponents()),
    'input',
  );
  for (const [id] of legacyInputComponents()) inputs[id] = asMultipartForm(required(inputs[id], `the form ${id}`));
  for (const { body } of registered) {
    if (!body?.oneOfRequired) continue;
    const schema = required(inputs[body.id], `the input schema ${body.id}`);
    const properties = schema.properties as Record<string, JsonSchema>;
    schema.allOf = [
      {
        anyOf: body.oneOfRequired.map((name) => ({
          type: 'object',
          required: [name],
          properties: { [name]: properties[name] },
        })),
      },
    ];
  }
  const outputs = toComponents(
    [
      ...registered.flatMap((s) => (s.response ? [[s.response.id, s.response.schema] as [string, $ZodType]] : [])),
      ['Tag', tagResourceSchema],
      ['Pagination', paginationSchema],
      ['ErrorEnvelope', errorEnvelopeSchema],
      ['GatewayError', gatewayErrorSchema],
      ...legacyOutputComponents(),
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
      description:
        'Short links, deep links, domains, analytics and client attribution. Errors use the v1 envelope (ErrorEnvelope); the legacy /api/mobile routes answer in their own shape (LegacyError).',
      // Not open source (no license file; a private package). SPDX names such a license
      // `LicenseRef-<name>`.
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
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
