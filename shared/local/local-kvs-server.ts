import { CloudFrontKeyValueStoreClient } from '@aws-sdk/client-cloudfront-keyvaluestore';
import { Agent, createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { LocalKeyValueStore } from '@shared/edge/hot-links/function-sandbox';

/**
 * A local CloudFront KeyValueStore API (`npm start` with hot links on, and the tests): an HTTP server speaking that service's
 * REST-JSON wire format for DescribeKeyValueStore (`GET /key-value-stores/{arn}`, ETag header),
 * ListKeys (`GET .../keys`, NextToken/MaxResults) and UpdateKeys (`POST .../keys`, If-Match
 * header, Puts/Deletes body), over one in-memory store with CloudFront's limits (key 512 bytes,
 * value 1 KB, store 5 MB): the `LocalKeyValueStore` the sandboxed hot-link function reads
 * (function-sandbox.ts), so what the official client writes is what the local edge answers. A stale If-Match is a 409 ConflictException, as the service answers
 * it. Requests are recorded with their signing headers; signatures are not verified.
 *
 * The client's endpoint rules put the store's account id in front of the endpoint's host
 * (`{account}.{host}`, as `{account}.cloudfront-kvs.global.api.aws`), so the endpoint is a name
 * (`kvs.loopback`) and `requestHandler` resolves every name to this server's loopback address.
 */
export interface LocalKvs {
  endpoint: string;
  /** The client's request handler: every host name resolves to 127.0.0.1. */
  requestHandler: NodeHttpHandler;
  arn: string;
  /** The store the server writes and the sandboxed function reads. */
  store: LocalKeyValueStore;
  /** A snapshot of the store's keys and values. */
  readonly entries: Map<string, string>;
  etag(): string;
  requests: { method: string; path: string; authorization: string | undefined; regionSet: string | undefined }[];
  stop(): Promise<void>;
}

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

const bodyOf = async (req: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

export const LOCAL_KVS_ARN = 'arn:aws:cloudfront::123456789012:key-value-store/0a1b2c3d-4e5f-6789-abcd-ef0123456789';

export const startLocalKvs = async (
  arn = LOCAL_KVS_ARN,
  store: LocalKeyValueStore = new LocalKeyValueStore(),
): Promise<LocalKvs> => {
  const snapshot = () => new Map(store.keys().map((k) => [k, store.get(k) ?? '']));
  let version = 1;
  const etag = () => `ETAG${String(version)}`;
  const size = () => store.sizeBytes;
  const requests: LocalKvs['requests'] = [];

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://loopback');
      requests.push({
        method: req.method ?? '',
        path: url.pathname,
        authorization: req.headers.authorization,
        regionSet: req.headers['x-amz-region-set'] as string | undefined,
      });
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(body));
      };
      const fail = (status: number, type: string, message: string) => {
        send(status, { Message: message }, { 'x-amzn-errortype': type });
      };
      const match = /^\/key-value-stores\/([^/]+)(\/keys)?$/.exec(url.pathname);
      if (!match?.[1] || decodeURIComponent(match[1]) !== arn) {
        fail(404, 'ResourceNotFoundException', 'no such key value store');
        return;
      }
      const keysPath = match[2] !== undefined;
      if (req.method === 'GET' && !keysPath) {
        send(
          200,
          { KvsARN: arn, Created: 1767225600, ItemCount: store.keyCount, TotalSizeInBytes: size(), Status: 'READY' },
          { ETag: etag() },
        );
        return;
      }
      if (req.method === 'GET' && keysPath) {
        const max = Number(url.searchParams.get('MaxResults') ?? '50');
        const start = Number(url.searchParams.get('NextToken') ?? '0');
        const all = [...snapshot()].sort(([a], [b]) => a.localeCompare(b));
        const page = all.slice(start, start + max);
        send(200, {
          Items: page.map(([Key, Value]) => ({ Key, Value })),
          ...(start + max < all.length ? { NextToken: String(start + max) } : {}),
        });
        return;
      }
      if (req.method === 'POST' && keysPath) {
        if (req.headers['if-match'] !== etag()) {
          fail(409, 'ConflictException', 'the ETag does not match the store');
          return;
        }
        const input = JSON.parse(await bodyOf(req)) as {
          Puts?: { Key: string; Value: string }[];
          Deletes?: { Key: string }[];
        };
        const next = snapshot();
        for (const { Key } of input.Deletes ?? []) next.delete(Key);
        for (const { Key, Value } of input.Puts ?? []) {
          if (bytes(Key) > 512 || bytes(Value) > 1024) {
            fail(400, 'ValidationException', 'key or value over its limit');
            return;
          }
          next.set(Key, Value);
        }
        if ((input.Puts?.length ?? 0) + (input.Deletes?.length ?? 0) > 50) {
          fail(400, 'ValidationException', 'at most 50 puts and deletes per UpdateKeys');
          return;
        }
        if ([...next].reduce((sum, [k, v]) => sum + bytes(k) + bytes(v), 0) > 5 * 1024 * 1024) {
          fail(402, 'ServiceQuotaExceededException', 'store over 5 MB');
          return;
        }
        for (const key of store.keys()) if (!next.has(key)) store.delete(key);
        for (const [k, v] of next) if (store.get(k) !== v) store.put(k, v);
        version++;
        send(200, { ItemCount: store.keyCount, TotalSizeInBytes: size() }, { ETag: etag() });
        return;
      }
      fail(400, 'ValidationException', 'unsupported operation');
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const lookup = ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
    else callback(null, '127.0.0.1', 4);
  }) as unknown as LookupFunction;
  const requestHandler = new NodeHttpHandler({ httpAgent: new Agent({ lookup }) });
  return {
    endpoint: `http://kvs.loopback:${String(port)}`,
    requestHandler,
    arn,
    store,
    get entries() {
      return snapshot();
    },
    etag,
    requests,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        requestHandler.destroy();
        server.close((error) => {
          if (error) reject(error);
          else resolve();
        });
      }),
  };
};

/**
 * The official KeyValueStore client pointed at a local KeyValueStore API (every host name it
 * builds from the store's ARN resolves to the loopback). Signatures are not checked there, so any
 * credentials do; tests pass their own to see them in the signed requests.
 */
export const localKvsClient = (
  kvs: Pick<LocalKvs, 'endpoint' | 'requestHandler'>,
  credentials = { accessKeyId: 'local', secretAccessKey: 'local' },
): CloudFrontKeyValueStoreClient =>
  new CloudFrontKeyValueStoreClient({
    region: 'us-east-1',
    endpoint: kvs.endpoint,
    requestHandler: kvs.requestHandler,
    credentials,
  });
