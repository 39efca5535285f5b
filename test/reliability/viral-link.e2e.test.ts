import { writeTestArtifact } from '@test/support/test-artifacts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getEventSink } from '@shared/events/event-sink';
import type { LocalEventStream } from '@shared/events/local-event-stream';
import { linkRepository } from '@shared/links/link-repository';
import { startDynamoFaultProxy, type DynamoFaultProxy } from '@test/support/dynamodb-fault-proxy';
import { edgeRequest } from '@test/support/edge-client';
import { http } from '@test/support/http-client';
import { startTestStack, type TestStack } from '@test/support/test-stack';
import { IPHONE_UA } from './route-cases';

const SLACKBOT = 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)';
/** DynamoDB's per-partition-key limits at 1/20 scale: 50 write and 150 read units a second per key. */
const PER_KEY_LIMITS = { writeUnitsPerSecond: 50, readUnitsPerSecond: 150 };

let t: TestStack;
let proxy: DynamoFaultProxy;
const figures: Record<string, unknown> = { perKeyLimits: PER_KEY_LIMITS };

/**
 * A viral link: every handler and the click counter consumer talk to DynamoDB Local through the
 * proxy that enforces DynamoDB's per-key throughput limits (scaled down), answering throttles as
 * DynamoDB does. 1,000 concurrent clicks on one link are 20 times the scaled per-item write limit:
 * the old path (one UpdateItem of the link per click) could not count them all; this one must.
 */
beforeAll(async () => {
  proxy = await startDynamoFaultProxy(process.env.DYNAMODB_ENDPOINT!, { perKeyLimits: PER_KEY_LIMITS });
  process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
  return () => proxy.stop();
});
beforeAll(async () => {
  t = await startTestStack();
  return () => t.stop();
});
afterAll(() => {
  writeTestArtifact('viral-link-report.json', figures);
});

const countBy = (values: Array<number | string>) =>
  values.reduce<Record<string, number>>((m, v) => ({ ...m, [v]: (m[v] ?? 0) + 1 }), {});

describe('a viral link under DynamoDB per-key limits (1/20 scale)', () => {
  it('1,000 concurrent clicks: every visitor answered, counters and analytics exact, a re-delivered stream counted once', async () => {
    const server = { 'api-key': t.tenantA.serverKey };
    const created = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: server,
      json: { url: 'https://example.com/viral', domain: t.tenantA.domain },
    });
    expect(created.status).toBe(201);
    const { id, key } = created.body.data;
    const before = { ...proxy.counts };

    const statuses = await Promise.all(
      Array.from({ length: 1000 }, (_, i) =>
        edgeRequest(t.edgeUrl, {
          host: t.tenantA.domain,
          path: `/${key}`,
          headers: { 'user-agent': i % 10 === 9 ? SLACKBOT : IPHONE_UA },
        }).then((r) => r.status),
      ),
    );
    await t.idle(); // the edge records its clicks after answering
    figures.statuses = countBy(statuses);
    figures.throttles = {
      reads: proxy.counts.readThrottles - before.readThrottles,
      writes: proxy.counts.writeThrottles - before.writeThrottles,
    };
    figures.dynamodbCalls = proxy.counts.calls - before.calls;
    // Humans are redirected; link-preview bots get the preview page (and count as bot clicks).
    expect(countBy(statuses)).toEqual({ 302: 900, 200: 100 });

    const link = await linkRepository.findById(id, true);
    expect({ clicks: link?.clicks, botClicks: link?.botClicks }).toEqual({ clicks: 900, botClicks: 100 });
    const analytics = await http(t.baseUrl, 'GET', `/v1/analytics/links/${id}?range=24h&traffic=all`, {
      headers: server,
    });
    expect(analytics.status).toBe(200);
    expect(analytics.body.data.summary).toMatchObject({ totalClicks: 1000, humanClicks: 900, botClicks: 100 });

    // An operator's replay (the consumer moved back to the trim horizon): every retained record
    // is delivered again, and nothing is counted twice.
    const redelivered = await (getEventSink() as LocalEventStream).redeliverRetained();
    figures.redeliveredRecords = redelivered;
    expect(redelivered).toBeGreaterThanOrEqual(1000);
    const after = await linkRepository.findById(id, true);
    expect({ clicks: after?.clicks, botClicks: after?.botClicks }).toEqual({ clicks: 900, botClicks: 100 });
  }, 180_000);
});
