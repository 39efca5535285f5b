import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { KinesisStreamRecord } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLocalLakeStore } from '@shared/admin/lake-store';
import { compactLakeAndSettle } from '@shared/analytics/lake/compaction-schedule';
import { convertEdgeClickLogs, edgeClickEventId } from '@shared/edge/hot-links/edge-click-events';
import { FUNCTION_GENERATED_RESPONSE, formatRealtimeLogLine } from '@shared/edge/hot-links/realtime-log';
import { getEventSink } from '@shared/events/event-sink';
import { keptKinesisFailure, parseKeptFailure } from '@shared/events/kept-failure-record';
import { localStreamFailuresDir } from '@shared/events/local-event-stream';
import { linkRepository } from '@shared/links/link-repository';
import { recordErasure } from '@shared/tenancy/erased-workspaces';
import { runAdminJson } from '@test/support/admin-cli';
import { http } from '@test/support/http-client';
import { readLake } from '@test/support/lake-reader';
import { startTestStack, type TestStack } from '@test/support/test-stack';

/**
 * A batch of CloudFront real-time log lines the edge click-log consumer gave up on (its records
 * 20 h old), kept whole by the mapping's S3 on-failure destination, replayed with `admin
 * replay-stream-failures`: the lines go through the consumer's conversion to click events on the
 * event stream, whose ids come from CloudFront's request ids. Two of the lines were converted
 * before the batch failed (a partial success), and the kept batch is replayed twice: each click
 * is still counted once (analytics, the raw export, the settled counter). A line of a workspace
 * erased since is dropped by its tombstone.
 */
let t: TestStack;

beforeAll(async () => {
  t = await startTestStack();
  return () => t.stop();
});

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

let requests = 0;
/** A log line of a redirect the hot-link function answered, `hoursAgo` before now. */
const edgeLine = (host: string, key: string, hoursAgo: number) => {
  const requestId = `kept-${String(++requests)}-${'k'.repeat(44)}==`;
  return {
    requestId,
    line: formatRealtimeLogLine({
      timestamp: ((Date.now() - hoursAgo * 3_600_000) / 1000).toFixed(3),
      'c-ip': `198.51.100.${String(requests)}`,
      'cs-method': 'GET',
      'cs-host': host,
      'x-host-header': 'd111111abcdef8.cloudfront.net',
      'cs-uri-stem': `/${key}?utm_source=kept`,
      'cs-uri-query': 'utm_source=kept',
      'cs-user-agent': CHROME,
      'cs-referer': 'https://news.example.org/',
      'c-country': 'DE',
      'x-edge-request-id': requestId,
      'x-edge-result-type': FUNCTION_GENERATED_RESPONSE,
      'x-edge-detailed-result-type': FUNCTION_GENERATED_RESPONSE,
      'sc-status': '302',
      'cache-behavior-path-pattern': '*',
    }),
  };
};

/** A log line as the log stream hands it to Lambda (one line per Kinesis record, as CloudFront puts them). */
const logRecord = (line: string, sequence: number): KinesisStreamRecord => ({
  eventSource: 'aws:kinesis',
  eventID: `shardId-000000000000:${String(sequence)}`,
  eventName: 'aws:kinesis:record',
  eventVersion: '1.0',
  invokeIdentityArn: 'arn:aws:iam::111111111111:role/edge-click-logs',
  awsRegion: 'us-east-1',
  eventSourceARN: 'arn:aws:kinesis:us-east-1:111111111111:stream/edge-click-logs',
  kinesis: {
    kinesisSchemaVersion: '1.0',
    partitionKey: String(sequence),
    sequenceNumber: String(sequence),
    data: Buffer.from(`${line}\n`).toString('base64'),
    approximateArrivalTimestamp: Date.now() / 1000 - 21 * 3600,
  },
});

describe('edge click-log batches kept as failures, replayed', () => {
  it('converts the kept log lines to clicks counted once, after a partial success and replayed twice', async () => {
    const newLink = async (tenant: TestStack['tenantA'], url: string) =>
      (
        await http(t.baseUrl, 'POST', '/v1/links', {
          headers: { 'api-key': tenant.serverKey },
          json: { url, domain: tenant.domain },
        })
      ).body.data as { id: string; key: string; domain: string };
    const link = await newLink(t.tenantA, 'https://example.com/kept-clicks');
    const erasedLink = await newLink(t.tenantB, 'https://example.com/erased-since');

    const N = 5;
    const clicks = Array.from({ length: N }, (_, i) => edgeLine(link.domain, link.key, 21 - i * 0.1));
    const ofErased = edgeLine(erasedLink.domain, erasedLink.key, 21);
    const records = [...clicks, ofErased].map((c, i) => logRecord(c.line, 1_000 + i));

    // Before the batch failed for good, the consumer had converted and sent its first two lines.
    await convertEdgeClickLogs(
      records
        .slice(0, 2)
        .map((r) => ({ id: r.kinesis.sequenceNumber, data: Buffer.from(r.kinesis.data, 'base64').toString() })),
      (events) => getEventSink().send(events),
    );
    await t.idle();

    // At 20 h the mapping gave the batch up: Lambda wrote the whole invocation record to the bucket.
    const failuresDir = localStreamFailuresDir(process.env.LOCAL_LAKE_DIR!);
    const store = createLocalLakeStore(failuresDir);
    const key = 'aws/lambda/edge-click-logs/shardId-000000000000/kept.json';
    const doc = keptKinesisFailure(records, records[0]!.eventSourceARN, 'RecordAgeExceeded', new Date());
    await store.putText(key, JSON.stringify(doc));
    expect(parseKeptFailure(await store.getText(key)).kind).toBe('edge-click-logs');
    // A copy stands for the same batch replayed a second time.
    await mkdir(path.join(failuresDir, 'copy'), { recursive: true });
    await copyFile(path.join(failuresDir, ...key.split('/')), path.join(failuresDir, 'copy', 'again.json'));

    // Tenant B is erased since (its tombstone): its line is converted, then dropped.
    await recordErasure(t.tenantB.workspaceId);

    const first = await runAdminJson(['replay-stream-failures', '--dir', failuresDir, '--prefix', 'aws/']);
    expect(first).toMatchObject({
      objects: 1,
      replayed: 1,
      records: N + 1,
      edgeClicks: N,
      recordsDropped: 1,
      failed: 0,
    });
    const second = await runAdminJson(['replay-stream-failures', '--dir', failuresDir]);
    expect(second).toMatchObject({ objects: 1, replayed: 1, edgeClicks: N, recordsDropped: 1, failed: 0 });
    // Replayed objects are removed.
    expect(await runAdminJson(['replay-stream-failures', '--dir', failuresDir])).toMatchObject({ objects: 0 });
    await t.idle();

    // The lake holds every copy (2 + N + N), under the ids CloudFront's request ids give: N clicks.
    const clickLines = () =>
      readLake()
        .map((l) => l.line)
        .filter((e) => e.eventType === 'click' && e.linkId === link.id);
    expect(clickLines()).toHaveLength(2 + 2 * N);
    expect(new Set(clickLines().map((e) => e.eventId))).toEqual(
      new Set(clicks.map((c) => edgeClickEventId(c.requestId))),
    );
    expect(
      clickLines().every((e) => e.country === 'DE' && e.resolvedDestinationUrl === 'https://example.com/kept-clicks'),
    ).toBe(true);
    // Nothing of the erased workspace reached the lake.
    expect(readLake().filter((l) => l.line.linkId === erasedLink.id)).toEqual([]);

    const server = { 'api-key': t.tenantA.serverKey };
    const analytics = await http(t.baseUrl, 'GET', `/v1/analytics/links/${link.id}?range=24h&traffic=all`, {
      headers: server,
    });
    expect(analytics.status).toBe(200);
    expect(analytics.body.data.summary.totalClicks).toBe(N);
    const exported = await http(t.baseUrl, 'GET', '/v1/analytics/events?range=24h&eventType=click&limit=100', {
      headers: server,
    });
    expect((exported.body.data as Array<{ linkId?: string }>).filter((e) => e.linkId === link.id)).toHaveLength(N);

    // The copies are counted live; the compaction that closes their hours settles the counter to N.
    expect((await linkRepository.findById(link.id, true))?.clicks).toBeGreaterThanOrEqual(N);
    await compactLakeAndSettle(process.env.LOCAL_LAKE_DIR!, { now: new Date(Date.now() + 2 * 3_600_000) });
    expect(await linkRepository.findById(link.id, true)).toMatchObject({ clicks: N, botClicks: 0 });
  }, 180_000);
});
