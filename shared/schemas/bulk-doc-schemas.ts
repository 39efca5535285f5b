import * as z from './zod-mini';
import { BULK_MAX_ITEMS } from './bulk-schemas';
import { createLinkBodySchema } from './link-schemas';
import { shortLinkSchema } from './resource-schemas';

/*
 * For the OpenAPI document only. The handler validates the envelope with
 * `bulkCreateLinksBodySchema` and each item with `createLinkBodySchema` on its own, so that one
 * bad item is that item's failure; this schema says the same to a reader.
 */
export const bulkCreateLinksDocSchema = z.object({
  links: z.array(createLinkBodySchema).check(z.minLength(1), z.maxLength(BULK_MAX_ITEMS)),
});

const compactLinkSchema = z.object({
  id: z.string(),
  domain: z.string(),
  key: z.string(),
  shortLink: shortLinkSchema,
  url: z.url(),
  createdAt: z.iso.datetime(),
});

export const bulkResultsSchema = z.array(
  z.union([
    z.object({ success: z.literal(true), data: compactLinkSchema }),
    z.object({
      success: z.literal(false),
      error: z.object({
        code: z.string(),
        message: z.string(),
        details: z.optional(z.array(z.object({ path: z.string(), message: z.string() }))),
      }),
    }),
  ]),
);
