import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hotStoreKey } from '@shared/edge/hot-links/hot-entry';
import { HOT_MIN_RECENT_CLICKS } from '@shared/edge/hot-links/hot-set';
import { parseRealtimeLogLine } from '@shared/edge/hot-links/realtime-log';
import { linkRepository } from '@shared/links/link-repository';
import type { InvocationEnd } from '@shared/local/local-invocations';
import { edgeRequest } from '@test/support/edge-client';
import { setLiveHumanClicks } from '@test/support/hot-links';
import { http } from '@test/support/http-client';
import { readLake } from '@test/support/lake-reader';
import { startTestStack, type TestStack } from '@test/support/test-stack';
import { waitUntil } from '@test/support/wait-until';

const CHROME =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
/**
 * How long a change to a hot link may still be answered from the edge's old entry, locally: the
 * table stream's poll (100-200 ms), the invalidation's read and write of the store, with a wide
 * margin for a loaded machine (deployed: the mapping's 1 s window and one invocation, docs/edge.md).
 */
const INVALIDATION_DELAY_MS = 5_000;
const CRAWLER = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

let t: TestStack;
const invocations: InvocationEnd[] = [];

beforeAll(async () => {
  t = await startTestStack({ edgeHotLinks: true });
  const stop = t.stack.invocations.onEnd((end) => invocations.push(end));
  return async () => {
    stop();
    await t.stop();
  };
});
afterAll(() => {
  invocations.length = 0;
});

/** Sets a link's live human clicks of this hour (as the counter consumer keeps them): hot. */
const makeHot = (linkId: string) => setLiveHumanClicks(linkId, new Date(), 5_000);

describe('hot links at the local edge (edgeHotLinks on)', () => {
  it('answers a hot link in the edge function, counts each click once with the destination it served', async () => {
    const server = { 'api-key': t.tenantA.serverKey };
    const created = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: server,
      json: { url: 'https://example.com/first', domain: t.tenantA.domain },
    });
    expect(created.status).toBe(201);
    const link = created.body.data as { id: string; key: string; domain: string };
    await makeHot(link.id);
    const hotLinks = t.stack.hotLinks!;
    expect(await hotLinks.refreshHotSet([link.id])).toMatchObject({ hot: 1, puts: 1 });

    const click = (userAgent: string) =>
      edgeRequest(t.edgeUrl, {
        host: link.domain,
        path: `/${link.key}`,
        headers: {
          'user-agent': userAgent,
          referer: 'https://news.example.org/a',
          'cloudfront-viewer-country': 'fr',
        },
      });
    const edgeLinksRuns = () => invocations.filter((i) => i.rawPath === `/${link.key}`).length;

    for (let i = 0; i < 3; i++) {
      const res = await click(CHROME);
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe('https://example.com/first');
      expect(res.headers['cache-control']).toBe('private, max-age=0');
    }
    await t.idle();
    // Answered at the edge: no origin function ran.
    expect(edgeLinksRuns()).toBe(0);
    expect(hotLinks.logLines()).toHaveLength(3);
    expect(hotLinks.logLines().map((l) => parseRealtimeLogLine(l)?.['cs-host'])).toEqual(
      Array(3).fill(link.domain.toLowerCase()),
    );

    // A crawler is not answered at the edge: the origin answers (its preview) and records it (a bot click).
    expect((await click(CRAWLER)).status).toBe(200);
    await t.idle();
    expect(edgeLinksRuns()).toBe(1);

    // The link changes; once the writer put its new entry, the edge serves (and records) it.
    const patched = await http(t.baseUrl, 'PATCH', `/v1/links/${link.id}`, {
      headers: server,
      json: { url: 'https://example.com/second' },
    });
    expect(patched.status).toBe(200);
    // The table stream's invalidation puts the new entry (no refresh needed).
    await waitUntil(
      () => hotLinks.store.get(hotStoreKey(link.domain, link.key))?.includes('https://example.com/second') === true,
      'the new entry from the table stream',
      { timeout: INVALIDATION_DELAY_MS },
    );
    const after = await click(CHROME);
    expect(after.headers.location).toBe('https://example.com/second');
    await t.idle();
    expect(edgeLinksRuns()).toBe(1);

    const clicks = () =>
      readLake()
        .map((l) => l.line)
        .filter((e) => e.eventType === 'click' && e.linkId === link.id);
    const human = clicks().filter((e) => e.trafficType === 'human');
    expect(human).toHaveLength(4);
    expect(new Set(human.map((e) => e.eventId)).size).toBe(4);
    expect(human.map((e) => e.resolvedDestinationUrl).sort()).toEqual([
      'https://example.com/first',
      'https://example.com/first',
      'https://example.com/first',
      'https://example.com/second',
    ]);
    for (const event of human)
      expect(event).toMatchObject({
        country: 'FR',
        referrerHost: 'news.example.org',
        deviceType: 'desktop',
        browser: 'Chrome',
        responseKind: 'redirect',
        domain: link.domain.toLowerCase(),
        linkKey: link.key,
        workspaceId: t.tenantA.workspaceId,
      });
    // The origin's visitor id for the same viewer: both paths hash the same address and agent.
    expect(new Set(human.map((e) => e.visitorId)).size).toBe(1);

    // Counters and analytics count every click once: 4 at the edge, 1 bot at the origin.
    const stored = await linkRepository.findById(link.id, true);
    expect(stored).toMatchObject({ clicks: 4, botClicks: 1 });
    const analytics = await http(t.baseUrl, 'GET', `/v1/analytics/links/${link.id}?range=24h&traffic=all`, {
      headers: server,
    });
    expect(analytics.status).toBe(200);
    expect(analytics.body.data.summary.totalClicks).toBe(5);
  }, 120_000);

  it('finds a link that turns hot from its clicks: the counter consumer nominates it, the next refresh puts it', async () => {
    const created = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: { 'api-key': t.tenantA.serverKey },
      json: { url: 'https://example.com/turning-hot', domain: t.tenantA.domain },
    });
    expect(created.status).toBe(201);
    const link = created.body.data as { id: string; key: string; domain: string };
    const click = () =>
      edgeRequest(t.edgeUrl, { host: link.domain, path: `/${link.key}`, headers: { 'user-agent': CHROME } });
    // Under the threshold: the refresh leaves it out.
    for (let i = 0; i < HOT_MIN_RECENT_CLICKS - 1; i++) expect((await click()).status).toBe(302);
    await t.idle();
    await t.stack.hotLinks!.refreshHotSet();
    expect(t.stack.hotLinks!.store.get(hotStoreKey(link.domain, link.key))).toBeUndefined();
    // The click that carries it over the threshold: nominated by the counters, put by the next refresh.
    expect((await click()).status).toBe(302);
    await t.idle();
    await t.stack.hotLinks!.refreshHotSet();
    expect(t.stack.hotLinks!.store.get(hotStoreKey(link.domain, link.key))).toContain(
      'https://example.com/turning-hot',
    );
  }, 120_000);

  it('archives a hot link mid-storm: after the invalidation delay no click gets its redirect, and every click is counted once', async () => {
    const server = { 'api-key': t.tenantA.serverKey };
    const created = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: server,
      json: { url: 'https://example.com/storm', domain: t.tenantA.domain },
    });
    expect(created.status).toBe(201);
    const link = created.body.data as { id: string; key: string; domain: string };
    await makeHot(link.id);
    expect(await t.stack.hotLinks!.refreshHotSet([link.id])).toMatchObject({ puts: 1 });
    expect(t.stack.hotLinks!.store.get(hotStoreKey(link.domain, link.key))).toBeDefined();

    const answers: { sentAt: number; status: number; location: string | undefined }[] = [];
    // When the archive was answered (until then the storm runs on).
    const archive = { at: Number.POSITIVE_INFINITY };
    const stormEndsAfterArchiveMs = INVALIDATION_DELAY_MS + 2_000;
    const clicker = async () => {
      while (Date.now() < archive.at + stormEndsAfterArchiveMs) {
        const sentAt = Date.now();
        const res = await edgeRequest(t.edgeUrl, {
          host: link.domain,
          path: `/${link.key}`,
          headers: { 'user-agent': CHROME, 'cloudfront-viewer-country': 'de' },
        });
        answers.push({ sentAt, status: res.status, location: res.headers.location as string | undefined });
      }
    };
    const storm = Promise.all(Array.from({ length: 8 }, clicker));
    try {
      await waitUntil(() => answers.filter((a) => a.status === 302).length >= 50, 'the storm answered at the edge');
      const archived = await http(t.baseUrl, 'DELETE', `/v1/links/${link.id}`, { headers: server });
      expect(archived.status).toBe(200);
    } finally {
      // The storm runs on for the invalidation delay and a margin after the archive (or a failure).
      archive.at = Date.now();
      await storm;
    }

    const redirected = (a: (typeof answers)[number]) => a.status === 302 && a.location === 'https://example.com/storm';
    // Before the archive the edge answered; from the invalidation delay on, never a redirect.
    expect(answers.filter((a) => a.sentAt < archive.at && redirected(a)).length).toBeGreaterThanOrEqual(50);
    const late = answers.filter((a) => a.sentAt >= archive.at + INVALIDATION_DELAY_MS);
    expect(late.length).toBeGreaterThan(0);
    expect(late.filter(redirected)).toEqual([]);
    expect(t.stack.hotLinks!.store.get(hotStoreKey(link.domain, link.key))).toBeUndefined();

    // Every redirect the storm got is one click in the lake, edge-answered or not.
    await t.idle();
    const clicks = readLake()
      .map((l) => l.line)
      .filter((e) => e.eventType === 'click' && e.linkId === link.id && e.responseKind === 'redirect');
    expect(new Set(clicks.map((e) => e.eventId)).size).toBe(clicks.length);
    expect(clicks).toHaveLength(answers.filter(redirected).length);
  }, 120_000);
});
