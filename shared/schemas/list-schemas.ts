import { hostnameSchema, tagNameSchema } from './common-schemas';
import * as z from './zod-mini';

/** Lists: page size 1-100, default 25; larger values are capped, not refused. */
export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 100;

export const linkSorts = [
  'created_at_desc',
  'created_at_asc',
  'updated_at_desc',
  'updated_at_asc',
  'clicks_desc',
  'clicks_asc',
] as const;
export const domainSorts = ['created_at_desc', 'created_at_asc', 'updated_at_desc', 'updated_at_asc'] as const;
export type LinkSort = (typeof linkSorts)[number];
export type DomainSort = (typeof domainSorts)[number];

/** A schema with its OpenAPI description (what classic zod's `.meta()` does). */
const described = <S extends z.ZodMiniType>(schema: S, description: string): S => {
  z.globalRegistry.add(schema, { description });
  return schema;
};

const pageSizeSchema = z.pipe(
  z
    .pipe(
      z.string().check(z.regex(/^\+?\d+$/, 'must be an integer from 1 to 100 (larger values are capped to 100)')),
      z.transform(Number),
    )
    .check(z.refine((n) => n >= 1, 'must be at least 1')),
  z.transform((n: number) => Math.min(n, MAX_PAGE_SIZE)),
);

export const limitQuerySchema = described(
  z.pipe(
    z.optional(pageSizeSchema),
    z.transform((n: number | undefined) => n ?? DEFAULT_PAGE_SIZE),
  ),
  'Page size, 1 to 100 (default 25); larger values are capped to 100',
);

const cursorQuerySchema = described(
  z.optional(z.string().check(z.maxLength(4096))),
  'pagination.nextCursor of the previous page; valid only with the same filters and sort',
);

/** Strictly "true" or "false" (default false): anything else is 400, never silently false. */
const archivedQuerySchema = described(
  z.pipe(
    z.optional(z.enum(['true', 'false'], { error: 'must be true or false' })),
    z.transform((v: 'true' | 'false' | undefined) => v === 'true'),
  ),
  'List archived records instead of active ones (default false)',
);

const searchQuerySchema = (description: string) =>
  described(
    z.pipe(
      z.optional(z.string().check(z.maxLength(200, 'must be at most 200 characters'))),
      z.transform((v: string | undefined) => (v === '' ? undefined : v)),
    ),
    description,
  );

const domainFilterSchema = () => described(z.optional(hostnameSchema), 'Exact domain');

/** GET /v1/links and GET /v1/deep-links. */
export const listLinksQuerySchema = z.object({
  limit: limitQuerySchema,
  cursor: cursorQuerySchema,
  search: searchQuerySchema(
    'Case-insensitive substring of title, destination URL, short link, key, domain or a tag name',
  ),
  tag: described(z.optional(tagNameSchema), 'Exact tag name (case-insensitive: tag names are unique ignoring case)'),
  domain: domainFilterSchema(),
  archived: archivedQuerySchema,
  sort: z._default(z.enum(linkSorts), 'created_at_desc'),
});

/** GET /v1/domains: no tag filter; the first four sorts. */
export const listDomainsQuerySchema = z.object({
  limit: limitQuerySchema,
  cursor: cursorQuerySchema,
  search: searchQuerySchema('Substring of the domain name'),
  domain: domainFilterSchema(),
  archived: archivedQuerySchema,
  sort: z._default(z.enum(domainSorts), 'created_at_desc'),
});

export type ListLinksQuery = z.infer<typeof listLinksQuerySchema>;
export type ListDomainsQuery = z.infer<typeof listDomainsQuerySchema>;
