import * as z from './zod-mini';

/**
 * `{linkId}` of /v1/links/{linkId}, /v1/deep-links/{linkId} and the link analytics route. Its own
 * module: zod schema construction is not tree-shaken, so a GET handler importing it from
 * link-schemas.ts would build every create and patch schema at cold start too.
 */
export const linkIdPathSchema = z.object({ linkId: z.string().check(z.minLength(1), z.maxLength(64)) });
