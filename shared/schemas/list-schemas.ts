import * as z from 'zod';
import { hostnameSchema, tagNameSchema } from './common-schemas';

/** Spec 4.1 / 8: page size 1-100, default 25; larger values are capped, not refused. */
export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 100;

export const linkSorts = ['created_at_desc', 'created_at_asc', 'updated_at_desc', 'updated_at_asc', 'clicks_desc', 'clicks_asc'] as const;
export const domainSorts = ['created_at_desc', 'created_at_asc', 'updated_at_desc', 'updated_at_asc'] as const;
export type LinkSort = (typeof linkSorts)[number];
export type DomainSort = (typeof domainSorts)[number];

export const limitQuerySchema = z
  .string()
  .regex(/^\+?\d+$/, 'must be an integer from 1 to 100 (larger values are capped to 100)')
  .transform(Number)
  .refine((n) => n >= 1, 'must be at least 1')
  .transform((n) => Math.min(n, MAX_PAGE_SIZE))
  .optional()
  .transform((n) => n ?? DEFAULT_PAGE_SIZE)
  .meta({ description: 'Page size, 1 to 100 (default 25); larger values are capped to 100' });

const cursorQuerySchema = z
  .string()
  .max(4096)
  .optional()
  .meta({ description: 'pagination.nextCursor of the previous page; valid only with the same filters and sort' });

/** Strictly "true" or "false" (default false): anything else is 400, never silently false. */
const archivedQuerySchema = z
  .enum(['true', 'false'], { message: 'must be true or false' })
  .optional()
  .transform((v) => v === 'true')
  .meta({ description: 'List archived records instead of active ones (default false)' });

const searchQuerySchema = z
  .string()
  .max(200, 'must be at most 200 characters')
  .optional()
  .transform((v) => (v === '' ? undefined : v));

/** GET /v1/links and GET /v1/deep-links (spec 4.1). */
export const listLinksQuerySchema = z.object({
  limit: limitQuerySchema,
  cursor: cursorQuerySchema,
  search: searchQuerySchema.meta({
    description: 'Case-insensitive substring of title, destination URL, short link, key, domain or a tag name',
  }),
  tag: tagNameSchema.optional().meta({ description: 'Exact tag name (case-insensitive: tag names are unique ignoring case)' }),
  domain: hostnameSchema.optional().meta({ description: 'Exact domain' }),
  archived: archivedQuerySchema,
  sort: z.enum(linkSorts).default('created_at_desc'),
});

/** GET /v1/domains (spec 4.4): no tag filter; the first four sorts. */
export const listDomainsQuerySchema = z.object({
  limit: limitQuerySchema,
  cursor: cursorQuerySchema,
  search: searchQuerySchema.meta({ description: 'Substring of the domain name' }),
  domain: hostnameSchema.optional().meta({ description: 'Exact domain' }),
  archived: archivedQuerySchema,
  sort: z.enum(domainSorts).default('created_at_desc'),
});

export type ListLinksQuery = z.infer<typeof listLinksQuerySchema>;
export type ListDomainsQuery = z.infer<typeof listDomainsQuerySchema>;
