import * as z from './zod-mini';
import { hostnameSchema } from './common-schemas';
import { editableLinkFields, tagsSchema, titleSchema } from './link-field-schemas';

export {
  editableLinkFields,
  objectsSchema,
  platformOverridesSchema,
  socialPreviewSchema,
  trackingSchema,
} from './link-field-schemas';

const aliasesAgree = (a: unknown, b: unknown) => a === undefined || b === undefined || a === b;

type OverrideInput = {
  desktopOverrideUrl?: string | null;
  androidOverrideUrl?: string | null;
  iosOverrideUrl?: string | null;
  platformOverrides?: Partial<
    Record<
      'desktop' | 'android' | 'ios' | 'desktopOverrideUrl' | 'androidOverrideUrl' | 'iosOverrideUrl',
      string | null
    >
  >;
};

/**
 * One platform's override may be sent as a top-level field and in `platformOverrides` (both key
 * styles of platformOverrides); like the other aliases, the values given must agree.
 */
const overridesAgree = (platform: 'desktop' | 'android' | 'ios') =>
  z.refine<OverrideInput>(
    (b) => {
      const long = `${platform}OverrideUrl` as const;
      const given = [b[long], b.platformOverrides?.[long], b.platformOverrides?.[platform]].filter(
        (v) => v !== undefined,
      );
      return given.every((v) => v === given[0]);
    },
    { path: ['platformOverrides', platform], error: `gives ${platform} a different override than another field` },
  );
const overrideChecks = [overridesAgree('desktop'), overridesAgree('android'), overridesAgree('ios')] as const;

/** POST /v1/links (LinkCreateRequest). */
export const createLinkBodySchema = z.object({ ...editableLinkFields, domain: hostnameSchema }).check(
  z.refine((b) => b.url !== undefined || b.destinationUrl !== undefined, { path: ['url'], error: 'is required' }),
  z.refine((b) => aliasesAgree(b.url, b.destinationUrl), { path: ['destinationUrl'], error: 'differs from url' }),
  z.refine((b) => aliasesAgree(b.key, b.slug), { path: ['slug'], error: 'differs from key' }),
  ...overrideChecks,
);

export type CreateLinkBody = z.infer<typeof createLinkBodySchema>;

export { linkIdPathSchema } from './link-id-path-schema';

/** POST /v1/deep-links: app id (alias appId) required; url defaults to the app's default URL. */
const appIdSchema = z.optional(z.string().check(z.minLength(1), z.maxLength(64)));

export const createDeepLinkBodySchema = z
  .object({ ...editableLinkFields, deepLinkAppId: appIdSchema, appId: appIdSchema })
  .check(
    z.refine((b) => b.deepLinkAppId !== undefined || b.appId !== undefined, {
      path: ['deepLinkAppId'],
      error: 'deepLinkAppId or appId is required',
    }),
    z.refine((b) => aliasesAgree(b.deepLinkAppId, b.appId), { path: ['appId'], error: 'differs from deepLinkAppId' }),
    z.refine((b) => aliasesAgree(b.url, b.destinationUrl), { path: ['destinationUrl'], error: 'differs from url' }),
    z.refine((b) => aliasesAgree(b.key, b.slug), { path: ['slug'], error: 'differs from key' }),
    ...overrideChecks,
  );

export type CreateDeepLinkBody = z.infer<typeof createDeepLinkBodySchema>;

/**
 * PATCH /v1/links/{id} and /v1/deep-links/{id} (LinkPatchRequest):
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
    z.refine((b) => aliasesAgree(b.url, b.destinationUrl), { path: ['destinationUrl'], error: 'differs from url' }),
    z.refine((b) => aliasesAgree(b.key, b.slug), { path: ['slug'], error: 'differs from key' }),
    ...overrideChecks,
  );

export type PatchLinkBody = z.infer<typeof patchLinkBodySchema>;
