import { once } from 'node:events';
import middy, { type MiddlewareObj } from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Writable } from 'node:stream';
import { statusPage } from '@shared/edge/html/status-page';
import { log, logger } from '@shared/util/logger';
import { countIfThrottled, metrics } from '@shared/util/metrics';
import type { ApiContext, ApiEvent, ApiResult } from './api-types';
import { withAfterResponse } from './after-response';
import { originVerifyMiddleware } from './middleware/origin-verify';
import { requestIdMiddleware } from './middleware/request-id';

/** Any failure on the edge: logged with the request id, answered with a plain 500 page (no stack, no internals). */
const edgeErrorMiddleware = (): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> => ({
  onError: (request) => {
    const error = request.error;
    countIfThrottled(error, 'DynamoDB');
    log('error', 'edge request failed', {
      requestId: request.context.requestId,
      route: request.event.routeKey,
      error: error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : String(error),
    });
    request.response = statusPage(500);
  },
});

/** What the edge needs of the Lambda runtime's `awslambda` global (response streaming). */
interface StreamingRuntime {
  /** Marks a handler `(event, responseStream, context)`; the runtime then invokes it so. */
  streamifyResponse: <F>(fn: F) => F;
  /** Sends the status, headers and cookies on the stream before the first body byte. */
  fromPrelude: (stream: Writable, prelude: Omit<ApiResult, 'body'>) => Writable;
}

interface AwsLambdaGlobal {
  streamifyResponse?: <F>(fn: F) => F;
  HttpResponseStream?: { from?: (stream: Writable, prelude: Omit<ApiResult, 'body'>) => Writable };
}

/**
 * The runtime's response streaming, bound to its global, when this process is Lambda's Node.js
 * runtime (or a stand-in for it): the runtime provides the `awslambda` global with
 * `streamifyResponse` and `HttpResponseStream`; the local stack and the bench install the same
 * global (shared/local/lambda-streaming.ts). The SDK's invoke store also creates an `awslambda`
 * object, so the check is for the functions themselves. Undefined elsewhere.
 */
const streamingRuntime = (): StreamingRuntime | undefined => {
  const runtime = (globalThis as { awslambda?: AwsLambdaGlobal }).awslambda;
  const streamify = runtime?.streamifyResponse;
  const responseStream = runtime?.HttpResponseStream;
  const from = responseStream?.from;
  return typeof streamify === 'function' && typeof from === 'function'
    ? { streamifyResponse: streamify.bind(runtime), fromPrelude: from.bind(responseStream) }
    : undefined;
};

/** Writes a string in chunks of Node's default high-water mark, waiting for `drain` when the stream asks. */
const CHUNK = 16_384;
const writeChunks = async (stream: Writable, body: string): Promise<void> => {
  for (let at = 0; at < body.length; at += CHUNK) {
    if (!stream.write(body.slice(at, at + CHUNK)) && at + CHUNK < body.length) await once(stream, 'drain');
  }
};

/**
 * Sends a response on the runtime's response stream: the prelude (status, headers, cookies),
 * flushed at once, then the body, and ends the stream: the visitor has the whole answer when this
 * settles.
 */
const streamResult = async (runtime: StreamingRuntime, stream: Writable, result: ApiResult): Promise<void> => {
  const { body, ...prelude } = result;
  const out = runtime.fromPrelude(stream, prelude);
  out.write('');
  await writeChunks(out, body ?? '');
  await new Promise<void>((resolve, reject) => {
    out.once('error', reject);
    out.end(() => {
      resolve();
    });
  });
};

/**
 * An edge function's Lambda handler: invoked by the streaming runtime with a response stream, or
 * with the event and context alone (a process without the streaming runtime: a unit test), which
 * gets the response back.
 */
export interface EdgeLambdaHandler {
  (event: ApiEvent, context: ApiContext): Promise<ApiResult>;
  (event: ApiEvent, stream: Writable, context: ApiContext): Promise<undefined>;
}

/**
 * Builds an edge Lambda handler (the short-link edge is not v1: HTML pages and redirects, no
 * envelope, no credential): request id (`X-Request-Id`), the front door's origin-verify check,
 * then the function, errors as a 500 page.
 *
 * The edge's Lambdas are CloudFront's origins through function URLs with invoke mode
 * RESPONSE_STREAM: the handler writes the status and headers, then the body, and ends the
 * response stream; the visitor has the whole answer then. Work the function handed to
 * `afterResponse` (shared/http/after-response.ts: the click's recording) is awaited only after
 * that, in the same invocation, which lasts (and is billed) until it settles (docs/edge.md, "After
 * the response"). Metrics a request added (failure paths only) are written as one EMF line at
 * the very end.
 *
 * Called without a stream (a process without the streaming runtime, a unit test importing the
 * module), it answers buffered: it awaits the after-response work, then returns the response (a
 * buffered Lambda is frozen once it returns).
 */
export const edgeHandler = (fn: (event: ApiEvent, context: ApiContext) => Promise<ApiResult>): EdgeLambdaHandler => {
  const runtime = streamingRuntime();
  const chain = middy<ApiEvent, ApiResult, Error, ApiContext>(fn)
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(requestIdMiddleware())
    .use(originVerifyMiddleware())
    .use(edgeErrorMiddleware());

  /**
   * One invocation: the chain and `send`, which hands the visitor the response, then the
   * after-response work, then the metrics.
   */
  const invocation = async <T>(
    event: ApiEvent,
    context: ApiContext,
    send: (r: ApiResult) => Promise<T>,
  ): Promise<T> => {
    const { result, settle } = withAfterResponse(() => chain(event, context));
    try {
      return await send(await result);
    } finally {
      await settle();
      metrics.publishStoredMetrics();
    }
  };

  const streamed = async (
    streaming: StreamingRuntime,
    event: ApiEvent,
    stream: Writable,
    context: ApiContext,
  ): Promise<undefined> => {
    // The Node.js runtime waits for the event loop to drain before ending a streamed invocation
    // (its streaming context defaults this to true): a stalled write left on the loop would
    // keep the invocation alive to its timeout. The invocation ends when `invocation` settles.
    context.callbackWaitsForEmptyEventLoop = false;
    await invocation(event, context, (response) => streamResult(streaming, stream, response));
    return undefined;
  };

  function handler(event: ApiEvent, context: ApiContext): Promise<ApiResult>;
  function handler(event: ApiEvent, stream: Writable, context: ApiContext): Promise<undefined>;
  function handler(...args: [ApiEvent, ApiContext] | [ApiEvent, Writable, ApiContext]): Promise<ApiResult | undefined> {
    if (args.length === 3) {
      if (!runtime) return Promise.reject(new Error('A response stream was given without the streaming runtime'));
      return streamed(runtime, ...args);
    }
    const [event, context] = args;
    return invocation(event, context, (response) => Promise.resolve(response));
  }
  return runtime ? runtime.streamifyResponse(handler) : handler;
};
