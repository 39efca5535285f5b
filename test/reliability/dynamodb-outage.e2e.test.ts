import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { bootstrapTenant } from '@shared/admin/bootstrap';
import { getDocumentClient } from '@shared/db/dynamo-client';
import { startDynamoDbLocal, type DynamoDbLocal } from '@shared/local/dynamodb-local';
import { startLocalStack, type LocalStack } from '@shared/local/local-stack';
import { startDynamoFaultProxy, type DynamoFaultProxy } from '@test/support/dynamodb-fault-proxy';
import { http } from '@test/support/http-client';
import { waitUntil } from '@test/support/wait-until';

let dynamo: DynamoDbLocal | undefined;
let stack: LocalStack | undefined;
let proxy: DynamoFaultProxy | undefined;
afterAll(async () => {
  await stack?.stop();
  await proxy?.stop();
  await dynamo?.stop();
});

const scanAll = async (tableName: string) => {
  const items: Record<string, any>[] = [];
  let start: Record<string, any> | undefined;
  do {
    const out = await getDocumentClient().send(
      new ScanCommand({ TableName: tableName, ExclusiveStartKey: start, ConsistentRead: true }),
    );
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
};

describe('DynamoDB outage', () => {
  it('answers 500 internal_error envelopes while the database is down, recovers after, and leaves no half-written link', async () => {
    const dbPath = mkdtempSync(path.join(tmpdir(), 'outage-db-'));
    dynamo = await startDynamoDbLocal({ dbPath });
    const port = dynamo.port;
    // Through the fault proxy (transactions conflict as deployed, 2 ms latency); when DynamoDB
    // goes away behind it, callers see their connections drop.
    proxy = await startDynamoFaultProxy(dynamo.endpoint, { transactionHoldMs: 10, latencyMs: 2 });
    stack = await startLocalStack({
      port: 0,
      edgePort: 0,
      dynamoEndpoint: proxy.endpoint,
      tableName: 'outage',
      lakeDir: mkdtempSync(path.join(tmpdir(), 'outage-lake-')),
    });
    const tenant = await bootstrapTenant({ baseUrl: stack.baseUrl, edgeUrl: stack.edgeUrl });
    const create = (i: number) =>
      http(stack!.baseUrl, 'POST', '/v1/links', {
        headers: { 'api-key': tenant.serverKey, 'x-request-id': `outage-${i}` },
        json: { url: `https://example.com/${i}`, domain: tenant.domain, key: `outage-${i}`, tags: ['t1', 't2'] },
      });
    expect((await create(0)).status).toBe(201);

    // Creates in flight while the database goes away: killed once the first of them reached it.
    const { counts } = proxy;
    const callsBefore = counts.calls;
    const inFlight = Array.from({ length: 30 }, (_, i) => create(i + 1));
    await waitUntil(() => counts.calls > callsBefore, 'a create reaching DynamoDB', { interval: 1 });
    dynamo.process.kill('SIGKILL');
    await dynamo.stop();
    const during = await Promise.all([...inFlight, create(100), create(101)]);
    const failures = during.filter((r) => r.status !== 201);
    expect(failures.length).toBeGreaterThanOrEqual(2);
    for (const res of failures) {
      expect(res.status).toBe(500);
      expect(res.body).toEqual({
        success: false,
        error: { code: 'internal_error', message: expect.any(String) },
        requestId: expect.stringMatching(/^outage-/),
      });
      expect(res.text).not.toMatch(/at .*\.ts|ECONNREFUSED|stack/i);
      expect(res.headers.get('x-request-id')).toBe(res.body.requestId);
    }

    dynamo = await startDynamoDbLocal({ dbPath, port });
    const after = await create(200);
    expect(after.status).toBe(201);
    const got = await http(stack.baseUrl, 'GET', `/v1/links/${after.body.data.id}`, {
      headers: { 'api-key': tenant.serverKey },
    });
    expect(got.status).toBe(200);

    const items = await scanAll('outage');
    const links = items.filter((i) => i.type === 'LINK');
    const slugs = items.filter((i) => i.type === 'SLUG');
    expect(links.length).toBeGreaterThanOrEqual(2);
    for (const link of links)
      expect(
        slugs.some((s) => s.linkId === link.id && s.pk === `SLUG#${link.domain}#${link.key}`),
        `link ${link.id} without slug`,
      ).toBe(true);
    for (const slug of slugs)
      expect(
        links.some((l) => l.id === slug.linkId),
        `slug ${slug.pk} without link`,
      ).toBe(true);
  }, 120_000);
});
