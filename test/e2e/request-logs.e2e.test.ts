import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createShortLink } from '@shared/links/create-link';
import type { ApiContext, ApiEvent } from '@shared/http/api-types';
import { edgeHandler } from '@shared/http/edge-handler';
import { ORIGIN_VERIFY_HEADER, ORIGIN_VERIFY_VALUES_ENV } from '@shared/http/origin-verify';
import { log } from '@shared/util/logger';
import { edgeRequest } from '@test/support/edge-client';
import { captureOutput } from '@test/support/log-capture';
import { startTestStack, type TestStack } from '@test/support/test-stack';
import { TEST_ORIGIN } from '@test/support/test-origin';

vi.hoisted(() => {
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
});

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack();
  return () => t.stop();
});
beforeAll(async () => {
  // The table-stream consumer (the outbound publisher: another function and log group when
  // deployed) runs in this process locally; these tests read the HTTP functions' lines only.
  await t.stack.outbound.stop();
});

const withLogLevel = async <T>(level: string, fn: () => Promise<T>): Promise<T> => {
  const before = process.env.LOG_LEVEL;
  process.env.LOG_LEVEL = level;
  try {
    return await fn();
  } finally {
    process.env.LOG_LEVEL = before;
  }
};

/**
 * Builds an edge handler in buffered mode (a plain invocation with a result), as it is built
 * where the runtime offers no response streaming; the local stack in this process offers it.
 */
const buffered = <T>(build: () => T): T => {
  const lambda = (globalThis as { awslambda?: { streamifyResponse?: unknown } }).awslambda;
  const streamify = lambda?.streamifyResponse;
  if (lambda) delete lambda.streamifyResponse;
  try {
    return build();
  } finally {
    if (lambda && streamify) lambda.streamifyResponse = streamify;
  }
};

describe("one request's log lines", () => {
  /** The click metrics the counter consumer wrote for its batches (one EMF line per dimension set and batch). */
  const clickMetrics = (lines: Array<Record<string, unknown>>) => {
    const sum = (name: string, dimension: string, value: string) =>
      lines
        .filter((l) => l._aws !== undefined && l[dimension] === value)
        .reduce((total, l) => total + (typeof l[name] === 'number' ? l[name] : 0), 0);
    return {
      redirects: sum('Redirects', 'Outcome', 'redirect'),
      previews: sum('Redirects', 'Outcome', 'preview'),
      humanEdgeClicks: sum('Clicks', 'Source', 'edge'),
      botEdgeClicks: sum('BotClicks', 'Source', 'edge'),
    };
  };

  it('a click on the edge writes no line; the counter consumer writes its click metrics once per batch', async () => {
    const link = await createShortLink(
      t.tenantA.workspaceId,
      {
        domain: t.tenantA.domain,
        url: 'https://example.com/logs',
      },
      TEST_ORIGIN,
    );
    const output = captureOutput();
    const res = await withLogLevel('info', async () => {
      const answer = await edgeRequest(t.edgeUrl, {
        host: t.tenantA.domain,
        path: `/${link.key}`,
        headers: { 'user-agent': IPHONE, 'x-request-id': 'click-log-check-1' },
      });
      await t.idle();
      return answer;
    }).finally(() => {
      output.stop();
    });
    expect(res.status).toBe(302);
    expect(res.headers['x-request-id']).toBe('click-log-check-1');

    const lines = output.json();
    // Nothing from the click's own invocation (CloudWatch Logs is the redirect's largest cost).
    expect(lines.filter((l) => l.requestId === 'click-log-check-1')).toEqual([]);
    expect(lines.filter((l) => l.route === 'GET /{key}')).toEqual([]);
    // The consumer's batch lines carry the click.
    const metrics = lines.filter((l) => l._aws !== undefined);
    for (const line of metrics)
      expect(line).toMatchObject({
        _aws: { CloudWatchMetrics: [{ Namespace: 'LinkService' }] },
        service: 'link-service',
      });
    expect(clickMetrics(lines)).toEqual({ redirects: 1, previews: 0, humanEdgeClicks: 1, botEdgeClicks: 0 });
  });

  it('concurrent clicks write no line of their own; the batch metrics add up to every click', async () => {
    const link = await createShortLink(
      t.tenantA.workspaceId,
      {
        domain: t.tenantA.domain,
        url: 'https://example.com/concurrent',
      },
      TEST_ORIGIN,
    );
    const ids = Array.from({ length: 12 }, (_, i) => `concurrent-click-${i}`);
    const output = captureOutput();
    const answers = await withLogLevel('info', async () => {
      const all = await Promise.all(
        ids.map((id, i) =>
          edgeRequest(t.edgeUrl, {
            host: t.tenantA.domain,
            path: `/${link.key}`,
            headers: { 'user-agent': i < 9 ? IPHONE : 'curl/8.5.0', 'x-request-id': id },
          }),
        ),
      );
      await t.idle();
      return all;
    }).finally(() => {
      output.stop();
    });
    // Humans are redirected; the bots (curl) get the social preview.
    expect(answers.map((a) => a.status)).toEqual(ids.map((_, i) => (i < 9 ? 302 : 200)));
    const lines = output.json();
    expect(lines.filter((line) => ids.includes(String(line.requestId)))).toEqual([]);
    expect(clickMetrics(lines)).toEqual({ redirects: 9, previews: 3, humanEdgeClicks: 9, botEdgeClicks: 3 });
  });

  it('every line a failing request writes is Powertools JSON with the request id, the route and the Lambda context', async () => {
    const handler = buffered(() =>
      edgeHandler(() => {
        log('debug', 'looking the link up', { key: 'abc' });
        log('warn', 'something looks off', { password: 'hunter2' });
        return Promise.reject(new Error('boom'));
      }),
    );
    const event = {
      routeKey: 'GET /{key}',
      rawPath: '/abc',
      // The local stack in this process plays the front door: its origin-verify value comes along.
      headers: {
        'x-request-id': 'failing-request-1',
        host: 'go.example.com',
        [ORIGIN_VERIFY_HEADER]: (process.env[ORIGIN_VERIFY_VALUES_ENV] ?? '').split(',')[0] ?? '',
      },
      requestContext: { http: { method: 'GET', path: '/abc', sourceIp: '127.0.0.1', userAgent: IPHONE } },
      isBase64Encoded: false,
    } as unknown as ApiEvent;
    const context = {
      functionName: 'edge-redirect',
      functionVersion: '$LATEST',
      invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:edge-redirect',
      memoryLimitInMB: '512',
      awsRequestId: 'lambda-request-1',
      getRemainingTimeInMillis: () => 10_000,
    } as unknown as ApiContext;

    const output = captureOutput();
    const res = await withLogLevel('debug', () => handler(event, context)).finally(() => {
      output.stop();
    });
    expect(res.statusCode).toBe(500);

    const lines = output.lines();
    expect(lines.length).toBe(3);
    for (const { line, json } of lines) {
      expect(json, `not JSON: ${line}`).toBeDefined();
      expect(json).toMatchObject({
        service: 'link-service',
        requestId: 'failing-request-1',
        route: 'GET /{key}',
        function_name: 'edge-redirect',
        function_request_id: 'lambda-request-1',
      });
      expect(typeof json!.timestamp).toBe('string');
      expect(['DEBUG', 'WARN', 'ERROR']).toContain(json!.level);
      expect(line).not.toContain('hunter2');
    }
    expect(lines.map((l) => l.json!.message)).toEqual([
      'looking the link up',
      'something looks off',
      'edge request failed',
    ]);

    // The keys are the request's own: the next request does not inherit them.
    const next = captureOutput();
    await withLogLevel('debug', () =>
      buffered(() =>
        edgeHandler(() => {
          log('info', 'second request');
          return Promise.resolve({ statusCode: 204 });
        }),
      )(
        { ...event, headers: { ...event.headers, 'x-request-id': 'second-request' } },
        {
          ...context,
          awsRequestId: 'lambda-request-2',
        },
      ),
    ).finally(() => {
      next.stop();
    });
    expect(next.json()).toEqual([
      expect.objectContaining({
        message: 'second request',
        requestId: 'second-request',
        function_request_id: 'lambda-request-2',
      }),
    ]);
  });
});
