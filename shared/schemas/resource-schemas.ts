import * as z from 'zod';
import { socialPreviewSchema, trackingSchema } from './link-schemas';

/**
 * Response resources (spec 2), for the OpenAPI document. The services build them with
 * `toLinkResource` / `toDomainResource`; test/unit/resource-schemas.test.ts checks both agree.
 */
const dateTime = z.iso.datetime();
const nullableUri = z.url().nullable();

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
    expiresAt: dateTime.nullable(),
    expiredUrl: nullableUri,
    passwordProtected: z.boolean(),
    clicks: z.int(),
    botClicks: z.int(),
    lastClicked: dateTime.nullable(),
    lastBotClickedAt: dateTime.nullable(),
    comments: z.string().nullable(),
    createdAt: dateTime,
    updatedAt: dateTime,
    linkType: z.enum(['SHORTLINK', 'DEEPLINK']),
    archived: z.boolean(),
    deepLinkAppId: z.string().nullable(),
    objects: z.record(z.string(), z.json()).nullable(),
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
    placeholder: z.string().nullable(),
    expiredUrl: nullableUri,
    notFoundUrl: nullableUri,
    primary: z.boolean(),
    archived: z.boolean(),
    createdAt: dateTime,
    updatedAt: dateTime,
  })
  ;

export const paginationSchema = z
  .object({ limit: z.int(), nextCursor: z.string().nullable(), hasMore: z.boolean() })
  ;

export const errorEnvelopeSchema = z
  .object({
    success: z.literal(false),
    error: z.object({ code: z.string(), message: z.string(), details: z.unknown().optional() }),
    requestId: z.string(),
  })
  ;
