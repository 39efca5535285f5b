import { writeTestArtifact } from '@test/support/test-artifacts';
import v8 from 'node:v8';
import vm from 'node:vm';
import autocannon from 'autocannon';
import { beforeAll, describe, expect, it } from 'vitest';
import { RATE_LIMIT_MAX } from '@shared/rate-limits/rate-limit-policy';
import { clearRateLimitCache } from '@shared/rate-limits/rate-limiter';
import { workspaceRepository } from '@shared/tenancy/workspace-repository';
import { http } from '@test/support/http-client';
import { startDynamoFaultProxy, type DynamoFaultProxy } from '@test/support/dynamodb-fault-proxy';
import { startTestStack, type TestStack } from '@test/support/test-stack';
import { IPHONE_UA } from './route-cases';

/**
 * What the process may keep between the warm-up and the end of the soak: the JavaScript heap in
 * use after a full garbage collection (what a leak grows; resident memory also holds garbage not
 * yet collected and memory the allocator has not returned, which depend on the machine's load,
 * so it is reported, not judged).
 */
const HEAP_GROWTH_BOUND_MB = 100;
/** A full collection on demand (the worker runs without --expose-gc). */
v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc') as () => void;
const heapAfterGc = () => {
  collectGarbage();
  collectGarbage();
  return process.memoryUsage();
};
const SOAK_SECONDS = 12;

let t: TestStack;
let proxy: DynamoFaultProxy;
/** Through the fault proxy: transactions conflict as deployed, and every call takes 2 ms more. */
beforeAll(async () => {
  proxy = await startDynamoFaultProxy(process.env.DYNAMODB_ENDPOINT!, { transactionHoldMs: 10, latencyMs: 2 });
  process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
  return () => proxy.stop();
});
beforeAll(async () => {
  t = await startTestStack();
  return () => t.stop();
});
beforeAll(async () => {
  // A load test raises its own workspace's limits (the default 3,000 server-key requests a minute would answer 429s).
  await workspaceRepository.setRateLimits(t.tenantA.workspaceId, {
    serverPerMinute: RATE_LIMIT_MAX,
    clientPerMinute: RATE_LIMIT_MAX,
  });
  clearRateLimitCache();
});

/** autocannon's promise form: resolves with the result, rejects with its error. */
const run = (opts: autocannon.Options) => autocannon(opts);

describe('soak', () => {
  it('serves a mixed workload for a fixed time with zero 5xx and bounded memory growth', async () => {
    const headers = { 'api-key': t.tenantA.serverKey, 'content-type': 'application/json' };
    const link = await http(t.baseUrl, 'POST', '/v1/links', {
      headers,
      json: { url: 'https://example.com/soak', domain: t.tenantA.domain },
    });
    let n = 0;
    const requests: autocannon.Request[] = [
      { method: 'GET', path: `/v1/links/${link.body.data.id}`, headers },
      { method: 'GET', path: '/v1/links/lnk_missing', headers },
      {
        method: 'POST',
        path: '/v1/links',
        headers,
        setupRequest: (req) => ({
          ...req,
          body: JSON.stringify({ url: `https://example.com/${n++}`, domain: t.tenantA.domain }),
        }),
      },
      { method: 'POST', path: '/v1/links', headers, body: '{"url":' },
      { method: 'GET', path: '/v1/nothing', headers },
      {
        method: 'POST',
        path: '/v1/client/attribution/click',
        headers: {
          'x-publishable-key': t.tenantA.publishableKeys.browser.key,
          origin: t.tenantA.publishableKeys.browser.origin,
          'user-agent': IPHONE_UA,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ linkId: link.body.data.id }),
      },
    ];
    const options = { url: t.baseUrl, connections: 6, requests };
    // The short-link edge at the same time: redirects with the link's domain as Host.
    const edge = {
      url: t.edgeUrl,
      connections: 4,
      requests: [
        {
          method: 'GET' as const,
          path: `/${link.body.data.key}`,
          headers: { host: t.tenantA.domain, 'user-agent': IPHONE_UA },
        },
        { method: 'GET' as const, path: '/no-such-key', headers: { host: t.tenantA.domain, 'user-agent': IPHONE_UA } },
      ],
    };
    await Promise.all([run({ ...options, duration: 2 }), run({ ...edge, duration: 2 })]);
    const before = heapAfterGc();
    const [result, edgeResult] = await Promise.all([
      run({ ...options, duration: SOAK_SECONDS }),
      run({ ...edge, duration: SOAK_SECONDS }),
    ]);
    await t.idle(); // the edge's last clicks are recorded after their responses
    const after = heapAfterGc();
    const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
    const heapGrowthMb = (after.heapUsed - before.heapUsed) / 1024 / 1024;
    const figures = {
      seconds: SOAK_SECONDS,
      connections: options.connections + edge.connections,
      requests: result.requests.total,
      requestsPerSecond: result.requests.average,
      errors: result.errors,
      timeouts: result.timeouts,
      statusCodes: result.statusCodeStats,
      edgeRequests: edgeResult.requests.total,
      edgeErrors: edgeResult.errors,
      edgeStatusCodes: edgeResult.statusCodeStats,
      heapUsedAfterGcBeforeMb: mb(before.heapUsed),
      heapUsedAfterGcAfterMb: mb(after.heapUsed),
      heapGrowthMb: Math.round(heapGrowthMb),
      heapGrowthBoundMb: HEAP_GROWTH_BOUND_MB,
      externalBeforeMb: mb(before.external),
      externalAfterMb: mb(after.external),
      rssBeforeMb: mb(before.rss),
      rssAfterMb: mb(after.rss),
    };
    writeTestArtifact('soak-report.json', figures);

    expect(result.requests.total).toBeGreaterThan(100);
    expect(result.errors).toBe(0);
    expect(result['5xx']).toBe(0);
    expect(edgeResult.requests.total).toBeGreaterThan(50);
    expect(edgeResult.errors).toBe(0);
    expect(edgeResult['5xx']).toBe(0);
    expect(Object.keys(edgeResult.statusCodeStats ?? {}).sort()).toEqual(['302', '404']);
    expect(heapGrowthMb).toBeLessThan(HEAP_GROWTH_BOUND_MB);
  }, 60_000);
});
