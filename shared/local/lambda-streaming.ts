import { Writable } from 'node:stream';
import type { Context } from 'aws-lambda';
import type { ApiEvent, ApiResult } from '@shared/http/api-types';

/**
 * The Lambda Node.js runtime's `awslambda` global, for processes that serve the real handler
 * modules outside Lambda (the local stack, the bench). Same contract as the runtime:
 * `streamifyResponse(fn)` marks a handler `(event, responseStream, context)`, and
 * `HttpResponseStream.from(stream, prelude)` sends the status, headers and cookies before the
 * first body byte. Installed before any handler module is imported (Middy reads it at import).
 */
const STREAMING = Symbol.for('aws.lambda.runtime.handler.streaming');

export interface ResponsePrelude {
  statusCode?: number;
  headers?: Record<string, string | number | boolean>;
  cookies?: string[];
}

/** A response stream that can take the prelude (what HttpResponseStream.from hands it). */
export interface PreludeStream extends Writable {
  setPrelude(prelude: ResponsePrelude): void;
}

type StreamingHandler = (event: ApiEvent, stream: PreludeStream, context: Context) => Promise<void>;

export const installAwsLambdaGlobal = (): void => {
  // The SDK's invoke store may have created the object already (it keeps its own state there).
  const g = globalThis as { awslambda?: Record<string, unknown> };
  g.awslambda ??= {};
  if (typeof g.awslambda.streamifyResponse === 'function') return;
  Object.assign(g.awslambda, {
    streamifyResponse: (fn: StreamingHandler) => Object.assign(fn, { [STREAMING]: 'response' }),
    HttpResponseStream: {
      from: (stream: PreludeStream, prelude: ResponsePrelude) => {
        stream.setPrelude(prelude);
        return stream;
      },
    },
  });
};

export const isStreamingHandler = (handler: unknown): handler is StreamingHandler =>
  typeof handler === 'function' && (handler as unknown as Record<symbol, unknown>)[STREAMING] === 'response';

/** A stream that collects the prelude and the body. */
class CollectingStream extends Writable implements PreludeStream {
  prelude: ResponsePrelude = {};
  chunks: Buffer[] = [];
  setPrelude(prelude: ResponsePrelude) {
    this.prelude = prelude;
  }
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void) {
    this.chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
    callback();
  }
}

/** A streamed invocation: the response as the client has it once the stream ends, and the whole invocation. */
export interface StreamedInvocation {
  /** Resolves when the handler ends the response stream (or returns without ending it): what the client waits for. */
  response: Promise<ApiResult>;
  /** Resolves when the handler returns: the invocation's duration, work after the response included. */
  finished: Promise<void>;
}

/**
 * Invokes a streaming handler, gathering its answer: `response` settles when the stream ends, as
 * a function URL's client has its whole response then, and `finished` when the handler returns
 * (the edge records the click in between).
 */
export const invokeStreamed = (handler: StreamingHandler, event: ApiEvent, context: Context): StreamedInvocation => {
  const stream = new CollectingStream();
  const ended = new Promise<void>((resolve) =>
    stream.once('finish', () => {
      resolve();
    }),
  );
  const finished = handler(event, stream, context);
  const collected = (): ApiResult => ({
    statusCode: stream.prelude.statusCode ?? 200,
    headers: stream.prelude.headers,
    cookies: stream.prelude.cookies,
    body: Buffer.concat(stream.chunks).toString('utf8'),
  });
  const response = Promise.race([ended, finished]).then(collected);
  return { response, finished };
};

/** Invokes a streaming handler to its end and gathers its answer into a buffered result (the local stack's buffered entry, tests). */
export const invokeCollected = async (
  handler: StreamingHandler,
  event: ApiEvent,
  context: Context,
): Promise<ApiResult> => {
  const { response, finished } = invokeStreamed(handler, event, context);
  response.catch(() => undefined);
  await finished;
  return response;
};
