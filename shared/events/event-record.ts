/** The event types the service records, and nothing else. */
export const eventTypes = [
  'click',
  'launch_view_impression',
  'launch_view_auto_open_attempt',
  'launch_view_primary_click',
  'launch_view_secondary_click',
  'install',
  'first_open',
  'customer_event',
] as const;
export type EventType = (typeof eventTypes)[number];

/**
 * One stored event: the fields of RawAnalyticsEvent plus tenant, link and app ids,
 * a unique `eventId` (consumers drop duplicates by it) and what analytics breaks down by. This
 * is the line format of the lake (JSON per line) and the schema of the Glue table
 * (`eventRecordSchema` in event-record-schema.ts validates it in tests). Plain types, no zod:
 * the redirect and click paths build events and must stay small (docs/benchmarks.md).
 */
export interface EventRecord {
  eventId: string;
  timestamp: string;
  eventType: EventType;
  workspaceId: string;
  linkId: string | null;
  deepLinkAppId: string | null;
  domain: string | null;
  linkKey: string | null;
  linkType: string | null;
  trafficType: 'human' | 'bot';
  /** Salted hash of IP + user agent, salt rotated daily: unique visitors without raw IPs. */
  visitorId: string | null;
  country: string | null;
  deviceType: string | null;
  platform: string | null;
  browser: string | null;
  os: string | null;
  referrerHost: string | null;
  resolvedDestinationUrl: string | null;
  /** How the edge answered: redirect, launch_view, preview, password, expired, not_found; `api` for client calls (`browser` with a browser's publishable key). */
  responseKind: string | null;
  sdkEventName: string | null;
  sessionId: string | null;
  clickId: string | null;
  attributionId: string | null;
  installId: string | null;
  utmSource: string | null;
  utmMedium: string | null;
  utmCampaign: string | null;
  /** Customer event properties, JSON text. */
  properties: string | null;
  /** The link's redirect rule that decided a click (null: none). */
  ruleId: string | null;
  /** The link's A/B-test variant that decided a click (null: none). */
  variantId: string | null;
}

/** Every field of an event line, in column order (the DuckDB read columns, the Glue columns). */
export const eventRecordFields = [
  'eventId',
  'timestamp',
  'eventType',
  'workspaceId',
  'linkId',
  'deepLinkAppId',
  'domain',
  'linkKey',
  'linkType',
  'trafficType',
  'visitorId',
  'country',
  'deviceType',
  'platform',
  'browser',
  'os',
  'referrerHost',
  'resolvedDestinationUrl',
  'responseKind',
  'sdkEventName',
  'sessionId',
  'clickId',
  'attributionId',
  'installId',
  'utmSource',
  'utmMedium',
  'utmCampaign',
  'properties',
  'ruleId',
  'variantId',
] as const satisfies ReadonlyArray<keyof EventRecord>;

/** An event with every optional field null: builders fill in what they know. */
export const blankEvent = (
  required: Pick<EventRecord, 'eventId' | 'timestamp' | 'eventType' | 'workspaceId' | 'trafficType'>,
): EventRecord => ({
  linkId: null,
  deepLinkAppId: null,
  domain: null,
  linkKey: null,
  linkType: null,
  visitorId: null,
  country: null,
  deviceType: null,
  platform: null,
  browser: null,
  os: null,
  referrerHost: null,
  resolvedDestinationUrl: null,
  responseKind: null,
  sdkEventName: null,
  sessionId: null,
  clickId: null,
  attributionId: null,
  installId: null,
  utmSource: null,
  utmMedium: null,
  utmCampaign: null,
  properties: null,
  ruleId: null,
  variantId: null,
  ...required,
});
