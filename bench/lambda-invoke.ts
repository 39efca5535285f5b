import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import type { ApiEvent, ApiResult } from '@shared/http/api-types';
import { distDir } from '../scripts/build';
import { lambdaContext } from '@shared/local/local-server';
import { invokeCollected, isStreamingHandler } from '@shared/local/lambda-streaming';
import { ORIGIN_VERIFY_HEADER, ORIGIN_VERIFY_VALUES_ENV } from '@shared/http/origin-verify';

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
  const headers: Record<string, string> = { 'user-agent': PHONE_UA, ...(request.json !== undefined ? { 'content-type': 'application/json' } : {}) };
  for (const [k, v] of Object.entries(request.headers ?? {})) headers[k.toLowerCase()] = v;
  const body = request.json === undefined ? undefined : Buffer.from(JSON.stringify(request.json)).toString('base64');
  const now = Date.now();
  const query = request.query ?? {};
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
      domainName: headers.host ?? 'localhost',
      domainPrefix: (headers.host ?? 'localhost').split('.')[0]!,
      http: { method: request.method, path: request.path, protocol: 'HTTP/1.1', sourceIp: '203.0.113.7', userAgent: headers['user-agent']! },
      requestId: randomUUID(),
      routeKey: `${request.method} ${request.path}`,
      stage: '$default',
      time: new Date(now).toUTCString(),
      timeEpoch: now,
    },
    body,
    isBase64Encoded: body !== undefined,
  } as ApiEvent;
};

const context = (): Context => lambdaContext({ handler: 'bench' });

/**
 * The headers CloudFront adds on the way to an edge function (the viewer's host as
 * x-forwarded-host, the origin-verify secret the local stack set): without them the edge
 * answers 403, as a function URL reached around the front door does.
 */
export const viaFrontDoor = (domain: string): Record<string, string> => ({
  host: domain,
  'x-forwarded-host': domain,
  [ORIGIN_VERIFY_HEADER]: (process.env[ORIGIN_VERIFY_VALUES_ENV] ?? '').split(',')[0] ?? '',
});

/** Node's fetch says `node`, which counts as a bot; clicks are measured as a phone's. */
export const PHONE_UA =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

/** Invokes a handler with an event; throws on an unexpected status so a broken run is not timed. */
export const invoke = async (handler: BundledHandler, request: InvokeRequest, expect: number[]): Promise<ApiResult> => {
  // The edge's handlers stream (function URLs, RESPONSE_STREAM): their answer is collected.
  const result = isStreamingHandler(handler) ? await invokeCollected(handler, apiEvent(request), context()) : await handler(apiEvent(request), context());
  if (!result || !expect.includes(result.statusCode ?? 0)) {
    throw new Error(`${request.method} ${request.path}: status ${result?.statusCode}, expected ${expect.join('/')}: ${String(result?.body).slice(0, 300)}`);
  }
  return result;
};

export const jsonBody = (result: ApiResult): { data: Record<string, unknown> } =>
  JSON.parse(result.isBase64Encoded ? Buffer.from(result.body ?? '', 'base64').toString('utf8') : (result.body ?? '')) as { data: Record<string, unknown> };
