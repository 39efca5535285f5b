import * as z from './zod-mini';
import { socialPreviewSchema, trackingSchema } from './link-schemas';

/**
 * Response resources of the v1 API, for the OpenAPI document. The services build them with
 * `toLinkResource` / `toDomainResource`; test/unit/resource-schemas.test.ts checks both agree.
 */
const dateTime = z.iso.datetime();
const nullableUri = z.nullable(z.url());

/** A link's short link as rendered by shortLinkOf (shared/links/short-link.ts), described for the document. */
export const shortLinkSchema = z.url();
z.globalRegistry.add(shortLinkSchema, {
  description:
    "The link's short link, the URL to share: `https://{domain}/{key}` deployed; on the local stack `http://{domain}:{edge port}/{key}`, which the local edge answers.",
});

export const tagResourceSchema = z.object({ id: z.string(), name: z.string(), color: z.string() });

/** A stored redirect-rule condition (normalised: canonical language tag, upper-case country, CIDR network, UTC instant). */
const ruleConditionResourceSchema = z.object({
  type: z.enum(['language', 'query', 'ip', 'country', 'device', 'after', 'before']),
  value: z.optional(z.string()),
  param: z.optional(z.string()),
});

export const linkResourceSchema = z.object({
  id: z.string(),
  title: z.string(),
  url: z.url(),
  desktopOverrideUrl: nullableUri,
  androidOverrideUrl: nullableUri,
  iosOverrideUrl: nullableUri,
  domain: z.string(),
  key: z.string(),
  shortLink: shortLinkSchema,
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
  geo: z.nullable(z.record(z.string().check(z.regex(/^[A-Z]{2}$/)), z.url())),
  rules: z.nullable(
    z.array(z.object({ id: z.string(), conditions: z.array(ruleConditionResourceSchema), url: z.url() })),
  ),
  variants: z.nullable(z.array(z.object({ id: z.string(), url: z.url(), weight: z.int() }))),
  trackConversions: z.boolean(),
});

export const domainResourceSchema = z.object({
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
});

export const paginationSchema = z.object({ limit: z.int(), nextCursor: z.nullable(z.string()), hasMore: z.boolean() });

export const errorEnvelopeSchema = z.object({
  success: z.literal(false),
  error: z.object({ code: z.string(), message: z.string(), details: z.optional(z.unknown()) }),
  requestId: z.string(),
});

/* Analytics structures (extra keys allowed on all of them). */
const count = z.int().check(z.nonnegative());
export const breakdownRowSchema = z.looseObject({ key: z.string(), label: z.string(), count, percentage: z.number() });
const analyticsSummarySchema = z.looseObject({
  humanClicks: count,
  uniqueVisitors: count,
  botClicks: count,
  totalClicks: count,
  lastActivityAt: z.nullable(dateTime),
  launchViewImpressions: count,
  launchViewAutoOpenAttempts: count,
  launchViewPrimaryClicks: count,
  launchViewSecondaryClicks: count,
});
const timeseriesPointSchema = z.looseObject({
  bucketStart: dateTime,
  label: z.string(),
  humanClicks: count,
  botClicks: count,
  totalClicks: count,
  uniqueVisitors: count,
});
const recentEventSchema = z.looseObject({
  eventId: z.string(),
  eventType: z.string(),
  responseKind: z.optional(z.string()),
  country: z.optional(z.string()),
  deviceType: z.optional(z.string()),
  platform: z.optional(z.string()),
  sdkEventName: z.optional(z.string()),
  occurredAt: dateTime,
  isBot: z.boolean(),
});
const launchViewMetricsSchema = z.looseObject({
  impressions: count,
  autoOpenAttempts: count,
  primaryClicks: count,
  secondaryClicks: count,
});
const breakdowns = z.optional(z.array(breakdownRowSchema));
const analyticsDataShape = {
  summary: analyticsSummarySchema,
  timeseries: z.array(timeseriesPointSchema),
  recentEvents: z.array(recentEventSchema),
  launchViewMetrics: launchViewMetricsSchema,
  customerEvents: breakdowns,
  deviceBreakdown: breakdowns,
  browserBreakdown: breakdowns,
  osBreakdown: breakdowns,
  geoBreakdown: breakdowns,
  referrerBreakdown: breakdowns,
  campaignBreakdown: breakdowns,
  destinationBreakdown: breakdowns,
};
/** A link's analytics also break clicks down by the redirect rule / A/B-test variant that decided them (key: its id, label: its URL). */
export const analyticsDataSchema = z.looseObject({
  ...analyticsDataShape,
  ruleBreakdown: breakdowns,
  variantBreakdown: breakdowns,
});
export const topDeepLinkSchema = z.looseObject({
  linkId: z.string(),
  domain: z.string(),
  linkKey: z.string(),
  shortLink: shortLinkSchema,
  humanClicks: count,
  uniqueVisitors: count,
  launchViewImpressions: count,
  lastActivityAt: z.nullable(dateTime),
});
export const deepLinkAppAnalyticsDataSchema = z.looseObject({
  ...analyticsDataShape,
  topLinks: z.array(topDeepLinkSchema),
});
const optionalString = z.optional(z.string());
export const rawAnalyticsEventSchema = z.looseObject({
  timestamp: dateTime,
  eventType: z.string(),
  trafficType: z.enum(['human', 'bot']),
  country: optionalString,
  deviceType: optionalString,
  platform: optionalString,
  referrerHost: optionalString,
  resolvedDestinationUrl: optionalString,
  sdkEventName: optionalString,
  sessionId: optionalString,
  clickId: optionalString,
  attributionId: optionalString,
  installId: optionalString,
  /** The link's redirect rule / A/B-test variant that decided a click; null when none did. */
  ruleId: z.nullable(z.string()),
  variantId: z.nullable(z.string()),
  /** Extension: how the event came in (`edge`, `api`, or `browser`: a browser's publishable key, which anyone can use). */
  source: z.optional(z.enum(['edge', 'api', 'browser'])),
});

/* Client API structures. */
export const clientLinkPayloadSchema = z.nullable(
  z.looseObject({
    linkId: z.string(),
    linkType: z.enum(['SHORTLINK', 'DEEPLINK']),
    deepLinkAppId: z.nullable(z.string()),
    shortLink: shortLinkSchema,
    domain: z.string(),
    key: z.string(),
    url: z.url(),
    /** Extension: true for a password-protected link, whose `url` is then its `shortLink`. */
    passwordProtected: z.optional(z.boolean()),
  }),
);
const uuid = z.uuid();
const matchType = z.optional(z.nullable(z.enum(['deterministic', 'probabilistic'])));
/** Extension: true only for a deterministic match. */
const matchGuaranteed = z.optional(z.boolean());
export const clientResolveResponseSchema = z.looseObject({ link: clientLinkPayloadSchema, destinationUrl: z.url() });
export const clientClickResponseSchema = z.looseObject({
  clickId: uuid,
  attributionId: uuid,
  sessionId: z.string(),
  installId: z.nullable(z.string()),
  expiresAt: dateTime,
  eligible: z.boolean(),
  deferredDeepLink: clientLinkPayloadSchema,
  destinationUrl: z.url(),
});
export const firstOpenResponseSchema = z.looseObject({
  openId: uuid,
  matched: z.boolean(),
  deferredDeepLink: clientLinkPayloadSchema,
  matchType,
  matchGuaranteed,
});
export const deferredDeepLinkResponseSchema = z.looseObject({
  matched: z.boolean(),
  deferredDeepLink: clientLinkPayloadSchema,
  matchType,
  matchGuaranteed,
});
export const customerEventsResponseSchema = z.looseObject({
  accepted: z.array(
    z.looseObject({
      eventId: z.string(),
      status: z.enum(['queued', 'duplicate', 'rejected']),
      /** `rejected` only: why (an invalid, foreign or expired click token). */
      error: z.optional(
        z.looseObject({
          code: z.string(),
          message: z.string(),
          details: z.optional(z.array(z.looseObject({ path: z.string(), message: z.string() }))),
        }),
      ),
    }),
  ),
});
