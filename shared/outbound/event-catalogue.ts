import { linkResourceSchema } from '@shared/schemas/resource-schemas';
import * as z from '@shared/schemas/zod-mini';

/**
 * Outbound event types (docs/events.md). `link.clicked` is off by default: a workspace opts in
 * by subscribing a webhook endpoint to it by name.
 */
export const outboundEventTypes = [
  'link.created',
  'link.updated',
  'link.archived',
  'link.restored',
  'link.clicked',
  'attribution.install',
  'attribution.first_open',
  'attribution.deferred_deep_link',
  'customer_event.received',
] as const;
export type OutboundEventType = (typeof outboundEventTypes)[number];

/** What an endpoint gets when `--events` is omitted: everything but the high-volume clicks. */
export const defaultSubscribedTypes: OutboundEventType[] = outboundEventTypes.filter((t) => t !== 'link.clicked');

export const isOutboundEventType = (value: string): value is OutboundEventType =>
  (outboundEventTypes as readonly string[]).includes(value);

const nullableString = z.nullable(z.string());

/** The matched click's link as the client API hands it to the app (ClientLinkPayload). */
const clientLinkSchema = z.nullable(z.looseObject({}));

/** `data` of attribution.install / attribution.first_open / attribution.deferred_deep_link. */
export const attributionEventDataSchema = z.object({
  openId: z.string(),
  eventType: z.enum(['install', 'first_open']),
  installId: nullableString,
  matched: z.boolean(),
  matchType: nullableString,
  linkId: nullableString,
  deepLinkAppId: nullableString,
  domain: nullableString,
  linkKey: nullableString,
  linkType: nullableString,
  clickId: nullableString,
  attributionId: nullableString,
  sessionId: nullableString,
  deviceType: nullableString,
  platform: nullableString,
  browser: nullableString,
  os: nullableString,
  trafficType: z.enum(['human', 'bot']),
  deferredDeepLink: clientLinkSchema,
});
export type AttributionEventData = z.infer<typeof attributionEventDataSchema>;

/** `data` of customer_event.received: the fields POST /v1/client/events recorded. */
export const customerEventDataSchema = z.object({
  eventId: z.string(),
  name: z.string(),
  linkId: nullableString,
  deepLinkAppId: nullableString,
  domain: nullableString,
  linkKey: nullableString,
  linkType: nullableString,
  sessionId: nullableString,
  clickId: nullableString,
  attributionId: nullableString,
  installId: nullableString,
  externalUserId: nullableString,
  properties: z.record(z.string(), z.unknown()),
  deviceType: nullableString,
  platform: nullableString,
  browser: nullableString,
  os: nullableString,
  trafficType: z.enum(['human', 'bot']),
  /** `browser`: sent with a browser's publishable key (anyone can send those); `api` otherwise. */
  source: z.enum(['browser', 'api']),
});
export type CustomerEventData = z.infer<typeof customerEventDataSchema>;

const envelope = <T extends OutboundEventType, D extends z.ZodMiniType>(type: T, data: D) =>
  z.object({
    id: z.string(),
    type: z.literal(type),
    occurredAt: z.string(),
    workspaceId: z.string(),
    data,
  });

/** One JSON Schema per event type; the OpenAPI document lists them as components. */
export const outboundEventSchemas = {
  'link.created': envelope('link.created', linkResourceSchema),
  'link.updated': envelope('link.updated', linkResourceSchema),
  'link.archived': envelope('link.archived', linkResourceSchema),
  'link.restored': envelope('link.restored', linkResourceSchema),
  'link.clicked': envelope('link.clicked', linkResourceSchema),
  'attribution.install': envelope('attribution.install', attributionEventDataSchema),
  'attribution.first_open': envelope('attribution.first_open', attributionEventDataSchema),
  'attribution.deferred_deep_link': envelope('attribution.deferred_deep_link', attributionEventDataSchema),
  'customer_event.received': envelope('customer_event.received', customerEventDataSchema),
} satisfies Record<OutboundEventType, z.ZodMiniType>;

/** Component name of an event's schema: `link.created` -> `LinkCreatedEvent`. */
export const eventComponentName = (type: OutboundEventType) =>
  `${type
    .split(/[._]/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('')}Event`;

/** The envelope every outbound event shares (bus `detail`, webhook body). */
export interface OutboundEvent {
  /** Unique and stable across retries and replays: the webhook-id and the bus entry's id field. */
  id: string;
  type: OutboundEventType;
  occurredAt: string;
  workspaceId: string;
  data: Record<string, unknown>;
}
