import { InvokeStore } from '@aws/lambda-invoke-store';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import type { Context } from 'aws-lambda';
import type { ApiEvent, ApiResult } from '@shared/http/api-types';
import { routeTimeoutSeconds, type ApiName, type RouteDef } from '@shared/routes/route-types';
import { pickRequestId } from '@shared/http/middleware/request-id';
import { LAMBDA_RESPONSE_LIMIT_BYTES } from '@shared/pagination/response-budget';
import { ORIGIN_VERIFY_HEADER } from '@shared/http/origin-verify';
import { runViewerRequest } from '@lib/front-door/viewer-request-code';
import type { PreludeStream, ResponsePrelude } from './lambda-streaming';
import { invocationEventLoop } from './invocation-event-loop';
import { LocalInvocations, type InvocationEnd } from './local-invocations';
import { isConsolePath, serveConsole } from './console-static';
import { answerObservers } from './local-answers';

/** A handler as the local server invokes it; `streaming` is set for a RESPONSE_STREAM handler. */
export type LambdaHandler = ((event: ApiEvent, context: Context) => Promise<ApiResult | undefined>) & {
  streaming?: (event: ApiEvent, stream: PreludeStream, context: Context) => Promise<void>;
};
export type HandlerLoader = (route: RouteDef) => Promise<LambdaHandler>;

/** API Gateway refuses payloads over 10 MB with 413; so does the local server. */
const GATEWAY_MAX_BODY = 10 * 1024 * 1024;

/**
 * Lambda's synchronous invocation request limit (6 MB): the whole event, the body base64-encoded
 * in it (multipart and binary bodies are), headers included. API Gateway cannot invoke the
 * function with a larger event; the local server answers 413 as well, before any handler runs.
 */
export const LAMBDA_REQUEST_LIMIT_BYTES = 6_291_456;

const gatewayAnswer = (statusCode: number, message: string): ApiResult => ({
  statusCode,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ message }),
});

/** What API Gateway answers when the function failed (an error, a timeout, a response over 6 MB). */
const functionFailed = (route: RouteDef, reason: string, details: Record<string, unknown> = {}): ApiResult => {
  console.error(
    JSON.stringify({
      level: 'error',
      message: 'local Lambda invocation failed',
      route: `${route.method} ${route.path}`,
      reason,
      ...details,
    }),
  );
  return gatewayAnswer(500, 'Internal Server Error');
};

/** A timer that settles with 'timeout' after `ms`, and its cancel. */
const timeoutAfter = (ms: number) => {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => {
      resolve('timeout');
    }, ms);
  });
  return {
    timedOut,
    cancel: () => {
      clearTimeout(timer);
    },
  };
};

/**
 * Invokes a handler as Lambda would: with its route's timeout (the context's remaining time
 * counts down from it, and a handler still running at the end is a failed invocation), and with
 * its result refused when the serialized response is over Lambda's 6 MB limit. The timeout starts
 * here, when the invocation runs (after any wait for a free slot, LocalInvocations).
 */
const invokeAsLambda = async (
  handler: LambdaHandler,
  event: ApiEvent,
  route: RouteDef,
  report: (end: InvocationEnd) => void,
): Promise<ApiResult | undefined> => {
  const timeoutMs = routeTimeoutSeconds(route) * 1000;
  const { timedOut, cancel } = timeoutAfter(timeoutMs);
  const context = lambdaContext(route, Date.now() + timeoutMs);
  let status: InvocationEnd['status'] = 'success';
  try {
    const result = await Promise.race([
      invocationScoped(context.awsRequestId, () => handler(event, context)),
      timedOut,
    ]);
    if (result === 'timeout') {
      status = 'timeout';
      return functionFailed(route, `Task timed out after ${timeoutMs / 1000} seconds`);
    }
    const size = Buffer.byteLength(JSON.stringify(result ?? null));
    if (size > LAMBDA_RESPONSE_LIMIT_BYTES) {
      status = 'error';
      return functionFailed(
        route,
        `Response payload size (${size} bytes) exceeded maximum allowed payload size (${LAMBDA_RESPONSE_LIMIT_BYTES} bytes)`,
      );
    }
    return result;
  } catch (error) {
    status = 'error';
    throw error;
  } finally {
    cancel();
    report({
      functionName: context.functionName,
      awsRequestId: context.awsRequestId,
      rawPath: event.rawPath,
      status,
      waitedForEmptyEventLoop: false,
    });
  }
};

/**
 * Invokes a RESPONSE_STREAM handler as Lambda's Node.js runtime does: the prelude and body go to
 * the client as the handler writes them, and the client has its whole answer when the handler
 * ends the stream, even if the handler goes on working (the edge records the click after
 * answering). The invocation, its timeout and its concurrency slot last until the handler
 * returns and then, unless the handler set `context.callbackWaitsForEmptyEventLoop = false`,
 * until its event loop is empty: the runtime's streaming context waits for that by default, so a
 * socket or timer the invocation left behind keeps it running (invocation-event-loop.ts). An
 * invocation still running at its timeout is stopped there and logged as timed out (with what
 * held it): a response not yet begun is a failed invocation, one under way is cut off (Lambda
 * ends the stream at the timeout). Every end is reported (`report`), with its status and what
 * was left on its loop.
 */
const invokeStreamingAsLambda = async (
  streaming: NonNullable<LambdaHandler['streaming']>,
  event: ApiEvent,
  route: RouteDef,
  res: ServerResponse,
  report: (end: InvocationEnd) => void,
): Promise<void> => {
  const timeoutMs = routeTimeoutSeconds(route) * 1000;
  const { timedOut, cancel } = timeoutAfter(timeoutMs);
  const context = lambdaContext(route, Date.now() + timeoutMs);
  const loop = invocationEventLoop();
  let status: InvocationEnd['status'] = 'success';
  let waited = false;
  try {
    const handled = loop.run(() =>
      invocationScoped(context.awsRequestId, () => streaming(event, new ServerResponseStream(res), context)),
    );
    // Attached here, outside the invocation's loop: the wait is the runtime's, not the invocation's.
    const ended = handled.then(async () => {
      if (!context.callbackWaitsForEmptyEventLoop) return;
      waited = true;
      await loop.emptied();
    });
    const outcome = await Promise.race([ended, timedOut]);
    if (outcome !== 'timeout') return;
    status = 'timeout';
    const failed = functionFailed(route, `Task timed out after ${timeoutMs / 1000} seconds`, {
      leftOnEventLoop: loop.holding(),
    });
    if (!res.headersSent) writeResult(res, failed, event.requestContext.http.method);
    else if (!res.writableEnded) res.end();
  } catch (error) {
    status = 'error';
    throw error;
  } finally {
    cancel();
    // What is left is read after a turn of the loop, as the runtime posts the invocation's end
    // first: a socket destroyed just before the handler returned has closed by then.
    await loopTurn();
    report({
      functionName: context.functionName,
      awsRequestId: context.awsRequestId,
      rawPath: event.rawPath,
      status,
      waitedForEmptyEventLoop: waited,
      leftOnEventLoop: loop.close(),
    });
  }
};

/** One full turn of the event loop (its close callbacks included). */
const loopTurn = () =>
  new Promise<void>((resolve) =>
    setImmediate(() =>
      setImmediate(() => {
        resolve();
      }),
    ),
  );

interface CompiledRoute {
  route: RouteDef;
  pattern: RegExp;
  params: string[];
}

const compile = (route: RouteDef): CompiledRoute => {
  const params: string[] = [];
  const source = route.path
    .split('/')
    .map((segment) => {
      const greedy = /^\{(\w+)\+\}$/.exec(segment)?.[1];
      if (greedy) {
        params.push(greedy);
        return '(.+)';
      }
      const param = /^\{(\w+)\}$/.exec(segment)?.[1];
      if (param) {
        params.push(param);
        return '([^/]+)';
      }
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return { route, pattern: new RegExp(`^${source}$`), params };
};

/** Literal paths win over parameterised ones, as in API Gateway. */
const specificity = (r: RouteDef) => (r.path.includes('{') ? (r.path.includes('+}') ? 2 : 1) : 0);

/**
 * The local stand-in for an API Gateway HTTP API: turns each request into a payload-2.0 event
 * and invokes the same handler Lambda runs.
 */
export const createLocalApiServer = (options: {
  api: ApiName;
  routes: readonly RouteDef[];
  loadHandler: HandlerLoader;
  /**
   * The edge's stand-in for CloudFront: runs the deployed viewer-request function (Host copied
   * to x-forwarded-host), sends the origin its own Host, adds the origin-verify secret and, when
   * the client did not send one (a test may, standing in for CloudFront's geolocation),
   * `CloudFront-Viewer-Address` from the socket. `CloudFront-Viewer-Country` passes as sent.
   * With `edgeFunction` (hot links on), the link paths (CloudFront's default behaviour) first go
   * to it: when it answers, that is the answer and no function runs.
   */
  frontDoor?: {
    originSecret: string;
    edgeFunction?: (request: EdgeFunctionRequest) => Promise<ApiResult | null>;
  };
  /** Lambda's concurrency stand-in (shared by the servers of one stack); one of its own when omitted. */
  invocations?: LocalInvocations;
  /** Called with one line per request once it is answered (`npm start` prints them); none when omitted. */
  requestLog?: (line: string) => void;
  /** The web console's built files (console/dist), served at /console/ on this API's origin. */
  consoleDir?: string;
}): Server => {
  const invocations = options.invocations ?? new LocalInvocations();
  const fallback = options.routes.find((r) => r.api === options.api && r.path === '$default');
  // HTTP APIs match `/v1/links/` as `/v1/links` (rawPath keeps the slash). The edge keeps its
  // exact matching: it moves off API Gateway (Lambda function URLs behind CloudFront).
  const ignoreTrailingSlash = options.api === 'service';
  const compiled = options.routes
    .filter((r) => r.api === options.api && r.path !== '$default')
    .sort((a, b) => specificity(a) - specificity(b))
    .map(compile);

  return createServer((req, res) => {
    if (options.requestLog) logWhenAnswered(req, res, options.api, options.requestLog);
    const { consoleDir } = options;
    const serve =
      consoleDir !== undefined && isConsolePath(new URL(req.url ?? '/', 'http://local').pathname)
        ? serveConsole(req, res, consoleDir)
        : handle(req, res);
    serve.catch((error: unknown) => {
      console.error(JSON.stringify({ level: 'error', message: 'local server failure', error: String(error) }));
      if (res.writableEnded) return;
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: 'Internal Server Error' }));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > GATEWAY_MAX_BODY) {
        res.writeHead(413, { 'content-type': 'application/json', connection: 'close' });
        res.end(JSON.stringify({ message: 'Request Entity Too Large' }));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    }
    const body = Buffer.concat(chunks);
    const url = new URL(req.url ?? '/', 'http://local');
    const method = (req.method ?? 'GET').toUpperCase();
    let rawPath: string;
    try {
      rawPath = decodeURIComponent(url.pathname);
    } catch {
      rawPath = url.pathname;
    }

    const matchPath = ignoreTrailingSlash && url.pathname.length > 1 ? url.pathname.replace(/\/$/, '') : url.pathname;
    let match: { route: RouteDef; pathParameters: Record<string, string> } | undefined;
    for (const c of compiled) {
      if (c.route.method !== method && c.route.method !== 'ANY') continue;
      const m = c.pattern.exec(matchPath);
      if (!m) continue;
      const pathParameters: Record<string, string> = {};
      c.params.forEach((name, i) => {
        const value = m[i + 1] ?? '';
        try {
          pathParameters[name] = decodeURIComponent(value);
        } catch {
          pathParameters[name] = value;
        }
      });
      match = { route: c.route, pathParameters };
      break;
    }

    if (!match && fallback) match = { route: fallback, pathParameters: {} };
    const event = toEvent(req, url, rawPath, method, body, match);
    requestIds.set(res, event.requestContext.requestId);
    const edgeFunction = options.frontDoor?.edgeFunction;
    if (edgeFunction && onDefaultBehavior(match?.route)) {
      const answered = await edgeFunction({
        method,
        path: url.pathname,
        query: url.searchParams,
        headers: { ...(event.headers as Record<string, string>) },
        sourceIp: event.requestContext.http.sourceIp,
      });
      if (answered) {
        writeResult(res, answered, method);
        return;
      }
    }
    if (options.frontDoor) throughFrontDoor(event, req, options.frontDoor.originSecret);
    let result: ApiResult | undefined;
    if (!match) {
      result = gatewayAnswer(404, 'Not Found');
    } else if (Buffer.byteLength(JSON.stringify(event)) > LAMBDA_REQUEST_LIMIT_BYTES) {
      result = gatewayAnswer(413, 'Request Entity Too Large');
    } else {
      const { route } = match;
      const handler = await options.loadHandler(route);
      const streaming = handler.streaming;
      const report = (end: InvocationEnd) => {
        invocations.ended(end);
      };
      if (streaming) {
        await invocations.run(() => invokeStreamingAsLambda(streaming, event, route, res, report));
        return;
      }
      result = await invocations.run(() => invokeAsLambda(handler, event, route, report));
    }
    const answer = result ?? { statusCode: 204 };
    for (const observe of answerObservers())
      observe({ api: options.api, method, path: url.pathname, route: match?.route, result: answer });
    writeResult(res, answer, method);
  }
};

const toEvent = (
  req: IncomingMessage,
  url: URL,
  rawPath: string,
  method: string,
  body: Buffer,
  match: { route: RouteDef; pathParameters: Record<string, string> } | undefined,
): ApiEvent => {
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    if (lower === 'cookie') {
      cookies.push(...String(value).split(/;\s*/).filter(Boolean));
      continue;
    }
    headers[lower] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) query[k] = k in query ? `${query[k]},${v}` : v;
  const now = Date.now();
  return {
    version: '2.0',
    routeKey: routeKeyOf(match?.route),
    rawPath: url.pathname,
    rawQueryString: url.search.replace(/^\?/, ''),
    cookies: cookies.length ? cookies : undefined,
    headers,
    queryStringParameters: Object.keys(query).length ? query : undefined,
    pathParameters: match && Object.keys(match.pathParameters).length ? match.pathParameters : undefined,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: (headers.host ?? 'localhost').split('.')[0] ?? '',
      http: {
        method,
        path: rawPath,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, ''),
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: pickRequestId(undefined),
      routeKey: routeKeyOf(match?.route),
      stage: '$default',
      time: new Date(now).toUTCString(),
      timeEpoch: now,
    },
    body: body.length ? body.toString('base64') : undefined,
    isBase64Encoded: body.length > 0,
  };
};

/** A viewer request as the edge function sees it (shared/local/local-edge-hot-links.ts). */
export interface EdgeFunctionRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string>;
  sourceIp: string;
}

/**
 * A request on the distribution's default behaviour (`*`, the link paths): the edge routes with
 * a parameter or the catch-all; the fixed paths (`/.well-known/...`, the launch-view beacon) are
 * behaviours of their own, as the stack declares them.
 */
const onDefaultBehavior = (route: RouteDef | undefined): boolean =>
  route === undefined || route.path === '$default' || route.path.includes('{');

const throughFrontDoor = (event: ApiEvent, req: IncomingMessage, originSecret: string) => {
  const headers = event.headers as Record<string, string>;
  const viewer = runViewerRequest({
    method: event.requestContext.http.method,
    uri: event.rawPath,
    querystring: {},
    headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, { value: v }])),
    cookies: {},
  });
  const forwarded = viewer.headers['x-forwarded-host']?.value;
  if (forwarded) headers['x-forwarded-host'] = forwarded;
  else delete headers['x-forwarded-host'];
  headers.host = `${req.socket.localAddress ?? '127.0.0.1'}:${req.socket.localPort ?? 0}`;
  headers[ORIGIN_VERIFY_HEADER] = originSecret;
  headers['cloudfront-viewer-address'] ??= `${event.requestContext.http.sourceIp}:${req.socket.remotePort ?? 0}`;
};

/** The function URL's response stream over the local HTTP response: prelude first, then body chunks. */
class ServerResponseStream extends Writable implements PreludeStream {
  constructor(private readonly res: ServerResponse) {
    super();
  }
  setPrelude(prelude: ResponsePrelude) {
    const headers: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(prelude.headers ?? {})) headers[k] = String(v);
    if (prelude.cookies?.length) headers['set-cookie'] = prelude.cookies;
    noteRequestId(this.res, headers);
    this.res.writeHead(prelude.statusCode ?? 200, headers);
  }
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: (error?: Error | null) => void) {
    if (!this.res.headersSent) this.res.writeHead(200, { 'content-type': 'application/octet-stream' });
    this.res.write(chunk, callback);
  }
  override _final(callback: (error?: Error | null) => void) {
    if (!this.res.headersSent) this.res.writeHead(200);
    this.res.end(() => {
      callback();
    });
  }
}

/**
 * Each response's request id, for its request line: the one the function echoed in
 * `X-Request-Id` (the caller's, or one it made), else API Gateway's for the request.
 */
const requestIds = new WeakMap<ServerResponse, string>();

const noteRequestId = (res: ServerResponse, headers: Record<string, string | string[]>) => {
  const echoed = Object.entries(headers).find(([name]) => name.toLowerCase() === 'x-request-id')?.[1];
  if (typeof echoed === 'string') requestIds.set(res, echoed);
};

/**
 * One line per request when its response ends, e.g. `GET /v1/links 200 12ms req=<id>`; on the
 * edge, `edge GET go.example.com/spring 302 3ms req=<id>` (the Host names the link domain). The
 * path goes without its query string. A response cut short says `aborted`.
 */
const logWhenAnswered = (req: IncomingMessage, res: ServerResponse, api: ApiName, print: (line: string) => void) => {
  const started = performance.now();
  res.once('close', () => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const target =
      api === 'edge'
        ? `edge ${req.method ?? 'GET'} ${req.headers.host ?? ''}${path}`
        : `${req.method ?? 'GET'} ${path}`;
    const status = res.headersSent ? String(res.statusCode) : '-';
    const ms = Math.round(performance.now() - started);
    const id = requestIds.get(res);
    print(`${target} ${status} ${ms}ms${id ? ` req=${id}` : ''}${res.writableFinished ? '' : ' aborted'}`);
  });
};

const routeKeyOf = (route: RouteDef | undefined) =>
  !route || route.path === '$default' ? '$default' : `${route.method} ${route.path}`;

// Set at load, before any SDK client asks for the invoke store (the SDK creates a single-context
// store otherwise, and the first one created is the process's).
process.env.AWS_LAMBDA_MAX_CONCURRENCY ??= '1000';

/**
 * Runs one invocation in its own invoke-store scope, as Lambda's runtime does when one process
 * serves concurrent invocations: Powertools keeps each request's log keys (requestId, route) and
 * metrics apart, where the local server runs many requests at once in one process.
 */
const invocationScoped = async <T>(awsRequestId: string, fn: () => Promise<T>): Promise<T> => {
  const store = await InvokeStore.getInstanceAsync(true);
  return store.run({ [Symbol.for('_AWS_LAMBDA_REQUEST_ID')]: awsRequestId }, fn);
};

/** The runtime's callback-era context methods, kept (as no-ops) for handlers written against them. */
const legacyContextMethods = { done: () => undefined, fail: () => undefined, succeed: () => undefined };

/**
 * A Lambda context for one local invocation of a function named after its handler; its remaining
 * time runs to `deadline`. `callbackWaitsForEmptyEventLoop` starts true, as the runtime's does:
 * on a streamed invocation the local server then waits for the invocation's event loop.
 */
export const lambdaContext = (route: Pick<RouteDef, 'handler'>, deadline = Date.now() + 10_000): Context => ({
  ...legacyContextMethods,
  callbackWaitsForEmptyEventLoop: true,
  functionName: route.handler,
  functionVersion: '$LATEST',
  invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${route.handler}`,
  memoryLimitInMB: '512',
  awsRequestId: randomUUID(),
  logGroupName: `/aws/lambda/${route.handler}`,
  logStreamName: 'local',
  getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
});

const writeResult = (res: ServerResponse, result: ApiResult, method: string) => {
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(result.headers ?? {})) headers[k] = String(v);
  if (result.cookies?.length) headers['set-cookie'] = result.cookies;
  const body =
    result.body === undefined ? Buffer.alloc(0) : Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8');
  headers['content-length'] = String(body.length);
  noteRequestId(res, headers);
  res.writeHead(result.statusCode ?? 200, headers);
  res.end(method === 'HEAD' ? undefined : body);
};
