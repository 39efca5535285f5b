import * as z from 'zod';
import { eventTypes, type EventRecord } from './event-record';

const s = z.string().nullable();

/**
 * One stored event: the fields of RawAnalyticsEvent plus tenant, link and app ids,
 * a unique `eventId` (consumers drop duplicates by it) and what analytics breaks down by. This
 * is the line format of the lake (JSON per line) and the schema of the Glue table. Kept for
 * tests and the Glue columns; the runtime builds events from the plain type in event-record.ts.
 */
export const eventRecordSchema = z.object({
  eventId: z.string(),
  timestamp: z.string(),
  eventType: z.enum(eventTypes),
  workspaceId: z.string(),
  linkId: s,
  deepLinkAppId: s,
  domain: s,
  linkKey: s,
  linkType: s,
  trafficType: z.enum(['human', 'bot']),
  /** Salted hash of IP + user agent, salt rotated daily: unique visitors without raw IPs. */
  visitorId: s,
  country: s,
  deviceType: s,
  platform: s,
  browser: s,
  os: s,
  referrerHost: s,
  resolvedDestinationUrl: s,
  /** How the edge answered: redirect, launch_view, preview, password, expired, not_found; `api` for client calls. */
  responseKind: s,
  sdkEventName: s,
  sessionId: s,
  clickId: s,
  attributionId: s,
  installId: s,
  utmSource: s,
  utmMedium: s,
  utmCampaign: s,
  /** Customer event properties, JSON text. */
  properties: s,
  /** The link's redirect rule that decided a click (null: none). */
  ruleId: s,
  /** The link's A/B-test variant that decided a click (null: none). */
  variantId: s,
});

/** Compile-time check: the schema and the plain `EventRecord` type describe the same line. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _schemaMatchesRecord: Same<z.infer<typeof eventRecordSchema>, EventRecord> = true;
