import * as z from './zod-mini';
import {
  dateTimeSchema,
  hostnameSchema,
  httpUrlSchema,
  limits,
  linkKeySchema,
  nullableHttpUrlSchema,
  tagNameSchema,
} from './common-schemas';

const nullableString = z.nullable(z.string().check(z.maxLength(1000)));
const optionalNullableString = z.optional(nullableString);

/** Tracking (spec 2.5): known keys are string or null, customParams a string map; extra keys kept. */
export const trackingSchema = z
  .nullable(
    z.looseObject({
      utmSource: optionalNullableString,
      utmMedium: optionalNullableString,
      utmCampaign: optionalNullableString,
      utmTerm: optionalNullableString,
      utmContent: optionalNullableString,
      ref: optionalNullableString,
      campaignId: optionalNullableString,
      campaignName: optionalNullableString,
      channel: optionalNullableString,
      customParams: z.optional(z.nullable(z.record(z.string().check(z.maxLength(200)), z.string().check(z.maxLength(1000))))),
      adGroupId: optionalNullableString,
      adGroup: optionalNullableString,
      adId: optionalNullableString,
      creativeId: optionalNullableString,
      creative: optionalNullableString,
      keyword: optionalNullableString,
    }),
  )
  .check(z.refine((v) => v === null || JSON.stringify(v).length <= 8 * 1024, 'must be at most 8 KiB serialized'));

/** socialPreview (spec 2.6, inner fields "not shown"): Open Graph / card overrides. */
export const socialPreviewSchema = z.nullable(
  z.object({
    title: z.optional(z.nullable(z.string().check(z.maxLength(limits.titleMax)))),
    description: z.optional(z.nullable(z.string().check(z.maxLength(1000)))),
    image: z.optional(nullableHttpUrlSchema),
    imageAlt: z.optional(z.nullable(z.string().check(z.maxLength(420)))),
    twitterCard: z.optional(z.nullable(z.enum(['summary', 'summary_large_image']))),
  }),
);

/** platformOverrides (spec 2.6): both key styles. */
const optionalNullableUrl = z.optional(nullableHttpUrlSchema);

export const platformOverridesSchema = z.object({
  desktop: optionalNullableUrl,
  android: optionalNullableUrl,
  ios: optionalNullableUrl,
  desktopOverrideUrl: optionalNullableUrl,
  androidOverrideUrl: optionalNullableUrl,
  iosOverrideUrl: optionalNullableUrl,
});

export const objectsSchema = z.nullable(z.record(z.string(), z.json())).check(
  z.refine((v) => v === null || Buffer.byteLength(JSON.stringify(v)) <= limits.objectsMaxBytes, {
    message: `must be at most ${limits.objectsMaxBytes} bytes serialized`,
  }),
);

const titleSchema = z.string().check(z.maxLength(limits.titleMax, `must be at most ${limits.titleMax} characters`));
const tagsSchema = z.array(tagNameSchema).check(z.maxLength(limits.tagsPerLink, `at most ${limits.tagsPerLink} tags`));

/** Fields shared by link and deep-link create and by PATCH (all optional here). */
export const editableLinkFields = {
  url: z.optional(httpUrlSchema),
  destinationUrl: z.optional(httpUrlSchema),
  key: z.optional(linkKeySchema),
  slug: z.optional(linkKeySchema),
  title: z.optional(titleSchema),
  objects: z.optional(objectsSchema),
  tags: z.optional(tagsSchema),
  comments: z.optional(z.nullable(z.string().check(z.maxLength(limits.commentsMax, `must be at most ${limits.commentsMax} characters`)))),
  password: z.optional(
    z.nullable(z.string().check(z.minLength(1), z.maxLength(limits.passwordMax, `must be at most ${limits.passwordMax} characters`))),
  ),
  expiresAt: z.optional(z.nullable(dateTimeSchema)),
  expiredUrl: optionalNullableUrl,
  tracking: z.optional(trackingSchema),
  desktopOverrideUrl: optionalNullableUrl,
  androidOverrideUrl: optionalNullableUrl,
  iosOverrideUrl: optionalNullableUrl,
  platformOverrides: z.optional(platformOverridesSchema),
  socialPreview: z.optional(socialPreviewSchema),
};

const aliasesAgree = (a: unknown, b: unknown) => a === undefined || b === undefined || a === b;

type OverrideInput = {
  desktopOverrideUrl?: string | null;
  androidOverrideUrl?: string | null;
  iosOverrideUrl?: string | null;
  platformOverrides?: Partial<Record<'desktop' | 'android' | 'ios' | 'desktopOverrideUrl' | 'androidOverrideUrl' | 'iosOverrideUrl', string | null>>;
};

/**
 * One platform's override may be sent as a top-level field and in `platformOverrides` (both key
 * styles of spec 2.6); like the other aliases, the values given must agree.
 */
const overridesAgree = (platform: 'desktop' | 'android' | 'ios') =>
  z.refine<OverrideInput>(
    (b) => {
      const long = `${platform}OverrideUrl` as const;
      const given = [b[long], b.platformOverrides?.[long], b.platformOverrides?.[platform]].filter((v) => v !== undefined);
      return given.every((v) => v === given[0]);
    },
    { path: ['platformOverrides', platform], message: `gives ${platform} a different override than another field` },
  );
const overrideChecks = [overridesAgree('desktop'), overridesAgree('android'), overridesAgree('ios')] as const;

/** POST /v1/links (spec 4.2 LinkCreateRequest). */
export const createLinkBodySchema = z
  .object({ ...editableLinkFields, domain: hostnameSchema })
  .check(
    z.refine((b) => b.url !== undefined || b.destinationUrl !== undefined, { path: ['url'], message: 'is required' }),
    z.refine((b) => aliasesAgree(b.url, b.destinationUrl), { path: ['destinationUrl'], message: 'differs from url' }),
    z.refine((b) => aliasesAgree(b.key, b.slug), { path: ['slug'], message: 'differs from key' }),
    ...overrideChecks,
  );

export type CreateLinkBody = z.infer<typeof createLinkBodySchema>;

export { linkIdPathSchema } from './link-id-path-schema';

/** POST /v1/deep-links (spec 4.3): app id (alias appId) required; url defaults to the app's default URL. */
const appIdSchema = z.optional(z.string().check(z.minLength(1), z.maxLength(64)));

export const createDeepLinkBodySchema = z
  .object({ ...editableLinkFields, deepLinkAppId: appIdSchema, appId: appIdSchema })
  .check(
    z.refine((b) => b.deepLinkAppId !== undefined || b.appId !== undefined, { path: ['deepLinkAppId'], message: 'deepLinkAppId or appId is required' }),
    z.refine((b) => aliasesAgree(b.deepLinkAppId, b.appId), { path: ['appId'], message: 'differs from deepLinkAppId' }),
    z.refine((b) => aliasesAgree(b.url, b.destinationUrl), { path: ['destinationUrl'], message: 'differs from url' }),
    z.refine((b) => aliasesAgree(b.key, b.slug), { path: ['slug'], message: 'differs from key' }),
    ...overrideChecks,
  );

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
    title: z.optional(z.nullable(titleSchema)),
    tags: z.optional(z.nullable(tagsSchema)),
    domain: z.optional(hostnameSchema),
    archived: z.optional(z.boolean()),
  })
  .check(
    z.refine((b) => aliasesAgree(b.url, b.destinationUrl), { path: ['destinationUrl'], message: 'differs from url' }),
    z.refine((b) => aliasesAgree(b.key, b.slug), { path: ['slug'], message: 'differs from key' }),
    ...overrideChecks,
  );

export type PatchLinkBody = z.infer<typeof patchLinkBodySchema>;
