import type { $ZodType } from 'zod/v4/core';
import type { LegacyDeepLink, LegacyShortLink } from '@shared/legacy/legacy-link-view';
import { linkResourceSchema, tagResourceSchema } from '@shared/schemas/resource-schemas';
import { legacyDeepLinkFormSchema, legacyLinkFormSchema } from '@shared/schemas/legacy-schemas';
import type { RouteDef } from '@shared/routes/route-types';
import * as z from '@shared/schemas/zod-mini';

type JsonSchema = Record<string, unknown>;

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

/*
 * The legacy multipart routes (`/api/mobile/*`) in the OpenAPI document: their form bodies, their
 * `{success, data}` answers and their own error shape. Not the v1 envelope.
 */

/** The legacy routes' error body: the message in `msg` or, on the GET routes' 400s, in `error`. */
const legacyErrorSchema = z.union([
  z.object({ success: z.literal(false), msg: z.string() }),
  z.object({ success: z.literal(false), error: z.string() }),
]);

const { id, title, url, domain, key, shortLink, linkType, comments, objects, deepLinkAppId } = linkResourceSchema.shape;
const legacyLinkBase = {
  id,
  title,
  url,
  domain,
  key,
  shortLink,
  linkType,
  comments,
  linkObject: z.object({ object: objects }),
  tags: z.array(z.object({ id: z.string(), tag: tagResourceSchema })),
};
/** The `data` of link create and GET link (shared/legacy/legacy-link-view.ts builds it). */
const legacyShortLinkSchema = z.object({ ...legacyLinkBase, projectId: z.string() });
/** The `data` of deeplink create and retrieve. */
const legacyDeepLinkSchema = z.object({ ...legacyLinkBase, deepLinkAppId });

// The schemas describe what the views build: a field the views add, drop or retype fails to
// compile here (linkObject.object aside: the view's objects are JSON values typed `unknown`).
type SameKeys<A, B> = [keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false;
type Checked<T> = Omit<T, 'linkObject'>;
export const legacyViewsMatch: [
  SameKeys<LegacyShortLink, z.infer<typeof legacyShortLinkSchema>>,
  SameKeys<LegacyDeepLink, z.infer<typeof legacyDeepLinkSchema>>,
  (view: Checked<LegacyShortLink>) => Checked<z.infer<typeof legacyShortLinkSchema>>,
  (view: Checked<LegacyDeepLink>) => Checked<z.infer<typeof legacyDeepLinkSchema>>,
] = [true, true, (view) => view, (view) => view];

/** Output components. */
export const legacyOutputComponents = (): Array<[string, $ZodType]> => [
  ['LegacyError', legacyErrorSchema],
  ['LegacyShortLink', legacyShortLinkSchema],
  ['LegacyDeepLink', legacyDeepLinkSchema],
];

/** Input components: the form fields as validated (made multipart forms by `asMultipartForm`). */
export const legacyInputComponents = (): Array<[string, $ZodType]> => [
  ['LegacyLinkForm', legacyLinkFormSchema],
  ['LegacyDeepLinkForm', legacyDeepLinkFormSchema],
];

const jsonField: Record<string, string> = {
  objects: 'A JSON object (or null) as text, at most 16 KiB and 32 levels; {} is stored as no objects',
  tags: 'A JSON array of tag names as text',
};

/**
 * A validated form (its JSON Schema) as the multipart form a client sends: every value is text.
 * `objects` and `tags` are JSON text (`contentMediaType` application/json, `contentSchema` what
 * it holds); a field cannot be null (an empty value counts as omitted).
 */
export const asMultipartForm = (schema: JsonSchema): JsonSchema => {
  const properties = Object.fromEntries(
    Object.entries(schema.properties as Record<string, JsonSchema>).map(([name, field]) => {
      const nonNull = Array.isArray(field.anyOf)
        ? (field.anyOf as JsonSchema[]).filter((option) => option.type !== 'null')
        : [field];
      const value = nonNull.length === 1 ? (nonNull[0] as JsonSchema) : field;
      const description = jsonField[name];
      return [
        name,
        description === undefined
          ? value
          : { type: 'string', description, contentMediaType: 'application/json', contentSchema: field },
      ];
    }),
  );
  return { ...schema, properties };
};

const formOf: Record<string, string> = {
  'legacy-link-create': 'LegacyLinkForm',
  'legacy-deeplink-create': 'LegacyDeepLinkForm',
};

/**
 * Everything of a legacy route's operation but its id, summary, tags and security. `rateLimited`:
 * the v1 routes' 429 (description and headers); the legacy 429 carries its text in `msg`.
 */
export const legacyOperation = (route: RouteDef, rateLimited: { description: string; headers: object }) => {
  const isPost = route.method === 'POST';
  const isApp = route.credential === 'legacy-app';
  const form = formOf[route.handler];
  const success = {
    type: 'object',
    required: ['success', 'data'],
    properties: { success: { const: true }, data: ref(isApp ? 'LegacyDeepLink' : 'LegacyShortLink') },
  };
  const body = { 'application/json': { schema: ref('LegacyError') } };
  return {
    description: `${route.summary}. Answers in the legacy shapes: {success:true, data} or {success:false, msg|error}, with no requestId in the body (X-Request-Id header).`,
    ...(isPost
      ? {}
      : {
          parameters: [
            {
              name: 'shortLink',
              in: 'query',
              required: true,
              description: 'The full short-link URL (scheme, port, query and fragment are ignored)',
              schema: { type: 'string' },
            },
          ],
        }),
    ...(form ? { requestBody: { required: true, content: { 'multipart/form-data': { schema: ref(form) } } } } : {}),
    responses: {
      '200': {
        description: isPost
          ? 'The link created; or {success:false, msg:"slug already exists"} when the slug is taken on that domain (archived links keep theirs)'
          : 'The link',
        content: {
          'application/json': { schema: isPost ? { oneOf: [success, ref('LegacyError')] } : success },
        },
      },
      '400': {
        description: isPost
          ? 'msg: no api-key header, a body that is not multipart/form-data, a malformed form, a file part, a repeated field, invalid fields, or (link create) a workspace without a verified primary short-link domain'
          : 'error: no api-key header, or shortLink missing or not the full short-link URL',
        content: body,
      },
      '404': {
        description: isApp
          ? 'msg: an unknown, revoked or other kind of key ("Deep link app not found, please check the API key"), or no such link of this app'
          : 'msg: an unknown, revoked or other kind of key ("No workspace found, please check the API key"), or no such link of this workspace',
        content: body,
      },
      ...(isPost ? { '413': { description: 'msg: the body is larger than 1 MiB', content: body } } : {}),
      '429': { description: `msg: ${rateLimited.description}`, headers: rateLimited.headers, content: body },
      '500': { description: 'msg: "Internal server error" (a bug, logged with the request id)', content: body },
    },
  };
};
