import type { CloudFrontKeyValueStoreClient } from '@aws-sdk/client-cloudfront-keyvaluestore';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { liveHumans } from '@shared/clicks/link-counters';
import { parseHotEntry } from '@shared/edge/hot-links/edge-answer';
import { diffHotSet, planHotSet, recentHumanClicks } from '@shared/edge/hot-links/hot-set';
import { createHotSetWriter, UPDATE_KEYS_BATCH } from '@shared/edge/hot-links/kvs-writer';
import type { LinkRecord } from '@shared/links/link-record';
import { localKvsClient, startLocalKvs, type LocalKvs } from '@shared/local/local-kvs-server';
import { plainLinkRecord } from '@test/support/redirect-record';

const NOW = new Date('2026-03-01T12:15:00Z');

const link = (id: string, over: Partial<LinkRecord> & Record<string, unknown> = {}): LinkRecord =>
  plainLinkRecord(id, over);

const hot = (id: string, clicksThisHour: number, over: Partial<LinkRecord> = {}) =>
  link(id, { [liveHumans('2026-03-01T12')]: clicksThisHour, ...over });

describe('hot set from the link counters', () => {
  it('counts the current hour and the part of the previous hour still in the last 60 minutes', () => {
    const item = { [liveHumans('2026-03-01T12')]: 40, [liveHumans('2026-03-01T11')]: 100 };
    // 15 minutes into the hour: 45 of the previous hour's 60 minutes are still in the window.
    expect(recentHumanClicks(item, NOW)).toBe(40 + 75);
    expect(recentHumanClicks({ [liveHumans('2026-03-01T10')]: 1000 }, NOW)).toBe(0);
  });

  it('takes the hottest eligible links, within the count and byte budget', () => {
    const plan = planHotSet(
      [
        hot('a', 500),
        hot('b', 900),
        hot('c', 50),
        hot('d', 700, { passwordHash: 'scrypt$x' }),
        hot('e', 800, { trackConversions: true }),
        hot('f', 600),
      ],
      NOW,
      { maxEntries: 2, maxBytes: 4 * 1024 * 1024, minRecentClicks: 100 },
    );
    expect([...plan.keys()]).toEqual(['go.example.com/b', 'go.example.com/f']);
    const entry = parseHotEntry(plan.get('go.example.com/b')?.value ?? '');
    expect(entry).toMatchObject({ l: 'https://example.com/b', s: 302, e: null, v: '2026-02-01T00:00:00.000Z', i: 'b' });
    const small = planHotSet([hot('a', 500), hot('b', 900)], NOW, {
      maxEntries: 10,
      maxBytes: 150,
      minRecentClicks: 1,
    });
    expect([...small.keys()]).toEqual(['go.example.com/b']);
  });

  it('diffs the store against the plan: changed and new keys put, gone keys deleted', () => {
    const plan = planHotSet([hot('a', 500), hot('b', 900)], NOW);
    const current = new Map([
      ['go.example.com/a', plan.get('go.example.com/a')?.value ?? ''],
      ['go.example.com/old', '{}'],
    ]);
    const changes = diffHotSet(current, plan);
    expect(changes.puts.map((p) => p.key)).toEqual(['go.example.com/b']);
    expect(changes.deletes).toEqual(['go.example.com/old']);
  });
});

describe('hot-set writer against the KeyValueStore wire format', () => {
  let kvs: LocalKvs;
  let client: CloudFrontKeyValueStoreClient;

  beforeAll(async () => {
    kvs = await startLocalKvs();
    client = localKvsClient(kvs, { accessKeyId: 'AKIDLOOPBACK', secretAccessKey: 'loopback-secret' });
  });
  afterAll(async () => {
    client.destroy();
    await kvs.stop();
  });
  beforeEach(() => {
    for (const key of kvs.store.keys()) kvs.store.delete(key);
    kvs.requests.length = 0;
  });

  it('applies puts and deletes in UpdateKeys batches of 50, each with the ETag of the one before', async () => {
    kvs.store.put('go.example.com/old', '{}');
    const links = Array.from({ length: 120 }, (_, i) => hot(`k${String(i).padStart(3, '0')}`, 200 + i));
    const plan = planHotSet(links, NOW);
    const writer = createHotSetWriter(client, kvs.arn);
    const changes = diffHotSet(await writer.read(), plan);
    const result = await writer.apply(changes);
    expect(result).toMatchObject({
      puts: 120,
      deletes: 1,
      batches: Math.ceil(121 / UPDATE_KEYS_BATCH),
      itemCount: 120,
    });
    expect([...kvs.entries.keys()].sort()).toEqual([...plan.keys()].sort());
    expect(kvs.entries.get('go.example.com/k007')).toBe(plan.get('go.example.com/k007')?.value);
    // A second run with nothing changed writes nothing.
    expect(diffHotSet(await writer.read(), plan)).toEqual({ puts: [], deletes: [] });
  });

  it('signs every request with SigV4a (the pure-JS signer, no CRT), region set *', async () => {
    await createHotSetWriter(client, kvs.arn).read();
    expect(kvs.requests.length).toBeGreaterThan(0);
    for (const request of kvs.requests) {
      expect(request.authorization).toMatch(
        /^AWS4-ECDSA-P256-SHA256 Credential=AKIDLOOPBACK\/\d{8}\/cloudfront-keyvaluestore\/aws4_request/,
      );
      expect(request.regionSet).toBe('*');
    }
  });

  it('records each batch of puts with its send time before sending it; forgets the records of a refused batch', async () => {
    const sent = new Date('2026-03-01T12:00:30.000Z');
    const calls: string[] = [];
    const writer = createHotSetWriter(client, kvs.arn, {
      now: () => sent,
      recordServed: (puts, at) => {
        // Recorded before the store has them: no edge could serve an entry without its record.
        calls.push(
          `record ${puts.map((p) => `${p.key}:${String(kvs.store.get(p.key) !== undefined)}`).join(',')} ${at.toISOString()}`,
        );
        return Promise.resolve();
      },
      forgetServed: (puts, at) => {
        calls.push(`forget ${puts.map((p) => p.key).join(',')} ${at.toISOString()}`);
        return Promise.resolve();
      },
    });
    const plan = planHotSet([hot('rec', 500)], NOW);
    await writer.apply({ puts: [...plan.values()], deletes: [] });
    expect(calls).toEqual([`record go.example.com/rec:false ${sent.toISOString()}`]);
    // A value over the store's 1 KB limit: the store refuses the batch, its records are removed.
    await expect(
      writer.apply({ puts: [{ key: 'go.example.com/big', value: 'x'.repeat(2000) }], deletes: [] }),
    ).rejects.toThrow();
    expect(calls.slice(1)).toEqual([
      `record go.example.com/big:false ${sent.toISOString()}`,
      `forget go.example.com/big ${sent.toISOString()}`,
    ]);
  });

  it('serializes concurrent applies, so no update carries a stale ETag', async () => {
    const writer = createHotSetWriter(client, kvs.arn);
    const before = Number(kvs.etag().replace('ETAG', ''));
    const plans = [0, 1, 2, 3].map((n) => planHotSet([hot(`run${String(n)}`, 500)], NOW));
    const results = await Promise.all(plans.map((plan) => writer.apply({ puts: [...plan.values()], deletes: [] })));
    expect(results.map((r) => r.batches)).toEqual([1, 1, 1, 1]);
    expect(kvs.entries.size).toBe(4);
    // Four updates, each on the ETag the one before left: none was refused.
    expect(kvs.etag()).toBe(`ETAG${String(before + 4)}`);
  });

  it('fails a write raced by another writer (stale If-Match) instead of overwriting it', async () => {
    const writer = createHotSetWriter(client, kvs.arn);
    const other = createHotSetWriter(client, kvs.arn);
    const big = planHotSet(
      Array.from({ length: 60 }, (_, i) => hot(`x${String(i)}`, 500)),
      NOW,
    );
    // The other writer moves the ETag between this writer's Describe and its second batch.
    let raced = false;
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'UpdateKeysCommand' && !raced) {
          raced = true;
          const out = await next(args);
          await other.apply({ puts: [{ key: 'go.example.com/other', value: '{}' }], deletes: [] });
          return out;
        }
        return next(args);
      },
      { step: 'initialize', name: 'raceOnce' },
    );
    try {
      await expect(writer.apply({ puts: [...big.values()], deletes: [] })).rejects.toMatchObject({
        name: 'ConflictException',
      });
    } finally {
      client.middlewareStack.remove('raceOnce');
    }
    expect(kvs.entries.has('go.example.com/other')).toBe(true);
  });
});
