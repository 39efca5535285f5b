import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapTenant, type BootstrapResult } from '@shared/admin/bootstrap';
import { createLocalLakeStore } from '@shared/admin/lake-store';
import { applyClickCounters, type CounterStreamRecord } from '@shared/clicks/link-counters';
import { blankEvent, type EventRecord } from '@shared/events/event-record';
import { replayKeptFailures } from '@shared/events/kept-failures';
import { createLocalEventStream } from '@shared/events/local-event-stream';
import { insertLink } from '@shared/links/create-link';
import { linkRepository } from '@shared/links/link-repository';
import { domainRepository } from '@shared/tenancy/domain-repository';
import { TEST_ORIGIN } from '@test/support/test-origin';

/**
 * A 25-hour outage of the click counter consumer on the local stand-in of the event stream, on a
 * fake clock: the consumer gives the batch up after 20 h (its maximum record age, below the
 * stream's 24 h retention), the batch is kept whole, and the replay counts every click once.
 */
let tenant: BootstrapResult;
let dir: string;
beforeAll(async () => {
  tenant = await bootstrapTenant({ baseUrl: 'http://unused', edgeUrl: 'http://unused' });
  dir = await mkdtemp(path.join(tmpdir(), 'stream-outage-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const HOUR = 3600_000;
let n = 0;
const click = (linkId: string, at: number): EventRecord => ({
  ...blankEvent({
    eventId: `evt-outage-${String(++n)}`,
    timestamp: new Date(at).toISOString(),
    eventType: 'click',
    workspaceId: tenant.workspaceId,
    trafficType: 'human',
  }),
  linkId,
});

describe('a 25-hour consumer outage loses no click', () => {
  it('keeps the given-up batch whole, and the replay counts it once (twice replayed, still once)', async () => {
    const domain = (await domainRepository.findById(tenant.workspaceId, tenant.domainId))!;
    const link = await insertLink(
      { workspaceId: tenant.workspaceId, linkType: 'SHORTLINK', domain, deepLinkAppId: null, url: 'https://e.com' },
      {},
      TEST_ORIGIN,
    );
    let now = Date.parse('2026-11-24T00:00:00.000Z');
    let outage = true;
    let failedAttempts = 0;
    const failuresDir = path.join(dir, 'failures');
    const stream = createLocalEventStream(path.join(dir, 'lake'), {
      failuresDir,
      clock: () => now,
      apply: async (records: CounterStreamRecord[]) => {
        if (outage) {
          failedAttempts += 1;
          throw new Error('DynamoDB unavailable');
        }
        return applyClickCounters(records, 16, new Date(now));
      },
    });

    // Clicks at the start of the outage and 10 hours in: the consumer keeps failing.
    await stream.send(Array.from({ length: 12 }, () => click(link.id, now)));
    await expect.poll(() => failedAttempts, { timeout: 30_000 }).toBeGreaterThan(1);
    now += 10 * HOUR;
    await stream.send(Array.from({ length: 8 }, () => click(link.id, now)));
    // 25 hours after the first click, still failing: the batch is given up and kept.
    now += 15 * HOUR;
    await stream.drained();
    const store = createLocalLakeStore(failuresDir);
    const kept: string[] = [];
    for await (const key of store.list('')) kept.push(key);
    expect(kept).toHaveLength(1);
    const doc = JSON.parse(await store.getText(kept[0]!)) as {
      payload: string;
      KinesisBatchInfo: { batchSize: number };
    };
    expect(doc.KinesisBatchInfo.batchSize).toBe(20);
    expect((JSON.parse(doc.payload) as { Records: unknown[] }).Records).toHaveLength(20);
    expect((await linkRepository.findById(link.id, true))?.clicks).toBe(0);

    // The outage ends: new clicks count at once; the kept batch waits for the replay.
    outage = false;
    await stream.send([click(link.id, now)]);
    await stream.drained();
    expect((await linkRepository.findById(link.id, true))?.clicks).toBe(1);

    // A copy of the kept object stands for a replay run twice (or a batch kept twice).
    const [first] = kept;
    await cp(path.join(failuresDir, ...first!.split('/')), path.join(failuresDir, 'copy', 'again.json'));
    const totals = await replayKeptFailures({ store, now: new Date(now) });
    expect(totals).toMatchObject({ objects: 2, replayed: 2, records: 40, failed: 0, tooOld: 0 });
    expect((await linkRepository.findById(link.id, true))?.clicks).toBe(21);
    // Replayed objects are removed: a second run finds nothing.
    expect(await replayKeptFailures({ store, now: new Date(now) })).toMatchObject({ objects: 0, replayed: 0 });
    expect((await linkRepository.findById(link.id, true))?.clicks).toBe(21);
  });
});
