import * as z from './zod-mini';

/*
 * The field schemas of a link, without the request bodies built from them: the legacy form
 * schemas use these alone, and zod schema construction runs at module init (not tree-shaken),
 * so keeping the bodies out of their bundles keeps those cold starts smaller.
 */
import {
  dateTimeSchema,
  httpUrlSchema,
  limits,
  linkKeySchema,
  nullableHttpUrlSchema,
  tagNameSchema,
} from './common-schemas';
import { countryCodeOf } from '@shared/geo/country-codes';
import { rulesSchema, variantsSchema } from './rule-schemas';

const nullableString = z.nullable(z.string().check(z.maxLength(1000)));
const optionalNullableString = z.optional(nullableString);

/** Tracking: known keys are string or null, customParams a string map; extra keys kept. */
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
      customParams: z.optional(
        z.nullable(z.record(z.string().check(z.maxLength(200)), z.string().check(z.maxLength(1000)))),
      ),
      adGroupId: optionalNullableString,
      adGroup: optionalNullableString,
      adId: optionalNullableString,
      creativeId: optionalNullableString,
      creative: optionalNullableString,
      keyword: optionalNullableString,
    }),
  )
  .check(z.refine((v) => v === null || JSON.stringify(v).length <= 8 * 1024, 'must be at most 8 KiB serialized'));

/** socialPreview (its inner fields are this product's choice): Open Graph / card overrides. */
export const socialPreviewSchema = z.nullable(
  z.object({
    title: z.optional(z.nullable(z.string().check(z.maxLength(limits.titleMax)))),
    description: z.optional(z.nullable(z.string().check(z.maxLength(1000)))),
    image: z.optional(nullableHttpUrlSchema),
    imageAlt: z.optional(z.nullable(z.string().check(z.maxLength(420)))),
    twitterCard: z.optional(z.nullable(z.enum(['summary', 'summary_large_image']))),
  }),
);

/** platformOverrides: both key styles (`ios` / `iosUrl`, ...). */
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
    error: `must be at most ${limits.objectsMaxBytes} bytes serialized`,
  }),
);

export const titleSchema = z
  .string()
  .check(z.maxLength(limits.titleMax, `must be at most ${limits.titleMax} characters`));
export const tagsSchema = z
  .array(tagNameSchema)
  .check(z.maxLength(limits.tagsPerLink, `at most ${limits.tagsPerLink} tags`));

export const GEO_MAX_ENTRIES = 50;

/**
 * Geo targeting: ISO 3166-1 alpha-2 code (any case) -> absolute http(s) URL, at most 50 entries;
 * codes come out upper-case. An unknown code (or one given twice in different cases) is an issue
 * at `geo.<code>`.
 */
export const geoSchema = z.nullable(
  z.pipe(
    z.record(z.string(), httpUrlSchema).check(
      z.refine((v) => Object.keys(v).length <= GEO_MAX_ENTRIES, `must have at most ${GEO_MAX_ENTRIES} entries`),
      z.superRefine((v, ctx) => {
        if (Object.keys(v).length > GEO_MAX_ENTRIES) return;
        const seen = new Set<string>();
        for (const code of Object.keys(v)) {
          const upper = countryCodeOf(code);
          if (upper === undefined)
            ctx.addIssue({
              code: 'custom',
              path: [code],
              message: 'is not an ISO 3166-1 alpha-2 country code',
              input: code,
            });
          else if (seen.has(upper))
            ctx.addIssue({ code: 'custom', path: [code], message: `gives ${upper} twice`, input: code });
          else seen.add(upper);
        }
      }),
    ),
    z.transform((v: Record<string, string>): Record<string, string> =>
      Object.fromEntries(Object.entries(v).map(([code, url]) => [code.toUpperCase(), url])),
    ),
  ),
);

z.globalRegistry.add(geoSchema, {
  description: `Geo targeting: ISO 3166-1 alpha-2 country code (any case; returned upper-case) -> absolute http(s) URL, at most ${GEO_MAX_ENTRIES} entries; null clears. On a click: platform override, then geo[viewer country], then url.`,
});

/** Opt-in web conversion tracking (docs/client-attribution.md, "Web conversions"). */
export const trackConversionsSchema = z.boolean();
z.globalRegistry.add(trackConversionsSchema, {
  description:
    "Web conversion tracking: on a click to a web destination the edge appends a signed click token (the workspace's parameter, `lsid` by default) that `@linkservice/web` sends back with customer events. Default false.",
});

/** Fields shared by link and deep-link create and by PATCH (all optional here). */
export const editableLinkFields = {
  url: z.optional(httpUrlSchema),
  destinationUrl: z.optional(httpUrlSchema),
  key: z.optional(linkKeySchema),
  slug: z.optional(linkKeySchema),
  title: z.optional(titleSchema),
  objects: z.optional(objectsSchema),
  tags: z.optional(tagsSchema),
  comments: z.optional(
    z.nullable(z.string().check(z.maxLength(limits.commentsMax, `must be at most ${limits.commentsMax} characters`))),
  ),
  password: z.optional(
    z.nullable(
      z
        .string()
        .check(z.minLength(1), z.maxLength(limits.passwordMax, `must be at most ${limits.passwordMax} characters`)),
    ),
  ),
  expiresAt: z.optional(z.nullable(dateTimeSchema)),
  expiredUrl: optionalNullableUrl,
  tracking: z.optional(trackingSchema),
  desktopOverrideUrl: optionalNullableUrl,
  androidOverrideUrl: optionalNullableUrl,
  iosOverrideUrl: optionalNullableUrl,
  platformOverrides: z.optional(platformOverridesSchema),
  socialPreview: z.optional(socialPreviewSchema),
  geo: z.optional(geoSchema),
  rules: z.optional(rulesSchema),
  variants: z.optional(variantsSchema),
  trackConversions: z.optional(trackConversionsSchema),
};
