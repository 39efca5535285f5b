import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapTenant, type BootstrapResult } from '@shared/admin/bootstrap';
import { createLocalLakeStore } from '@shared/admin/lake-store';
import { compactLakeOnAthena } from '@shared/analytics/lake/athena-compaction';
import { applyClickCounters, type CounterStreamRecord } from '@shared/clicks/link-counters';
import { settleClickCountersOnAthena } from '@shared/clicks/settle-click-counters';
import { blankEvent, type EventRecord } from '@shared/events/event-record';
import { createLocalLakeSink } from '@shared/events/local-lake-sink';
import { insertLink } from '@shared/links/create-link';
import { linkRepository } from '@shared/links/link-repository';
import { domainRepository } from '@shared/tenancy/domain-repository';
import { duckDbAthena } from '@test/support/duckdb-athena';
import { TEST_ORIGIN } from '@test/support/test-origin';

/**
 * The settle after the deployed compaction: the exact SQL the Athena path sends, executed on
 * DuckDB over a local lake laid out like the bucket (test/support/duckdb-athena.ts), and the
 * link counters in DynamoDB Local. Clicks counted twice by the consumer (copies in different
 * batches) and lines Firehose wrote twice end up counted once.
 */
const BUCKET = 'linkservice-lake';
const NOW = new Date('2026-11-26T12:00:00.000Z');
const lakeDir = mkdtempSync(path.join(os.tmpdir(), 'settle-lake-'));
afterAll(() => {
  rmSync(lakeDir, { recursive: true, force: true });
});
/** Stream records of one shard, with rising sequence numbers, as the consumer receives them. */
const shardBatches = (shardId: string) => {
  let sequence = 0n;
  return (events: EventRecord[]): CounterStreamRecord[] =>
    events.map((event) => ({ shardId, sequenceNumber: String((sequence += 1n)), data: JSON.stringify(event) }));
};
let tenant: BootstrapResult;
beforeAll(async () => {
  tenant = await bootstrapTenant({ baseUrl: 'http://unused', edgeUrl: 'http://unused' });
});

describe('settling the click counters after the deployed compaction (Athena SQL on DuckDB)', () => {
  it('replaces the live counts of the compacted hours by the distinct count, per link', async () => {
    const domain = (await domainRepository.findById(tenant.workspaceId, tenant.domainId))!;
    const newLink = () =>
      insertLink(
        { workspaceId: tenant.workspaceId, linkType: 'SHORTLINK', domain, deepLinkAppId: null, url: 'https://e.com' },
        {},
        TEST_ORIGIN,
      );
    const [a, b] = [await newLink(), await newLink()];
    const click = (linkId: string, eventId: string, timestamp: string, bot = false): EventRecord => ({
      ...blankEvent({
        eventId,
        timestamp,
        eventType: 'click',
        workspaceId: tenant.workspaceId,
        trafficType: bot ? 'bot' : 'human',
      }),
      linkId,
    });
    const clicks = [
      click(a.id, 'a1', '2026-11-24T08:01:00.000Z'),
      click(a.id, 'a2', '2026-11-24T08:02:00.000Z'),
      click(a.id, 'a3', '2026-11-24T09:03:00.000Z', true),
      click(b.id, 'b1', '2026-11-24T08:04:00.000Z'),
    ];
    // The lake: every click, a1 and b1 twice (Firehose delivered an object twice).
    await createLocalLakeSink(lakeDir).send(clicks);
    await createLocalLakeSink(lakeDir).send([clicks[0]!, clicks[3]!]);
    // The consumer: every click, and a1 and a3 again in later batches (a spool replay).
    const batch = shardBatches('shardId-000000000001');
    await applyClickCounters(batch(clicks), 16, NOW);
    await applyClickCounters(batch([clicks[0]!]), 16, NOW);
    await applyClickCounters(batch([clicks[2]!]), 16, NOW);
    expect(await linkRepository.findById(a.id, true)).toMatchObject({ clicks: 3, botClicks: 2 });

    const athena = { ...duckDbAthena(lakeDir, BUCKET), workgroup: 'wg', database: 'db', sleep: async () => {} };
    const report = await compactLakeOnAthena({
      ...athena,
      lake: createLocalLakeStore(lakeDir),
      lakeBucket: BUCKET,
      at: new Date('2026-11-24T11:00:00.000Z'),
      deadline: Date.now() + 120_000,
    });
    expect(report.compacted).toEqual([{ workspaceId: tenant.workspaceId, day: '2026-11-24' }]);
    const settled = await settleClickCountersOnAthena(
      athena,
      report.compacted,
      report.watermark,
      Date.now() + 120_000,
      NOW,
    );
    expect(settled).toMatchObject({ workspaceDays: 1, links: 2, settled: 2, failed: 0 });
    expect(await linkRepository.findById(a.id, true)).toMatchObject({ clicks: 2, botClicks: 1 });
    expect(await linkRepository.findById(b.id, true)).toMatchObject({ clicks: 1, botClicks: 0 });
    // Again: nothing moves.
    expect(
      await settleClickCountersOnAthena(athena, report.compacted, report.watermark, Date.now() + 120_000, NOW),
    ).toMatchObject({ settled: 0, unchanged: 2 });
    expect(await linkRepository.findById(a.id, true)).toMatchObject({ clicks: 2, botClicks: 1 });
  });

  it('reads a day merged into its daily file from the daily file (its hourly files may be gone)', async () => {
    const domain = (await domainRepository.findById(tenant.workspaceId, tenant.domainId))!;
    const c = await insertLink(
      { workspaceId: tenant.workspaceId, linkType: 'SHORTLINK', domain, deepLinkAppId: null, url: 'https://e.com' },
      {},
      TEST_ORIGIN,
    );
    const click = (eventId: string, timestamp: string): EventRecord => ({
      ...blankEvent({ eventId, timestamp, eventType: 'click', workspaceId: tenant.workspaceId, trafficType: 'human' }),
      linkId: c.id,
    });
    const clicks = [click('c1', '2026-11-25T08:01:00.000Z'), click('c2', '2026-11-25T09:01:00.000Z')];
    await createLocalLakeSink(lakeDir).send(clicks);
    const batch = shardBatches('shardId-000000000002');
    // c1 counted twice (two batches): 3 live clicks for 2 distinct.
    await applyClickCounters(batch(clicks), 16, NOW);
    await applyClickCounters(batch([clicks[0]!]), 16, NOW);
    expect(await linkRepository.findById(c.id, true)).toMatchObject({ clicks: 3 });

    const athena = { ...duckDbAthena(lakeDir, BUCKET), workgroup: 'wg', database: 'db', sleep: async () => {} };
    // Two days later: 2026-11-25 is compacted, then merged into its daily file in the same run.
    const report = await compactLakeOnAthena({
      ...athena,
      lake: createLocalLakeStore(lakeDir),
      lakeBucket: BUCKET,
      at: new Date('2026-11-27T11:00:00.000Z'),
      deadline: Date.now() + 120_000,
    });
    expect(report.compacted).toContainEqual({ workspaceId: tenant.workspaceId, day: '2026-11-25' });
    expect(report.mergedBefore).toBe('2026-11-27');
    // The next run removes the merged day's hourly files (readers switched to the daily file).
    const hourly = path.join(lakeDir, 'compacted', `workspace_id=${tenant.workspaceId}`, 'dt=2026-11-25');
    expect(existsSync(hourly)).toBe(true);
    rmSync(hourly, { recursive: true, force: true });
    const settled = await settleClickCountersOnAthena(
      athena,
      report.compacted,
      report.watermark,
      Date.now() + 120_000,
      NOW,
      report.mergedBefore,
    );
    expect(settled).toMatchObject({ failed: 0 });
    expect(await linkRepository.findById(c.id, true)).toMatchObject({ clicks: 2 });
  });
});
