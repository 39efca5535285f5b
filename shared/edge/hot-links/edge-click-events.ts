import type { KinesisStreamRecord } from 'aws-lambda';
import { LRUCache } from 'lru-cache';
import { buildClickEvent } from '@shared/clicks/record-click';
import type { EventRecord } from '@shared/events/event-record';
import type { LinkRecord } from '@shared/links/link-record';
import { linkRepository } from '@shared/links/link-repository';
import { toRedirectRecord } from '@shared/links/redirect-record';
import { sha256Hex } from '@shared/util/hash';
import { hotKeyOf } from './edge-answer';
import { hotStoreEntryOf } from './hot-entry';
import {
  isEdgeAnsweredClick,
  parseRealtimeLogLine,
  realtimeLogLines,
  recordTime,
  type RealtimeLogRecord,
} from './realtime-log';
import { servedEntryAt } from './served-history';

/**
 * The click event of an edge-answered redirect, from its real-time log record: the same event
 * the origin records for the same click (shared/edge/click-recording.ts -> `buildClickEvent`):
 * country from `c-country`, device, platform, browser, OS and bot from the full user-agent parser
 * on `cs-user-agent`, the referrer's host from `cs-referer`, the visitor id from `c-ip` and the
 * user agent (visitor-id.ts), the time the edge answered, and the destination of the entry the
 * edge had at that time (served-history.ts).
 *
 * Exactly once: the event id derives from CloudFront's request id (`x-edge-request-id`), so a
 * record delivered again (the stream's at-least-once delivery, a retried batch, a replay) gives
 * an event with the same id, which the pipeline counts once (the lake's readers and the counters'
 * settle drop duplicate ids: docs/event-stream.md).
 */

/** A link read per process for a minute (a hot link's clicks come in every batch). */
const LINK_CACHE_MAX = 5_000;
const LINK_CACHE_TTL_MS = 60_000;
const links = new LRUCache<string, { link: LinkRecord | null }>({ max: LINK_CACHE_MAX, ttl: LINK_CACHE_TTL_MS });

const cachedLink = async (
  cacheKey: string,
  read: () => Promise<LinkRecord | undefined>,
): Promise<LinkRecord | null> => {
  const hit = links.get(cacheKey);
  if (hit) return hit.link;
  const link = (await read()) ?? null;
  links.set(cacheKey, { link });
  return link;
};

/** Forgets the cached links (tests). */
export const clearEdgeClickLinkCache = (): void => {
  links.clear();
};

/**
 * The event id of an edge-answered click: a UUID-shaped SHA-256 of CloudFront's request id (the
 * same record always gives the same id; ids of the origin's events are random UUIDs).
 */
export const edgeClickEventId = (edgeRequestId: string): string => {
  const hex = sha256Hex(`edge-click|${edgeRequestId}`);
  const variant = ((parseInt(hex.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
};

export type EdgeClickSkip = 'not_edge_answered' | 'malformed' | 'unknown_link';

export type EdgeClickConversion = { event: EventRecord } | { skipped: EdgeClickSkip };

/** The link a record names on `host`, and the destination the edge served it with at `at`. */
const servedLinkOf = async (
  host: string,
  uri: string,
  at: Date,
): Promise<{ link: LinkRecord; destination: string | null; host: string; key: string } | null> => {
  const storeKey = hotKeyOf({ method: 'GET', host, uri, userAgent: null });
  if (storeKey === null) return null;
  const name = storeKey.slice(0, storeKey.indexOf('/'));
  const key = storeKey.slice(storeKey.indexOf('/') + 1);
  const served = await servedEntryAt(storeKey, at);
  if (served) {
    const link = await cachedLink(`id:${served.entry.i}`, () => linkRepository.findById(served.entry.i));
    return link ? { link, destination: served.destination, host: name, key } : null;
  }
  // No write remembered (the entry is older than the history's day, or its record failed): the
  // link's entry as it is now, which the writer would have put unchanged.
  const link = await cachedLink(`slug:${storeKey}`, () => linkRepository.findBySlug(name, key));
  if (!link) return null;
  const entry = hotStoreEntryOf(name, key, toRedirectRecord(link), link.updatedAt, at);
  return { link, destination: entry?.destination ?? null, host: name, key };
};

/**
 * One log record's click event, or why there is none: not a redirect the hot-link function
 * answered, a record without request id, time or a link path, or a link that is no longer known
 * (deleted since: nothing to count it on). The host is the viewer's `Host` (`cs-host`); should a
 * record name the distribution there instead, `x-host-header` is tried as well.
 */
export const edgeClickEventOf = async (record: RealtimeLogRecord): Promise<EdgeClickConversion> => {
  if (!isEdgeAnsweredClick(record)) return { skipped: 'not_edge_answered' };
  const at = recordTime(record);
  const requestId = record['x-edge-request-id'];
  // A real-time log's `cs-uri-stem` carries the query string too: the link key is the path.
  const uri = (record['cs-uri-stem'] ?? '').split('?', 1)[0] ?? '';
  const hosts = [record['cs-host'], record['x-host-header']].filter((h): h is string => h !== null);
  const valid = hosts.filter((h) => hotKeyOf({ method: 'GET', host: h, uri, userAgent: null }) !== null);
  if (at === null || requestId === null || valid.length === 0) return { skipped: 'malformed' };
  let found: Awaited<ReturnType<typeof servedLinkOf>> = null;
  for (const host of valid) {
    found = await servedLinkOf(host, uri, at);
    if (found) break;
  }
  if (!found) return { skipped: 'unknown_link' };
  const { link, destination, host, key } = found;

  const recorded = await buildClickEvent({
    link: {
      workspaceId: link.workspaceId,
      linkId: link.id,
      linkType: link.linkType,
      deepLinkAppId: link.deepLinkAppId ?? null,
      domain: host,
      key,
      tracking: link.tracking ?? null,
    },
    userAgent: record['cs-user-agent'],
    ip: record['c-ip']?.toLowerCase() ?? null,
    country: record['c-country'],
    referrer: record['cs-referer'],
    resolvedDestinationUrl: destination,
    responseKind: 'redirect',
    decidedBy: { ruleId: null, variantId: null },
    at,
  });
  return { event: { ...recorded.event, eventId: edgeClickEventId(requestId) } };
};

/** One stream record's data (its log lines) and its id for a batch item failure. */
export interface EdgeClickLogRecord {
  id: string;
  data: string;
}

/** The consumer's view of the log stream's Kinesis records (the Lambda handler and the replay share it). */
export const edgeClickLogRecordsOf = (records: readonly KinesisStreamRecord[]): EdgeClickLogRecord[] =>
  records.map((r) => ({ id: r.kinesis.sequenceNumber, data: Buffer.from(r.kinesis.data, 'base64').toString('utf8') }));

export interface EdgeClickBatchResult {
  events: number;
  skipped: Record<EdgeClickSkip, number>;
  /** Ids of the records that could not be converted or sent (delivered again). */
  failed: string[];
}

/**
 * Converts a batch of stream records and sends their click events through the event sink, in
 * one send. A record whose conversion fails (a table read) is reported failed and delivered again
 * with what follows it: events already sent for those are sent again with the same ids, which
 * the pipeline counts once. When the send fails, every record is.
 */
export const convertEdgeClickLogs = async (
  records: readonly EdgeClickLogRecord[],
  send: (events: EventRecord[]) => Promise<unknown>,
): Promise<EdgeClickBatchResult> => {
  const skipped: Record<EdgeClickSkip, number> = { not_edge_answered: 0, malformed: 0, unknown_link: 0 };
  const failed: string[] = [];
  const events: EventRecord[] = [];
  for (const record of records) {
    try {
      for (const line of realtimeLogLines(record.data)) {
        const parsed = parseRealtimeLogLine(line);
        if (!parsed) {
          skipped.malformed++;
          continue;
        }
        const converted = await edgeClickEventOf(parsed);
        if ('event' in converted) events.push(converted.event);
        else skipped[converted.skipped]++;
      }
    } catch {
      failed.push(record.id);
    }
  }
  if (events.length > 0) {
    try {
      await send(events);
    } catch {
      return { events: 0, skipped, failed: records.map((r) => r.id) };
    }
  }
  return { events: events.length, skipped, failed };
};
