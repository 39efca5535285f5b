import type { CloudFrontKeyValueStoreClient } from '@aws-sdk/client-cloudfront-keyvaluestore';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLocalLakeStore } from '@shared/admin/lake-store';
import { type BootstrapResult } from '@shared/admin/bootstrap';
import { buildClickEvent } from '@shared/clicks/record-click';
import { visitorIdFor } from '@shared/clicks/visitor-id';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import {
  clearEdgeClickLinkCache,
  convertEdgeClickLogs,
  edgeClickEventId,
  edgeClickEventOf,
} from '@shared/edge/hot-links/edge-click-events';
import { hotStoreEntryOf } from '@shared/edge/hot-links/hot-entry';
import { createHotSetWriter } from '@shared/edge/hot-links/kvs-writer';
import {
  formatRealtimeLogLine,
  parseRealtimeLogLine,
  REALTIME_LOG_DOCUMENTED_ORDER,
  REALTIME_LOG_FIELDS,
  type RealtimeLogRecord,
} from '@shared/edge/hot-links/realtime-log';
import { clearServedHistoryCache, recordServedEntries } from '@shared/edge/hot-links/served-history';
import type { EventRecord } from '@shared/events/event-record';
import { getEventSink, type EventSink } from '@shared/events/event-sink';
import { replayKeptFailures } from '@shared/events/kept-failures';
import { parseKeptFailure } from '@shared/events/kept-failure-record';
import { linkRepository } from '@shared/links/link-repository';
import { toRedirectRecord } from '@shared/links/redirect-record';
import { type LocalKvs } from '@shared/local/local-kvs-server';
import { startLocalEdgeHotLinks } from '@shared/local/local-edge-hot-links';
import { provideServices } from '@shared/runtime/services';
import { type HotLinksFixture, insertShortLink, startHotLinksFixture } from '@test/support/hot-links';

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

let fixture: HotLinksFixture;
let tenant: BootstrapResult;
let kvs: LocalKvs;
let client: CloudFrontKeyValueStoreClient;

beforeAll(async () => {
  fixture = await startHotLinksFixture();
  ({ tenant, kvs, client } = fixture);
});
afterAll(() => fixture.stop());
beforeEach(() => {
  clearServedHistoryCache();
  clearEdgeClickLinkCache();
});

const newLink = (url: string) => insertShortLink(tenant, url);

const setUrl = (linkId: string, url: string) =>
  getDocumentClient().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.link(linkId),
      UpdateExpression: 'SET #u = :u, updatedAt = :t',
      ExpressionAttributeNames: { '#u': 'url' },
      ExpressionAttributeValues: { ':u': url, ':t': new Date().toISOString() },
    }),
  );

let requestCounter = 0;
/** A log line as CloudFront writes it for a response the hot-link function generated. */
const edgeLine = (over: Partial<RealtimeLogRecord> & { host: string; key: string; at: Date }): string => {
  const { host, key, at, ...fields } = over;
  return formatRealtimeLogLine({
    timestamp: (at.getTime() / 1000).toFixed(3),
    'c-ip': '203.0.113.9',
    'cs-method': 'GET',
    'cs-host': host,
    'x-host-header': 'd111111abcdef8.cloudfront.net',
    'cs-uri-stem': `/${key}`,
    'cs-uri-query': null,
    'cs-user-agent': CHROME,
    'cs-referer': 'https://news.example.org/story?id=1',
    'c-country': 'de',
    'x-edge-request-id': `req-${String(++requestCounter)}-${'x'.repeat(40)}==`,
    'x-edge-result-type': 'FunctionGeneratedResponse',
    'x-edge-detailed-result-type': 'FunctionGeneratedResponse',
    'sc-status': '302',
    'cache-behavior-path-pattern': '*',
    ...fields,
  });
};

describe('CloudFront real-time log lines', () => {
  it('keeps the chosen fields in the order the guide lists them (the order records carry them in)', () => {
    const positions = REALTIME_LOG_FIELDS.map((field) => REALTIME_LOG_DOCUMENTED_ORDER.indexOf(field));
    expect(positions.every((position) => position >= 0)).toBe(true);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
  });

  it('parses the fields in the documented order: `-` is empty, the user agent and referrer are URL-decoded', () => {
    // A line in the documented shape: tab-separated values in the guide's order; the path
    // (`cs-uri-stem`) carries the query string, as real-time logs record it.
    const line = [
      '1700000000.123',
      '2001:DB8::1',
      '302',
      'GET',
      'go.example.com',
      '/abc?utm_source=news',
      'hR0ffvTWA6Y2KoW4Ye8lA2KT1z9QybwaGiLkK3Q6lm0bWWR47E5KaA==',
      'd111111abcdef8.cloudfront.net',
      'Mozilla/5.0%20(Windows%20NT%2010.0;%20Win64;%20x64)%20Bot+1',
      'https%3A%2F%2Fnews.example.org%2F',
      'utm_source=news',
      'FunctionGeneratedResponse',
      'FunctionGeneratedResponse',
      'DE',
      '*',
    ].join('\t');
    expect(line.split('\t')).toHaveLength(REALTIME_LOG_FIELDS.length);
    const record = parseRealtimeLogLine(`${line}\n`);
    expect(record).toMatchObject({
      timestamp: '1700000000.123',
      'c-ip': '2001:DB8::1',
      'sc-status': '302',
      'cs-host': 'go.example.com',
      'cs-uri-stem': '/abc?utm_source=news',
      'cs-uri-query': 'utm_source=news',
      'c-country': 'DE',
      'cs-user-agent': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) Bot+1',
      'cs-referer': 'https://news.example.org/',
      'x-edge-result-type': 'FunctionGeneratedResponse',
    });
    expect(parseRealtimeLogLine('1700000000.123\t1.2.3.4')).toBeNull();
    // The local edge's lines read back as written.
    const written = { ...record!, 'cs-user-agent': `${CHROME} tab\tand+plus` };
    expect(parseRealtimeLogLine(formatRealtimeLogLine(written))).toEqual({
      ...written,
      'cs-user-agent': `${CHROME} tab\tand+plus`,
    });
  });
});

describe('edge-answered clicks from real-time logs (DynamoDB Local, loopback KeyValueStore)', () => {
  it('builds the origin’s click event, with the destination the store had at the request’s time', async () => {
    const link = await newLink('https://example.com/before?x=ü');
    const host = link.domain.toLowerCase();
    const t0 = new Date(Date.now() - 60_000);
    const t1 = new Date(t0.getTime() + 30_000);
    let clock = t0;
    const writer = createHotSetWriter(client, kvs.arn, { recordServed: recordServedEntries, now: () => clock });
    const entryOf = async () => {
      const record = toRedirectRecord((await linkRepository.findById(link.id, true))!);
      return hotStoreEntryOf(host, link.key, record, new Date().toISOString(), clock)!;
    };
    await writer.apply({ puts: [await entryOf()], deletes: [] });
    await setUrl(link.id, 'https://example.com/after');
    clock = t1;
    await writer.apply({ puts: [await entryOf()], deletes: [] });

    const before = parseRealtimeLogLine(edgeLine({ host, key: link.key, at: new Date(t1.getTime() - 1) }))!;
    const at = parseRealtimeLogLine(edgeLine({ host, key: link.key, at: t1 }))!;
    const converted = await edgeClickEventOf(before);
    expect('event' in converted).toBe(true);
    const event = (converted as { event: EventRecord }).event;
    expect(event.resolvedDestinationUrl).toBe('https://example.com/before?x=ü');
    expect(((await edgeClickEventOf(at)) as { event: EventRecord }).event.resolvedDestinationUrl).toBe(
      'https://example.com/after',
    );

    // The same event the origin builds for the same request (but for its random id).
    const origin = await buildClickEvent({
      link: { ...toRedirectRecord(link), domain: host, key: link.key },
      userAgent: CHROME,
      ip: '203.0.113.9',
      country: 'de',
      referrer: 'https://news.example.org/story?id=1',
      resolvedDestinationUrl: 'https://example.com/before?x=ü',
      responseKind: 'redirect',
      decidedBy: { ruleId: null, variantId: null },
      at: new Date(t1.getTime() - 1),
    });
    expect(event).toEqual({ ...origin.event, eventId: edgeClickEventId(before['x-edge-request-id']!) });
    expect(event).toMatchObject({
      eventType: 'click',
      trafficType: 'human',
      country: 'DE',
      deviceType: 'desktop',
      referrerHost: 'news.example.org',
      linkId: link.id,
      workspaceId: tenant.workspaceId,
      visitorId: await visitorIdFor('203.0.113.9', CHROME, new Date(t1.getTime() - 1)),
    });
    // The same record again: the same event id.
    expect(((await edgeClickEventOf(before)) as { event: EventRecord }).event.eventId).toBe(event.eventId);
    // A request with a query string: its path in the log carries it, the link is found all the same.
    const withQuery = parseRealtimeLogLine(
      edgeLine({
        host,
        key: link.key,
        at: t1,
        'cs-uri-stem': `/${link.key}?utm_source=news`,
        'cs-uri-query': 'utm_source=news',
      }),
    )!;
    expect(((await edgeClickEventOf(withQuery)) as { event: EventRecord }).event).toMatchObject({
      linkId: link.id,
      resolvedDestinationUrl: 'https://example.com/after',
    });
  });

  it('converts only responses the function generated; a record without history uses the link as it is', async () => {
    const link = await newLink('https://example.com/plain');
    const host = link.domain.toLowerCase();
    const now = new Date();
    const skipped = async (over: Partial<RealtimeLogRecord>) =>
      edgeClickEventOf(parseRealtimeLogLine(edgeLine({ host, key: link.key, at: now, ...over }))!);
    expect(await skipped({ 'x-edge-result-type': 'Miss', 'x-edge-detailed-result-type': 'Miss' })).toEqual({
      skipped: 'not_edge_answered',
    });
    expect(await skipped({ 'sc-status': '403' })).toEqual({ skipped: 'not_edge_answered' });
    expect(await skipped({ 'cache-behavior-path-pattern': '/.well-known/*' })).toEqual({
      skipped: 'not_edge_answered',
    });
    expect(await skipped({ 'x-edge-request-id': null })).toEqual({ skipped: 'malformed' });
    expect(await skipped({ 'cs-host': 'unknown.example.net' })).toEqual({ skipped: 'unknown_link' });
    // A record naming the distribution in cs-host and the viewer's host in x-host-header still counts.
    const swapped = (await skipped({ 'cs-host': 'd111111abcdef8.cloudfront.net', 'x-host-header': host })) as {
      event: EventRecord;
    };
    expect(swapped.event).toMatchObject({ linkId: link.id, domain: host });
    // Never written through the recording writer: resolved from the link's current entry.
    const fallback = (await skipped({})) as { event: EventRecord };
    expect(fallback.event.resolvedDestinationUrl).toBe('https://example.com/plain');
  });

  it('sends a batch in one send; a failed send fails every record for redelivery', async () => {
    const link = await newLink('https://example.com/batch');
    const host = link.domain.toLowerCase();
    const now = new Date();
    const records = [
      { id: '1', data: `${edgeLine({ host, key: link.key, at: now })}\n` },
      { id: '2', data: `${edgeLine({ host, key: link.key, at: now, 'sc-status': '200' })}\n` },
      { id: '3', data: 'garbage\n' },
    ];
    const sent: EventRecord[][] = [];
    const result = await convertEdgeClickLogs(records, (events) => {
      sent.push(events);
      return Promise.resolve();
    });
    expect(result).toEqual({
      events: 1,
      skipped: { not_edge_answered: 1, malformed: 1, unknown_link: 0 },
      failed: [],
    });
    expect(sent).toHaveLength(1);
    const failing = await convertEdgeClickLogs(records, () => Promise.reject(new Error('stream down')));
    expect(failing.failed).toEqual(['1', '2', '3']);
  });
});

describe('the local click-log stream keeps what its consumer gives up on', () => {
  it('keeps the failing records whole in the failures folder; the replay sends their clicks once', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'edge-log-failures-'));
    const link = await newLink('https://example.com/kept-locally');
    const hotLinks = await startLocalEdgeHotLinks({ failuresDir: dir, clickLogAttempts: 2 });
    const real = getEventSink();
    const sent: EventRecord[] = [];
    try {
      const failing: EventSink = { send: () => Promise.reject(new Error('event stream down')) };
      provideServices({ eventSink: failing });
      const lines = [1, 2].map(() => edgeLine({ host: link.domain, key: link.key, at: new Date() }));
      hotLinks.redeliver(lines);
      await hotLinks.drained();
      const store = createLocalLakeStore(dir);
      const kept: string[] = [];
      for await (const key of store.list('')) kept.push(key);
      // The stand-in's batches: whatever arrived while the previous one ran (here one record each).
      const failures = await Promise.all(kept.map(async (key) => parseKeptFailure(await store.getText(key))));
      expect(failures.map((f) => f.kind)).toEqual(kept.map(() => 'edge-click-logs'));
      expect(failures.reduce((n, f) => n + f.batch.batchSize, 0)).toBe(2);

      provideServices({
        eventSink: {
          send: async (events) => {
            sent.push(...events);
            await real.send(events);
          },
        },
      });
      expect(await replayKeptFailures({ store })).toMatchObject({
        objects: kept.length,
        replayed: kept.length,
        records: 2,
        edgeClicks: 2,
      });
      expect(sent.map((e) => e.linkId)).toEqual([link.id, link.id]);
      expect(new Set(sent.map((e) => e.eventId)).size).toBe(2);
      expect(await replayKeptFailures({ store })).toMatchObject({ objects: 0 });
    } finally {
      provideServices({ eventSink: real });
      await hotLinks.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
