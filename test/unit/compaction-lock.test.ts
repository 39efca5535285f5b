import { beforeEach, describe, expect, it } from 'vitest';
import {
  acquireCompactionLock,
  COMPACTION_LOCK_KEY,
  COMPACTION_LOCK_TTL_MS,
} from '@shared/analytics/lake/compaction-lock';
import { s3LakeLoopback } from '@test/support/s3-lake-loopback';

/** The deployed compaction's run lock through the official S3 client (conditional writes) against a loopback bucket. */
const s3 = s3LakeLoopback('lake');
const T0 = Date.parse('2026-11-20T12:15:00.000Z');

beforeEach(() => {
  s3.objects.clear();
  s3.calls.length = 0;
});

describe('compaction run lock (S3 conditional writes)', () => {
  it('is taken by one run; a second run while it is held gets nothing; released, it is free again', async () => {
    const first = await acquireCompactionLock(s3.client, 'lake', { owner: 'run-1', now: T0 });
    expect(first).toBeDefined();
    expect(JSON.parse(s3.objects.get(COMPACTION_LOCK_KEY)!)).toEqual({
      owner: 'run-1',
      acquiredAt: '2026-11-20T12:15:00.000Z',
      expiresAt: new Date(T0 + COMPACTION_LOCK_TTL_MS).toISOString(),
    });
    expect(await acquireCompactionLock(s3.client, 'lake', { owner: 'run-2', now: T0 + 60_000 })).toBeUndefined();
    expect(JSON.parse(s3.objects.get(COMPACTION_LOCK_KEY)!).owner).toBe('run-1');
    await first!.release();
    expect(s3.objects.has(COMPACTION_LOCK_KEY)).toBe(false);
    expect(await acquireCompactionLock(s3.client, 'lake', { owner: 'run-3', now: T0 + 120_000 })).toBeDefined();
  });

  it('takes over a lock whose holder died (past its expiry), and of two runs taking it over only one wins', async () => {
    await acquireCompactionLock(s3.client, 'lake', { owner: 'crashed', now: T0 });
    const later = T0 + COMPACTION_LOCK_TTL_MS + 1;
    const [a, b] = await Promise.all([
      acquireCompactionLock(s3.client, 'lake', { owner: 'run-a', now: later }),
      acquireCompactionLock(s3.client, 'lake', { owner: 'run-b', now: later }),
    ]);
    expect([a, b].filter(Boolean)).toHaveLength(1);
    expect(['run-a', 'run-b']).toContain(JSON.parse(s3.objects.get(COMPACTION_LOCK_KEY)!).owner);
    expect(s3.calls).toContain('PutObject:412');
  });

  it('takes over a lock it cannot read an expiry from (conditionally, on its ETag)', async () => {
    s3.objects.set(COMPACTION_LOCK_KEY, 'garbage');
    expect(await acquireCompactionLock(s3.client, 'lake', { owner: 'run-1', now: T0 })).toBeDefined();
    expect(JSON.parse(s3.objects.get(COMPACTION_LOCK_KEY)!).owner).toBe('run-1');
  });
});
