import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { Sha256 } from '@smithy/core/checksum';
import { HttpRequest } from '@smithy/core/transport';
import { NodeHttpHandler, streamCollector } from '@smithy/node-http-handler';
import { SignatureV4 } from '@smithy/signature-v4';

/** The part of the SDK's HttpHandler used here (tests answer through it without a server). */
export interface AwsRequestHandler {
  handle(request: HttpRequest): Promise<{ response: { statusCode: number; headers: Record<string, string | undefined>; body?: unknown } }>;
}

export interface AwsJsonCallOptions {
  /** SigV4 signing name, e.g. `firehose`, `athena`. */
  service: string;
  region: string;
  /** The X-Amz-Target prefix: the target is `<targetPrefix>.<operation>`. */
  targetPrefix: string;
  /** Default: https://<service>.<region>.amazonaws.com (tests: a loopback server). */
  endpoint?: string;
  /** Default: the SDK's Node credential chain. */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Default 5000 (ignored with a `requestHandler`). */
  requestTimeoutMs?: number;
  /** Default: a keep-alive NodeHttpHandler. */
  requestHandler?: AwsRequestHandler;
}

/** One operation of an AWS JSON 1.1 API; an error's `name` is the AWS error type (as the SDK names it). */
export type AwsJsonCall = (operation: string, input: unknown) => Promise<unknown>;

export class AwsServiceError extends Error {
  constructor(name: string, message: string, readonly statusCode: number) {
    super(message);
    this.name = name;
  }
}

const header = (headers: Record<string, string | undefined>, name: string) => {
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value;
  return undefined;
};

/**
 * An AWS JSON 1.1 protocol call (POST /, X-Amz-Target, SigV4) with the SDK's own building blocks,
 * already in every bundle for the DynamoDB client (SigV4 signer, credential chain, keep-alive Node
 * HTTP handler), instead of a service's client package, which carries the serializers of every
 * operation of its API (docs/benchmarks.md). Used for Firehose and Athena. One attempt per call
 * (retries, where wanted, are the caller's: see `withRetries`).
 */
export const createAwsJsonCall = (options: AwsJsonCallOptions): AwsJsonCall => {
  const endpoint = new URL(options.endpoint ?? `https://${options.service}.${options.region}.amazonaws.com`);
  const signer = new SignatureV4({
    service: options.service,
    region: options.region,
    credentials: options.credentials ?? defaultProvider(),
    sha256: Sha256,
  });
  const http: AwsRequestHandler = options.requestHandler ?? new NodeHttpHandler({ requestTimeout: options.requestTimeoutMs ?? 5000 });

  return async (operation, input) => {
    const body = JSON.stringify(input ?? {});
    const request = new HttpRequest({
      method: 'POST',
      protocol: endpoint.protocol,
      hostname: endpoint.hostname,
      port: endpoint.port ? Number(endpoint.port) : undefined,
      path: '/',
      headers: {
        host: endpoint.host,
        'content-type': 'application/x-amz-json-1.1',
        'x-amz-target': `${options.targetPrefix}.${operation}`,
        'content-length': String(Buffer.byteLength(body)),
      },
      body,
    });
    const signed = await signer.sign(request);
    const { response } = await http.handle(signed as HttpRequest);
    const text = Buffer.from(await streamCollector(response.body as never)).toString('utf8');
    const parsed = (text ? JSON.parse(text) : {}) as { __type?: string; message?: string; Message?: string };
    if (response.statusCode >= 300) {
      // `__type` may carry a namespace ("com.amazonaws...#Name"); the header wins when present.
      const type = (header(response.headers, 'x-amzn-errortype') ?? parsed.__type ?? (response.statusCode >= 500 ? 'ServiceUnavailableException' : 'UnknownError'))
        .split(':')[0]!
        .split('#')
        .pop()!;
      throw new AwsServiceError(type, parsed.message ?? parsed.Message ?? `${options.service} answered ${response.statusCode}`, response.statusCode);
    }
    return parsed;
  };
};

const THROTTLING = /Throttl|TooManyRequests|RequestLimitExceeded|SlowDown/;

const retryable = (error: unknown) =>
  !(error instanceof AwsServiceError) || error.statusCode >= 500 || error.statusCode === 429 || THROTTLING.test(error.name);

/**
 * Up to `maxAttempts` attempts per call (as the SDK's maxAttempts): throttling errors, 5xx answers
 * and connection errors are retried after about 100 ms, 200 ms, ... (with jitter); any other
 * error is thrown at once. Only for operations that are safe to repeat.
 */
export const withRetries =
  (call: AwsJsonCall, maxAttempts: number): AwsJsonCall =>
  async (operation, input) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await call(operation, input);
      } catch (error) {
        if (attempt >= maxAttempts || !retryable(error)) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** (attempt - 1) * (0.5 + Math.random() / 2)));
      }
    }
  };
