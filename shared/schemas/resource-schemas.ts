import * as z from './zod-mini';
import { socialPreviewSchema, trackingSchema } from './link-schemas';

/**
 * Response resources (spec 2), for the OpenAPI document. The services build them with
 * `toLinkResource` / `toDomainResource`; test/unit/resource-schemas.test.ts checks both agree.
 */
const dateTime = z.iso.datetime();
const nullableUri = z.nullable(z.url());

export const tagResourceSchema = z.object({ id: z.string(), name: z.string(), color: z.string() });

export const linkResourceSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    url: z.url(),
    desktopOverrideUrl: nullableUri,
    androidOverrideUrl: nullableUri,
    iosOverrideUrl: nullableUri,
    domain: z.string(),
    key: z.string(),
    shortLink: z.url(),
    expiresAt: z.nullable(dateTime),
    expiredUrl: nullableUri,
    passwordProtected: z.boolean(),
    clicks: z.int(),
    botClicks: z.int(),
    lastClicked: z.nullable(dateTime),
    lastBotClickedAt: z.nullable(dateTime),
    comments: z.nullable(z.string()),
    createdAt: dateTime,
    updatedAt: dateTime,
    linkType: z.enum(['SHORTLINK', 'DEEPLINK']),
    archived: z.boolean(),
    deepLinkAppId: z.nullable(z.string()),
    objects: z.nullable(z.record(z.string(), z.json())),
    tags: z.array(tagResourceSchema),
    tracking: trackingSchema,
    socialPreview: socialPreviewSchema,
  })
  ;

export const domainResourceSchema = z
  .object({
    id: z.string(),
    domain: z.string(),
    verified: z.boolean(),
    placeholder: z.nullable(z.string()),
    expiredUrl: nullableUri,
    notFoundUrl: nullableUri,
    primary: z.boolean(),
    archived: z.boolean(),
    createdAt: dateTime,
    updatedAt: dateTime,
  })
  ;

export const paginationSchema = z
  .object({ limit: z.int(), nextCursor: z.nullable(z.string()), hasMore: z.boolean() })
  ;

export const errorEnvelopeSchema = z
  .object({
    success: z.literal(false),
    error: z.object({ code: z.string(), message: z.string(), details: z.optional(z.unknown()) }),
    requestId: z.string(),
  })
  ;
