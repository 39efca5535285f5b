import { InvokeStore } from '@aws/lambda-invoke-store';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ApiContext, ApiEvent } from '@shared/http/api-types';
import { afterResponse } from '@shared/http/after-response';
import { edgeHandler } from '@shared/http/edge-handler';
import { installAwsLambdaGlobal, invokeStreamed, isStreamingHandler } from '@shared/local/lambda-streaming';
import { lambdaContext } from '@shared/local/local-server';

const event = {
  version: '2.0',
  routeKey: 'GET /{key}',
  rawPath: '/abc',
  headers: { host: 'go.example.com', 'x-request-id': 'after-1' },
  requestContext: { http: { method: 'GET', path: '/abc', sourceIp: '127.0.0.1', userAgent: 'test' } },
  isBase64Encoded: false,
} as unknown as ApiEvent;

// Importing the local server marks the process as one serving concurrent invocations, so Powertools
// keeps each invocation's metrics in the invoke store, which Lambda's runtime creates before the
// first invocation: so does this file, which calls the handler directly.
beforeAll(() => InvokeStore.getInstanceAsync());

/** A function that answers at once and hands the handler work that finishes only when released. */
const answering = () => {
  const steps: string[] = [];
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const fn = () => {
    afterResponse(async () => {
      steps.push('recording started');
      await released;
      steps.push('recorded');
    });
    return Promise.resolve({ statusCode: 302, headers: { Location: 'https://example.com/' } });
  };
  return { fn, steps, release };
};

describe('edge handler: work after the response', () => {
  it('streamed (function URL): the stream ends with the whole answer first; the invocation returns once the work is done', async () => {
    const g = globalThis as { awslambda?: Record<string, unknown> };
    installAwsLambdaGlobal();
    try {
      const { fn, steps, release } = answering();
      const handler = edgeHandler(fn);
      expect(isStreamingHandler(handler)).toBe(true);
      if (!isStreamingHandler(handler)) return;
      const { response, finished } = invokeStreamed(handler, event, lambdaContext({ handler: 'edge-links' }));
      let returned = false;
      void finished.then(() => (returned = true));
      const answer = await response;
      expect(answer.statusCode).toBe(302);
      expect(answer.headers).toMatchObject({ Location: 'https://example.com/', 'X-Request-Id': 'after-1' });
      // The answer is out; the work has started only now and is still held, so the invocation runs on.
      expect(steps).toEqual(['recording started']);
      expect(returned).toBe(false);
      release();
      await finished;
      expect(steps).toEqual(['recording started', 'recorded']);
    } finally {
      delete g.awslambda?.streamifyResponse;
      delete g.awslambda?.HttpResponseStream;
    }
  });

  it('buffered (no streaming runtime, frozen on return): the work finishes before the response is returned', async () => {
    const { fn, steps, release } = answering();
    const handler = edgeHandler(fn);
    expect(isStreamingHandler(handler)).toBe(false);
    let returned = false;
    const result = handler(event, {} as ApiContext).then((r) => {
      returned = true;
      return r;
    });
    // Let every step that can run, run: the response is held by the work.
    await new Promise((resolve) => setImmediate(resolve));
    expect(steps).toEqual(['recording started']);
    expect(returned).toBe(false);
    release();
    expect((await result).statusCode).toBe(302);
    expect(steps).toEqual(['recording started', 'recorded']);
  });

  it('outside an edge invocation nothing takes the work: the caller runs it itself', () => {
    expect(afterResponse(() => Promise.resolve())).toBe(false);
  });
});
