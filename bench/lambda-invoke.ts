import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import type { ApiEvent, ApiResult } from '@shared/http/api-types';
import { distDir } from '../scripts/build';
import { lambdaContext } from '@shared/local/local-server';
import { invokeStreamed, isStreamingHandler } from '@shared/local/lambda-streaming';

export type BundledHandler = (event: ApiEvent, context: Context) => Promise<ApiResult | undefined>;

/**
 * Imports a built bundle (dist/<handler>/index.mjs), the very file that is deployed. `instance`
 * gives a fresh module instance (own SDK client, own config read on first use), so one process
 * can run the same bundle against two endpoints (capacity proxy, then DynamoDB Local directly).
 */
export const importBundle = async (handler: string, instance: string): Promise<BundledHandler> => {
  const url = `${pathToFileURL(path.join(distDir, handler, 'index.mjs')).href}?instance=${instance}`;
  return ((await import(url)) as { handler: BundledHandler }).handler;
};

export interface InvokeRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  json?: unknown;
  pathParameters?: Record<string, string>;
  query?: Record<string, string>;
}

/** An API Gateway HTTP API (payload 2.0) event, as the local server builds it. */
export const apiEvent = (request: InvokeRequest): ApiEvent => {
  const headers: Record<string, string> = {
    'user-agent': PHONE_UA,
    ...(request.json !== undefined ? { 'content-type': 'application/json' } : {}),
  };
  for (const [k, v] of Object.entries(request.headers ?? {})) headers[k.toLowerCase()] = v;
  const body = request.json === undefined ? undefined : Buffer.from(JSON.stringify(request.json)).toString('base64');
  const now = Date.now();
  const query = request.query ?? {};
  const host = headers.host ?? 'localhost';
  return {
    version: '2.0',
    routeKey: `${request.method} ${request.path}`,
    rawPath: request.path,
    rawQueryString: new URLSearchParams(query).toString(),
    headers,
    queryStringParameters: Object.keys(query).length ? query : undefined,
    pathParameters: request.pathParameters,
    requestContext: {
      accountId: 'bench',
      apiId: 'bench',
      domainName: host,
      domainPrefix: host.split('.')[0] ?? host,
      http: {
        method: request.method,
        path: request.path,
        protocol: 'HTTP/1.1',
        sourceIp: '203.0.113.7',
        userAgent: headers['user-agent'] ?? PHONE_UA,
      },
      requestId: randomUUID(),
      routeKey: `${request.method} ${request.path}`,
      stage: '$default',
      time: new Date(now).toUTCString(),
      timeEpoch: now,
    },
    body,
    isBase64Encoded: body !== undefined,
  };
};

const context = (): Context => lambdaContext({ handler: 'bench' });

/** Node's fetch says `node`, which counts as a bot; clicks are measured as a phone's. */
export const PHONE_UA =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

export interface TimedInvocation {
  result: ApiResult;
  /** Until the client has the whole response: a streamed (edge) handler's stream ended, a buffered one's return. */
  responseMs: number;
  /** Until the handler returned: the invocation's (billed) duration, work after a streamed response included. */
  finishedMs: number;
}

/**
 * Invokes a handler with an event, timing the client's wait and the whole invocation apart (the
 * edge ends its response stream, then records the click); throws on an unexpected status so a
 * broken run is not timed.
 */
export const invokeTimed = async (
  handler: BundledHandler,
  request: InvokeRequest,
  expect: number[],
): Promise<TimedInvocation> => {
  const event = apiEvent(request);
  const start = performance.now();
  let result: ApiResult | undefined;
  let responseMs: number;
  if (isStreamingHandler(handler)) {
    const { response, finished } = invokeStreamed(handler, event, context());
    result = await response;
    responseMs = performance.now() - start;
    await finished;
  } else {
    result = await handler(event, context());
    responseMs = performance.now() - start;
  }
  const finishedMs = performance.now() - start;
  if (!result || !expect.includes(result.statusCode ?? 0)) {
    throw new Error(
      `${request.method} ${request.path}: status ${result?.statusCode}, expected ${expect.join('/')}: ${String(result?.body).slice(0, 300)}`,
    );
  }
  return { result, responseMs, finishedMs };
};

/** Invokes a handler with an event to its end; throws on an unexpected status so a broken run is not timed. */
export const invoke = async (handler: BundledHandler, request: InvokeRequest, expect: number[]): Promise<ApiResult> =>
  (await invokeTimed(handler, request, expect)).result;

export const jsonBody = (result: ApiResult): { data: Record<string, unknown> } =>
  JSON.parse(
    result.isBase64Encoded ? Buffer.from(result.body ?? '', 'base64').toString('utf8') : (result.body ?? ''),
  ) as { data: Record<string, unknown> };
