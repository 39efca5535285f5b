import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** DynamoDB operations that accept ReturnConsumedCapacity. */
const WITH_CAPACITY = new Set([
  'GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query', 'Scan',
  'BatchGetItem', 'BatchWriteItem', 'TransactGetItems', 'TransactWriteItems',
]);

interface ConsumedCapacity {
  TableName?: string;
  CapacityUnits?: number;
  ReadCapacityUnits?: number;
  WriteCapacityUnits?: number;
}

export interface CapacityCall {
  operation: string;
  /** Read and write units as DynamoDB reported them (on-demand: request units). */
  read: number;
  write: number;
  /** false when DynamoDB answered without ConsumedCapacity (the report then says so). */
  reported: boolean;
  /** The request as the handler sent it (wire JSON = low-level SDK command input). */
  input: Record<string, unknown>;
}

/** Read/write split of one ConsumedCapacity entry; `CapacityUnits` alone goes by operation kind. */
const split = (operation: string, c: ConsumedCapacity): { read: number; write: number } => {
  if (c.ReadCapacityUnits !== undefined || c.WriteCapacityUnits !== undefined) return { read: c.ReadCapacityUnits ?? 0, write: c.WriteCapacityUnits ?? 0 };
  const units = c.CapacityUnits ?? 0;
  return /^(Put|Update|Delete|BatchWrite|TransactWrite)/.test(operation) ? { read: 0, write: units } : { read: units, write: 0 };
};

/**
 * A loopback HTTP proxy in front of DynamoDB Local that asks every data-plane call for
 * ReturnConsumedCapacity=TOTAL and records what each call consumed. The bundles under test
 * talk to it through DYNAMODB_ENDPOINT, so their code is untouched (DynamoDB Local does not
 * check request signatures, so the rewritten body is accepted).
 */
export const startCapacityProxy = async (target: string) => {
  const upstream = new URL(target);
  let calls: CapacityCall[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const operation = String(req.headers['x-amz-target'] ?? '').split('.').pop() ?? '';
      let body = Buffer.concat(chunks);
      const track = WITH_CAPACITY.has(operation);
      const input = track ? (JSON.parse(body.toString('utf8')) as Record<string, unknown>) : {};
      if (track) body = Buffer.from(JSON.stringify({ ...input, ReturnConsumedCapacity: 'TOTAL' }));
      const headers = { ...req.headers, host: upstream.host, 'content-length': String(body.length) };
      const forward = httpRequest({ hostname: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers }, (up) => {
        const out: Buffer[] = [];
        up.on('data', (c: Buffer) => out.push(c));
        up.on('end', () => {
          const text = Buffer.concat(out);
          if (track) {
            let consumed: ConsumedCapacity[] = [];
            try {
              const parsed = JSON.parse(text.toString('utf8')) as { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] };
              consumed = parsed.ConsumedCapacity === undefined ? [] : ([] as ConsumedCapacity[]).concat(parsed.ConsumedCapacity);
            } catch {
              consumed = [];
            }
            const units = consumed.map((c) => split(operation, c)).reduce((a, b) => ({ read: a.read + b.read, write: a.write + b.write }), { read: 0, write: 0 });
            calls.push({ operation, ...units, reported: consumed.length > 0, input });
          }
          res.writeHead(up.statusCode ?? 500, up.headers);
          res.end(text);
        });
      });
      forward.on('error', (error) => {
        res.writeHead(502);
        res.end(String(error));
      });
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    /** Calls recorded since the last take, then forgets them. */
    take(): CapacityCall[] {
      const taken = calls;
      calls = [];
      return taken;
    },
    stop: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
};
