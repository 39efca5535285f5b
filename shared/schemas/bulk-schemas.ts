import * as z from './zod-mini';

export const BULK_MAX_ITEMS = 100;

/**
 * POST /v1/links/bulk: `{"links": [...]}` with 1 to 100 items. Each item is validated on its own
 * against `createLinkBodySchema` (a bad item is that item's failure, not the request's).
 */
export const bulkCreateLinksBodySchema = z.object({
  links: z
    .array(z.unknown())
    .check(
      z.minLength(1, 'must have at least 1 item'),
      z.maxLength(BULK_MAX_ITEMS, `must have at most ${BULK_MAX_ITEMS} items`),
    ),
});

export type BulkCreateLinksBody = z.infer<typeof bulkCreateLinksBodySchema>;
