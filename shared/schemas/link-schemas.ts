import * as z from 'zod';
import {
  dateTimeSchema,
  hostnameSchema,
  httpUrlSchema,
  limits,
  linkKeySchema,
  nullableHttpUrlSchema,
  tagNameSchema,
} from './common-schemas';

const nullableString = z.string().max(1000).nullable();

/** Tracking (spec 2.5): known keys are string or null, customParams a string map; extra keys kept. */
export const trackingSchema = z
  .looseObject({
    utmSource: nullableString.optional(),
    utmMedium: nullableString.optional(),
    utmCampaign: nullableString.optional(),
    utmTerm: nullableString.optional(),
    utmContent: nullableString.optional(),
    ref: nullableString.optional(),
    campaignId: nullableString.optional(),
    campaignName: nullableString.optional(),
    channel: nullableString.optional(),
    customParams: z.record(z.string().max(200), z.string().max(1000)).nullable().optional(),
    adGroupId: nullableString.optional(),
    adGroup: nullableString.optional(),
    adId: nullableString.optional(),
    creativeId: nullableString.optional(),
    creative: nullableString.optional(),
    keyword: nullableString.optional(),
  })
  .nullable()
  .refine((v) => v === null || JSON.stringify(v).length <= 8 * 1024, 'must be at most 8 KiB serialized');

/** socialPreview (spec 2.6, inner fields "not shown"): Open Graph / card overrides. */
export const socialPreviewSchema = z
  .object({
    title: z.string().max(limits.titleMax).nullable().optional(),
    description: z.string().max(1000).nullable().optional(),
    image: nullableHttpUrlSchema.optional(),
    imageAlt: z.string().max(420).nullable().optional(),
    twitterCard: z.enum(['summary', 'summary_large_image']).nullable().optional(),
  })
  .nullable();

/** platformOverrides (spec 2.6): both key styles. */
export const platformOverridesSchema = z.object({
  desktop: nullableHttpUrlSchema.optional(),
  android: nullableHttpUrlSchema.optional(),
  ios: nullableHttpUrlSchema.optional(),
  desktopOverrideUrl: nullableHttpUrlSchema.optional(),
  androidOverrideUrl: nullableHttpUrlSchema.optional(),
  iosOverrideUrl: nullableHttpUrlSchema.optional(),
});

export const objectsSchema = z
  .record(z.string(), z.json())
  .nullable()
  .refine((v) => v === null || Buffer.byteLength(JSON.stringify(v)) <= limits.objectsMaxBytes, {
    message: `must be at most ${limits.objectsMaxBytes} bytes serialized`,
  });

/** Fields shared by link and deep-link create and by PATCH (all optional here). */
export const editableLinkFields = {
  url: httpUrlSchema.optional(),
  destinationUrl: httpUrlSchema.optional(),
  key: linkKeySchema.optional(),
  slug: linkKeySchema.optional(),
  title: z.string().max(limits.titleMax, `must be at most ${limits.titleMax} characters`).optional(),
  objects: objectsSchema.optional(),
  tags: z.array(tagNameSchema).max(limits.tagsPerLink, `at most ${limits.tagsPerLink} tags`).optional(),
  comments: z.string().max(limits.commentsMax, `must be at most ${limits.commentsMax} characters`).nullable().optional(),
  password: z.string().min(1).max(limits.passwordMax, `must be at most ${limits.passwordMax} characters`).nullable().optional(),
  expiresAt: dateTimeSchema.nullable().optional(),
  expiredUrl: nullableHttpUrlSchema.optional(),
  tracking: trackingSchema.optional(),
  desktopOverrideUrl: nullableHttpUrlSchema.optional(),
  androidOverrideUrl: nullableHttpUrlSchema.optional(),
  iosOverrideUrl: nullableHttpUrlSchema.optional(),
  platformOverrides: platformOverridesSchema.optional(),
  socialPreview: socialPreviewSchema.optional(),
};

const aliasesAgree = (a: unknown, b: unknown) => a === undefined || b === undefined || a === b;

/** POST /v1/links (spec 4.2 LinkCreateRequest). */
export const createLinkBodySchema = z
  .object({ ...editableLinkFields, domain: hostnameSchema })
  .refine((b) => b.url !== undefined || b.destinationUrl !== undefined, { path: ['url'], message: 'is required' })
  .refine((b) => aliasesAgree(b.url, b.destinationUrl), { path: ['destinationUrl'], message: 'differs from url' })
  .refine((b) => aliasesAgree(b.key, b.slug), { path: ['slug'], message: 'differs from key' });

export type CreateLinkBody = z.infer<typeof createLinkBodySchema>;

export const linkIdPathSchema = z.object({ linkId: z.string().min(1).max(64) });

/** POST /v1/deep-links (spec 4.3): app id (alias appId) required; url defaults to the app's default URL. */
export const createDeepLinkBodySchema = z
  .object({ ...editableLinkFields, deepLinkAppId: z.string().min(1).max(64).optional(), appId: z.string().min(1).max(64).optional() })
  .refine((b) => b.deepLinkAppId !== undefined || b.appId !== undefined, { path: ['deepLinkAppId'], message: 'deepLinkAppId or appId is required' })
  .refine((b) => aliasesAgree(b.deepLinkAppId, b.appId), { path: ['appId'], message: 'differs from deepLinkAppId' })
  .refine((b) => aliasesAgree(b.url, b.destinationUrl), { path: ['destinationUrl'], message: 'differs from url' })
  .refine((b) => aliasesAgree(b.key, b.slug), { path: ['slug'], message: 'differs from key' });

export type CreateDeepLinkBody = z.infer<typeof createDeepLinkBodySchema>;

/**
 * PATCH /v1/links/{id} and /v1/deep-links/{id} (spec 4.2 LinkPatchRequest, DESIGN.md section 4):
 * every field optional, same rules as create; `null` clears (a null `title` goes back to the
 * short link, null `tags` removes all); `archived: false` restores. Unknown properties are
 * tolerated (kept by the schema, ignored by the service).
 */
export const patchLinkBodySchema = z
  .looseObject({
    ...editableLinkFields,
    title: editableLinkFields.title.unwrap().nullable().optional(),
    tags: editableLinkFields.tags.unwrap().nullable().optional(),
    domain: hostnameSchema.optional(),
    archived: z.boolean().optional(),
  })
  .refine((b) => aliasesAgree(b.url, b.destinationUrl), { path: ['destinationUrl'], message: 'differs from url' })
  .refine((b) => aliasesAgree(b.key, b.slug), { path: ['slug'], message: 'differs from key' });

export type PatchLinkBody = z.infer<typeof patchLinkBodySchema>;
