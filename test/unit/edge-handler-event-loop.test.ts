import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { ApiEvent } from '@shared/http/api-types';
import { edgeHandler } from '@shared/http/edge-handler';
import { installAwsLambdaGlobal, invokeCollected, isStreamingHandler } from '@shared/local/lambda-streaming';

describe('the streamed edge handler and the runtime event loop', () => {
  it('sets callbackWaitsForEmptyEventLoop = false, so a write left on the loop cannot hold the invocation to its timeout', async () => {
    installAwsLambdaGlobal();
    const handler: unknown = edgeHandler(() =>
      Promise.resolve({ statusCode: 302, headers: { Location: 'https://example.com/' }, body: '' }),
    );
    expect(isStreamingHandler(handler)).toBe(true);
    if (!isStreamingHandler(handler)) return;
    // What the Node.js runtime's streaming context hands the handler: waiting for an empty loop.
    const context = {
      callbackWaitsForEmptyEventLoop: true,
      awsRequestId: 'req-1',
      functionName: 'edge-links',
      getRemainingTimeInMillis: () => 10_000,
    } as unknown as Context;
    const event = {
      routeKey: 'GET /{key}',
      rawPath: '/abc',
      rawQueryString: '',
      headers: { host: 'go.example.com' },
      requestContext: { http: { method: 'GET', sourceIp: '203.0.113.1' } },
    } as unknown as ApiEvent;
    const answer = await invokeCollected(handler, event, context);
    expect(answer.statusCode).toBe(302);
    expect(context.callbackWaitsForEmptyEventLoop).toBe(false);
  });
});
