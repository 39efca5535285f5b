import { writeTestArtifact } from '@test/support/test-artifacts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient } from '@shared/db/dynamo-client';
import { linkRepository } from '@shared/links/link-repository';
import { edgeRequest } from '@test/support/edge-client';
import { http } from '@test/support/http-client';
import { IPHONE_UA } from './route-cases';
import { startDynamoFaultProxy, type DynamoFaultProxy } from '@test/support/dynamodb-fault-proxy';
import { startTestStack, type TestStack } from '@test/support/test-stack';

let t: TestStack;
let proxy: DynamoFaultProxy;
const figures: Record<string, unknown> = {};
/**
 * Every handler talks to DynamoDB Local through the fault proxy, which reports the transaction
 * conflicts deployed DynamoDB reports (DynamoDB Local serializes everything and never does):
 * each transaction stays "ongoing" for 25 ms, so concurrent writes of one item collide.
 */
beforeAll(async () => {
  proxy = await startDynamoFaultProxy(process.env.DYNAMODB_ENDPOINT!, { transactionHoldMs: 25 });
  process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
  return () => proxy.stop();
});
beforeAll(async () => {
  t = await startTestStack();
  return () => t.stop();
});
afterAll(() => {
  writeTestArtifact('races-report.json', figures);
});

const countBy = (statuses: number[]) =>
  statuses.reduce<Record<number, number>>((m, s) => ({ ...m, [s]: (m[s] ?? 0) + 1 }), {});

describe('races through the HTTP API (with the conflicts of deployed DynamoDB)', () => {
  it('50 parallel creates of one domain+key: exactly one 201, 49 slug_taken', async () => {
    const before = proxy.counts.transactionConflicts;
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        http(t.baseUrl, 'POST', '/v1/links', {
          headers: { 'api-key': t.tenantA.serverKey },
          json: { url: `https://example.com/${i}`, domain: t.tenantA.domain, key: 'race-key' },
        }),
      ),
    );
    figures.sameSlug = countBy(results.map((r) => r.status));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    const conflicts = results.filter((r) => r.status === 409);
    expect(conflicts).toHaveLength(49);
    for (const r of conflicts) expect(r.body.error.code).toBe('slug_taken');
    figures.sameSlugTransactionConflicts = proxy.counts.transactionConflicts - before;
    expect(proxy.counts.transactionConflicts).toBeGreaterThan(before);
  });

  it('PATCHes of one link while it is clicked (client API and edge): every PATCH 200, every click counted', async () => {
    const headers = { 'api-key': t.tenantA.serverKey };
    const created = await http(t.baseUrl, 'POST', '/v1/links', {
      headers,
      json: { url: 'https://example.com/busy', domain: t.tenantA.domain },
    });
    const { id, key } = created.body.data;
    const browser = t.tenantA.publishableKeys.browser;
    const before = { ...proxy.counts };
    const patches = Array.from({ length: 5 }, (_, i) =>
      http(t.baseUrl, 'PATCH', `/v1/links/${id}`, { headers, json: { title: `busy ${i}`, tags: [`t${i % 3}`] } }).then(
        (r) => r.status,
      ),
    );
    const apiClicks = Array.from({ length: 40 }, () =>
      http(t.baseUrl, 'POST', '/v1/client/attribution/click', {
        headers: { 'x-publishable-key': browser.key, origin: browser.origin, 'user-agent': IPHONE_UA },
        json: { linkId: id },
      }).then((r) => r.status),
    );
    const edgeClicks = Array.from({ length: 40 }, () =>
      edgeRequest(t.edgeUrl, { host: t.tenantA.domain, path: `/${key}`, headers: { 'user-agent': IPHONE_UA } }).then(
        (r) => r.status,
      ),
    );
    const [patchStatuses, apiStatuses, edgeStatuses] = await Promise.all([
      Promise.all(patches),
      Promise.all(apiClicks),
      Promise.all(edgeClicks),
    ]);
    await t.idle(); // the edge records its clicks after answering
    figures.patchWhileClicked = {
      patches: countBy(patchStatuses),
      apiClicks: countBy(apiStatuses),
      edgeClicks: countBy(edgeStatuses),
      conflictExceptions: proxy.counts.conflictExceptions - before.conflictExceptions,
      transactionConflicts: proxy.counts.transactionConflicts - before.transactionConflicts,
    };
    expect(patchStatuses.every((s) => s === 200)).toBe(true);
    expect(apiStatuses.every((s) => s === 201)).toBe(true);
    expect(edgeStatuses.every((s) => s === 302)).toBe(true);
    // How many conflicts the storm met varies with timing (figures above); that each kind is
    // retried is proven deterministically in test/integration/transaction-conflicts.test.ts.
    const link = await linkRepository.findById(id, true);
    expect(link?.clicks).toBe(80);
    expect(link?.title).toMatch(/^busy \d+$/);
  }, 120_000);

  it('20 parallel creates with one Idempotency-Key: one link; the rest replay it or are in progress', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        http(t.baseUrl, 'POST', '/v1/links', {
          headers: { 'api-key': t.tenantA.serverKey, 'idempotency-key': 'race-idem' },
          json: { url: 'https://example.com/idem', domain: t.tenantA.domain },
        }),
      ),
    );
    figures.idempotency = countBy(results.map((r) => r.status));
    const ok = results.filter((r) => r.status === 201);
    expect(new Set(ok.map((r) => r.body.data.id)).size).toBe(1);
    for (const r of results.filter((x) => x.status !== 201)) {
      expect(r.status).toBe(409);
      expect(r.body.error.code).toBe('idempotency_request_in_progress');
    }
    const replay = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: { 'api-key': t.tenantA.serverKey, 'idempotency-key': 'race-idem' },
      json: { url: 'https://example.com/idem', domain: t.tenantA.domain },
    });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.data.id).toBe(ok[0]!.body.data.id);
  });

  it('1,000 concurrent clicks on one link (client API and edge redirects together) leave clicks exactly 1,000', async () => {
    const created = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: { 'api-key': t.tenantA.serverKey },
      json: { url: 'https://example.com/hot', domain: t.tenantA.domain },
    });
    const { id, key } = created.body.data;
    const browser = t.tenantA.publishableKeys.browser;
    const apiClicks = Array.from({ length: 600 }, () =>
      http(t.baseUrl, 'POST', '/v1/client/attribution/click', {
        headers: { 'x-publishable-key': browser.key, origin: browser.origin, 'user-agent': IPHONE_UA },
        json: { linkId: id },
      }).then((r) => r.status),
    );
    const edgeClicks = Array.from({ length: 400 }, () =>
      edgeRequest(t.edgeUrl, { host: t.tenantA.domain, path: `/${key}`, headers: { 'user-agent': IPHONE_UA } }).then(
        (r) => r.status,
      ),
    );
    const statuses = await Promise.all([...apiClicks, ...edgeClicks]);
    await t.idle(); // the edge records its clicks after answering
    figures.concurrentClicks = countBy(statuses);
    // Compared as counts, so a failure names the statuses it saw.
    expect(countBy(statuses.slice(0, 600))).toEqual({ 201: 600 });
    expect(countBy(statuses.slice(600))).toEqual({ 302: 400 });
    const link = await linkRepository.findById(id, true);
    expect(link?.clicks).toBe(1000);
    expect(link?.botClicks).toBe(0);
  }, 120_000);

  it('moving slugs by PATCH while others take the old slugs never leaves two links on a slug or a slug pointing nowhere', async () => {
    const headers = { 'api-key': t.tenantA.serverKey };
    const rounds = 25;
    const links = await Promise.all(
      Array.from({ length: rounds }, (_, i) =>
        http(t.baseUrl, 'POST', '/v1/links', {
          headers,
          json: { url: `https://example.com/m${i}`, domain: t.tenantA.domain, key: `move-old-${i}` },
        }).then((r) => r.body.data),
      ),
    );
    const outcomes = await Promise.all(
      links.flatMap((link, i) => [
        http(t.baseUrl, 'PATCH', `/v1/links/${link.id}`, { headers, json: { key: `move-new-${i}` } }).then(
          (r) => `patch:${r.status}`,
        ),
        http(t.baseUrl, 'POST', '/v1/links', {
          headers,
          json: { url: `https://example.com/t${i}`, domain: t.tenantA.domain, key: `move-old-${i}` },
        }).then((r) => `take:${r.status}`),
        http(t.baseUrl, 'PATCH', `/v1/links/${link.id}`, { headers, json: { key: `move-other-${i}` } }).then(
          (r) => `patch2:${r.status}`,
        ),
      ]),
    );
    figures.slugMoves = outcomes.reduce<Record<string, number>>((m, o) => ({ ...m, [o]: (m[o] ?? 0) + 1 }), {});
    for (const o of outcomes) expect(o, o).toMatch(/^(patch:200|patch2:200|take:201|take:409)$/);

    const items: Record<string, any>[] = [];
    let start: Record<string, any> | undefined;
    do {
      const out = await getDocumentClient().send(
        new ScanCommand({ TableName: process.env.TABLE_NAME!, ConsistentRead: true, ExclusiveStartKey: start }),
      );
      items.push(...(out.Items ?? []));
      start = out.LastEvaluatedKey;
    } while (start);
    const linkItems = items.filter((i) => i.type === 'LINK');
    const slugItems = items.filter((i) => i.type === 'SLUG');
    const bySlug = new Map<string, number>();
    for (const l of linkItems) bySlug.set(`${l.domain}#${l.key}`, (bySlug.get(`${l.domain}#${l.key}`) ?? 0) + 1);
    for (const [slug, count] of bySlug) expect(count, `links on ${slug}`).toBe(1);
    for (const slug of slugItems) {
      const owner = linkItems.find((l) => l.id === slug.linkId);
      expect(owner, `slug ${slug.pk} points nowhere`).toBeDefined();
      expect(slug.pk).toBe(`SLUG#${owner!.domain}#${owner!.key}`);
    }
    for (const l of linkItems)
      expect(
        slugItems.some((s) => s.linkId === l.id),
        `link ${l.id} without its slug`,
      ).toBe(true);
    for (const [i, link] of links.entries()) {
      const now = await linkRepository.findById(link.id, true);
      expect([`move-new-${i}`, `move-other-${i}`]).toContain(now!.key);
    }
  }, 120_000);
});
