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

/** Invokes a streaming handler and gathers its answer into a buffered result (the bench, tests). */
export const invokeCollected = async (handler: StreamingHandler, event: ApiEvent, context: Context): Promise<ApiResult> => {
  const stream = new CollectingStream();
  await handler(event, stream, context);
  return {
    statusCode: stream.prelude.statusCode ?? 200,
    headers: stream.prelude.headers,
    cookies: stream.prelude.cookies,
    body: Buffer.concat(stream.chunks).toString('utf8'),
  };
};
