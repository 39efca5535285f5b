import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';

/**
 * A loopback proxy in front of DynamoDB Local that behaves the way deployed DynamoDB does where
 * DynamoDB Local does not (it serializes every request, so it never reports a conflict):
 *
 * - **Transaction conflicts.** A `TransactWriteItems` is "ongoing" from the moment it arrives
 *   until DynamoDB Local answered it (`transactionHoldMs` widens that window, as a real
 *   transaction's two phases do). Another `TransactWriteItems` touching one of its items, or an
 *   item a single-item write is updating, is cancelled with `TransactionCanceledException` and a
 *   `TransactionConflict` reason at that item's index (`None` elsewhere). A `PutItem`,
 *   `UpdateItem` or `DeleteItem` on an item of an ongoing transaction fails with
 *   `TransactionConflictException`. Both on the DynamoDB JSON 1.0 wire, as AWS sends them.
 * - **Latency**: `latencyMs` added to every call.
 * - **Stalls and timeouts**: calls of the `stall.operations` are held `stall.ms` before they are
 *   forwarded (`Infinity`: never answered, the client's request timeout is what ends them).
 *
 * Tests and `npm run bench` point the handlers at it through DYNAMODB_ENDPOINT, so the code
 * under test is untouched. The viral-links issue adds per-key throughput limits here.
 */
export interface FaultSettings {
  transactionHoldMs: number;
  latencyMs: number;
  stall: { ms: number; operations: ReadonlySet<string> } | null;
}

export interface FaultCounts {
  calls: number;
  transactionConflicts: number;
  conflictExceptions: number;
  stalled: number;
}

const SINGLE_WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem']);

type AttributeValue = Record<string, unknown>;
type TransactItem = Record<string, { TableName?: string; Item?: Record<string, AttributeValue>; Key?: Record<string, AttributeValue> } | undefined>;

const scalar = (v: AttributeValue | undefined) => (v ? JSON.stringify(v) : '');
const itemId = (table: string | undefined, key: Record<string, AttributeValue> | undefined) =>
  `${table ?? ''}|${scalar(key?.pk)}|${scalar(key?.sk)}`;

/** The items a transaction's entries touch, in order (Put: its item's key; others: Key). */
const transactionItems = (input: { TransactItems?: TransactItem[] }): string[] =>
  (input.TransactItems ?? []).map((entry) => {
    const op = entry.Put ?? entry.Update ?? entry.Delete ?? entry.ConditionCheck;
    return itemId(op?.TableName, op?.Item ?? op?.Key);
  });

const singleItem = (input: { TableName?: string; Item?: Record<string, AttributeValue>; Key?: Record<string, AttributeValue> }) =>
  itemId(input.TableName, input.Item ?? input.Key);

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const errorReply = (res: ServerResponse, type: string, body: Record<string, unknown>) => {
  const text = JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${type}`, ...body });
  res.writeHead(400, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': randomUUID(), 'content-length': String(Buffer.byteLength(text)) });
  res.end(text);
};

export const startDynamoFaultProxy = async (target: string, initial: Partial<FaultSettings> = {}) => {
  const upstream = new URL(target);
  const settings: FaultSettings = { transactionHoldMs: 0, latencyMs: 0, stall: null, ...initial };
  const counts: FaultCounts = { calls: 0, transactionConflicts: 0, conflictExceptions: 0, stalled: 0 };
  /** Items of ongoing transactions, and items single-item writes are updating (with how many). */
  const inTransaction = new Map<string, number>();
  const beingWritten = new Map<string, number>();
  const held = new Set<ServerResponse>();
  /** While set, transactions stay ongoing (their items taken) until it resolves. */
  let transactionGate: Promise<void> | null = null;
  const add = (map: Map<string, number>, ids: string[]) => ids.forEach((id) => map.set(id, (map.get(id) ?? 0) + 1));
  const remove = (map: Map<string, number>, ids: string[]) =>
    ids.forEach((id) => {
      const n = (map.get(id) ?? 1) - 1;
      if (n <= 0) map.delete(id);
      else map.set(id, n);
    });

  const forward = (req: IncomingMessage, body: Buffer) =>
    new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
      const headers = { ...req.headers, host: upstream.host, 'content-length': String(body.length) };
      const call = httpRequest({ hostname: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers }, (up) => {
        const out: Buffer[] = [];
        up.on('data', (c: Buffer) => out.push(c));
        up.on('end', () => resolve({ status: up.statusCode ?? 500, headers: up.headers, body: Buffer.concat(out) }));
        up.on('error', reject);
      });
      call.on('error', reject);
      call.end(body);
    });

  const handle = async (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    counts.calls += 1;
    const operation = String(req.headers['x-amz-target'] ?? '').split('.').pop() ?? '';
    if (settings.latencyMs > 0) await sleep(settings.latencyMs);
    if (settings.stall && settings.stall.operations.has(operation)) {
      counts.stalled += 1;
      if (!Number.isFinite(settings.stall.ms)) {
        held.add(res);
        res.on('close', () => held.delete(res));
        return; // never answered: only the client's timeout ends this call
      }
      await sleep(settings.stall.ms);
      if (res.destroyed) return;
    }

    let owned: { map: Map<string, number>; ids: string[] } | null = null;
    if (operation === 'TransactWriteItems') {
      const ids = transactionItems(JSON.parse(body.toString('utf8')));
      const conflicting = ids.map((id) => inTransaction.has(id) || beingWritten.has(id));
      if (conflicting.some(Boolean)) {
        counts.transactionConflicts += 1;
        const reasons = conflicting.map((c) => (c ? { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' } : { Code: 'None' }));
        return errorReply(res, 'TransactionCanceledException', {
          Message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(', ')}]`,
          CancellationReasons: reasons,
        });
      }
      owned = { map: inTransaction, ids };
    } else if (SINGLE_WRITES.has(operation)) {
      const id = singleItem(JSON.parse(body.toString('utf8')));
      if (inTransaction.has(id)) {
        counts.conflictExceptions += 1;
        return errorReply(res, 'TransactionConflictException', { message: 'Transaction is ongoing for the item' });
      }
      owned = { map: beingWritten, ids: [id] };
    }

    if (owned) add(owned.map, owned.ids);
    try {
      if (operation === 'TransactWriteItems' && settings.transactionHoldMs > 0) await sleep(settings.transactionHoldMs);
      if (operation === 'TransactWriteItems' && transactionGate) await transactionGate;
      const answer = await forward(req, body);
      if (res.destroyed) return;
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
    } finally {
      if (owned) remove(owned.map, owned.ids);
    }
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      // DynamoDB unreachable behind the proxy: the caller sees the connection drop, as it would.
      handle(req, res, Buffer.concat(chunks)).catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    counts,
    /** Changes the faults from now on (calls already held keep theirs). */
    set(next: Partial<FaultSettings>) {
      Object.assign(settings, next);
    },
    /** Stalls these operations for `ms` (Infinity: never answers them). */
    stall(operations: string[], ms: number) {
      settings.stall = { ms, operations: new Set(operations) };
    },
    /**
     * Keeps every transaction that arrives from now on ongoing until `release()`: a test can
     * then send what collides with it, deterministically.
     */
    holdTransactions() {
      let release!: () => void;
      transactionGate = new Promise<void>((resolve) => (release = resolve));
      return {
        release: () => {
          transactionGate = null;
          release();
        },
      };
    },
    /** How many transactions are ongoing right now (items of theirs taken). */
    ongoingTransactionItems: () => inTransaction.size,
    clear() {
      Object.assign(settings, { transactionHoldMs: 0, latencyMs: 0, stall: null });
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const res of held) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

export type DynamoFaultProxy = Awaited<ReturnType<typeof startDynamoFaultProxy>>;
