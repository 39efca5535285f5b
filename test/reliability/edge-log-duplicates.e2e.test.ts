import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, beforeAll } from 'vitest';
import { compactLakeAndSettle } from '@shared/analytics/lake/compaction-schedule';
import { clickHourOf, liveHumans } from '@shared/clicks/link-counters';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { linkRepository } from '@shared/links/link-repository';
import { edgeRequest } from '@test/support/edge-client';
import { http } from '@test/support/http-client';
import { readLake } from '@test/support/lake-reader';
import { startTestStack, type TestStack } from '@test/support/test-stack';
import { linkClickCounts } from '@test/support/analytics-assertions';

/**
 * The duplicate storm for log-sourced clicks: the clicks the hot-link function answers at the
 * local edge reach the pipeline as real-time log records, which the log stream delivers at least
 * once. The same records delivered again, in other batches and in shuffled order (a retried
 * batch, a replay from the trim horizon), give events with the same ids (from CloudFront's
 * request id): analytics and the raw export count each click once, and the link's counters settle
 * to the distinct count, as for the origin's clicks.
 */
let t: TestStack;

beforeAll(async () => {
  t = await startTestStack({ edgeHotLinks: true });
  return () => t.stop();
});

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

/** A fixed shuffle (no randomness in the test): reversed, then every other one first. */
const shuffled = <T>(items: readonly T[]): T[] => {
  const reversed = [...items].reverse();
  return [...reversed.filter((_, i) => i % 2 === 0), ...reversed.filter((_, i) => i % 2 === 1)];
};

describe('duplicate storm: log-sourced clicks delivered again', () => {
  it('analytics, the raw export and the settled counters count each edge-answered click once', async () => {
    const server = { 'api-key': t.tenantA.serverKey };
    const link = (
      await http(t.baseUrl, 'POST', '/v1/links', {
        headers: server,
        json: { url: 'https://example.com/log-storm', domain: t.tenantA.domain },
      })
    ).body.data as { id: string; key: string; domain: string };
    const setLiveHumans = (n: number) =>
      getDocumentClient().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.link(link.id),
          UpdateExpression: 'SET #h = :n',
          ExpressionAttributeNames: { '#h': liveHumans(clickHourOf(new Date().toISOString())) },
          ExpressionAttributeValues: { ':n': n },
        }),
      );
    // Hot for the refresh (its live human clicks of the hour), then back to the link's own count,
    // which the settle replaces by the hour's distinct clicks.
    await setLiveHumans(5_000);
    const hotLinks = t.stack.hotLinks!;
    expect(await hotLinks.refreshHotSet([link.id])).toMatchObject({ hot: 1 });
    await setLiveHumans(0);

    const N = 6;
    for (let i = 0; i < N; i++) {
      const res = await edgeRequest(t.edgeUrl, {
        host: link.domain,
        path: `/${link.key}`,
        headers: { 'user-agent': CHROME, 'cloudfront-viewer-address': `198.51.100.${String(i)}:443` },
      });
      expect(res.status).toBe(302);
    }
    await t.idle();
    const lines = [...hotLinks.logLines()];
    expect(lines).toHaveLength(N);

    // The stream delivers every record again: once more in shuffled batches, once more whole.
    const again = shuffled(lines);
    hotLinks.redeliver(again.slice(0, 2));
    await t.idle();
    hotLinks.redeliver(again.slice(2));
    await t.idle();
    hotLinks.redeliver(lines);
    await t.idle();

    const clickLines = () =>
      readLake()
        .map((l) => l.line)
        .filter((e) => e.eventType === 'click' && e.linkId === link.id);
    expect(clickLines()).toHaveLength(3 * N);
    expect(new Set(clickLines().map((e) => e.eventId)).size).toBe(N);
    // Six viewers (addresses): six visitor ids, each click's event identical in every copy.
    expect(new Set(clickLines().map((e) => e.visitorId)).size).toBe(N);
    for (const id of new Set(clickLines().map((e) => e.eventId))) {
      const copies = clickLines().filter((e) => e.eventId === id);
      expect(copies.every((c) => JSON.stringify(c) === JSON.stringify(copies[0]))).toBe(true);
    }

    const { total: analytics, exported } = linkClickCounts(t.baseUrl, server, link.id);
    expect(await analytics('24h')).toBe(N);
    expect(await analytics('7d')).toBe(N);
    expect(await exported()).toHaveLength(N);

    // Live, a click delivered again in another batch may count again; the compaction that closes
    // the clicks' hour settles the counters to the distinct count, and a later replay changes nothing.
    expect((await linkRepository.findById(link.id, true))?.clicks).toBeGreaterThanOrEqual(N);
    const later = { now: new Date(Date.now() + 2 * 3_600_000) };
    await compactLakeAndSettle(process.env.LOCAL_LAKE_DIR!, later);
    expect(await linkRepository.findById(link.id, true)).toMatchObject({ clicks: N, botClicks: 0 });
    hotLinks.redeliver(shuffled(lines));
    await t.idle();
    await compactLakeAndSettle(process.env.LOCAL_LAKE_DIR!, later);
    expect((await linkRepository.findById(link.id, true))?.clicks).toBe(N);
    expect(await analytics('24h')).toBe(N);
    expect(await exported()).toHaveLength(N);
  }, 120_000);
});
