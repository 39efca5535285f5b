import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { crc32 } from 'node:zlib';
import {
  actualUnits,
  keyBuckets,
  planAccesses,
  throttlingReason,
  type KeyAccess,
  type PerKeyLimits,
} from './key-throughput-limits';

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
 * - **Per-partition-key throughput limits** (`perKeyLimits`, e.g. 1/20 of DynamoDB's 1,000 write
 *   and 3,000 read units per second per key: `{ writeUnitsPerSecond: 50, readUnitsPerSecond: 150 }`),
 *   units counted as DynamoDB counts them (test/support/key-throughput-limits.ts). A throttled
 *   call is answered as DynamoDB answers it: HTTP 400, on an on-demand table (ours)
 *   `ThrottlingException` with the message on-demand tables send and `throttlingReasons`
 *   (`TableWriteKeyRangeThroughputExceeded`, `TableReadKeyRangeThroughputExceeded`, `Index...`,
 *   with the table's or index's ARN); with `capacityMode: 'provisioned'`
 *   `ProvisionedThroughputExceededException` with `ThrottlingReasons` (the two exceptions spell
 *   the member differently in the service model). Batch calls return what did not fit as
 *   `UnprocessedKeys` / `UnprocessedItems`.
 * - **Items held elsewhere** (`conflictOn`): a write touching an item the given test picks is
 *   answered as if another transaction held that item (the conflict above), so a test can make
 *   one chosen item of a transaction fail, e.g. an audit entry, and see what the rest does.
 * - **Capacity recording** (`recordCapacity`, what `npm run bench` measures with): every
 *   data-plane call asks for `ReturnConsumedCapacity=TOTAL` and `take()` returns what each call
 *   consumed. A `ConsumedCapacity` the caller did not ask for is removed from the answer.
 *
 * Tests and `npm run bench` point the handlers at it through DYNAMODB_ENDPOINT, so the code
 * under test is untouched.
 */
export interface FaultSettings {
  transactionHoldMs: number;
  latencyMs: number;
  stall: { ms: number; operations: ReadonlySet<string> } | null;
  perKeyLimits: PerKeyLimits | null;
}

export interface ProxyOptions extends Partial<FaultSettings> {
  /** Which exception a throttle is answered with (DynamoDB Local's tables stand for on-demand ones). */
  capacityMode?: 'onDemand' | 'provisioned';
  /** Record each data-plane call's consumed capacity for `take()`. */
  recordCapacity?: boolean;
  /** The clock of the token buckets (ms); tests inject one so no assertion depends on time. */
  now?: () => number;
  /** The account in throttling reasons' ARNs (DynamoDB Local's own is 000000000000). */
  accountId?: string;
}

export interface FaultCounts {
  calls: number;
  transactionConflicts: number;
  conflictExceptions: number;
  stalled: number;
  /** Calls answered with a throttling exception (each SDK attempt counts). */
  throttles: number;
  readThrottles: number;
  writeThrottles: number;
  /** Batch entries returned unprocessed because their key had no capacity. */
  unprocessed: number;
  /** Throttled write calls by the partition key's prefix (`RATE#`, `EVENTLOG#`, ...; a call counts once per prefix). */
  writeThrottlesByPrefix: Record<string, number>;
  /** Batch entries returned unprocessed, by their partition key's prefix. */
  unprocessedByPrefix: Record<string, number>;
}

/** `RATE#` of `{"S":"RATE#ws#server#60#0"}` (a partition value on the DynamoDB JSON wire). */
const keyPrefixOf = (partitionValue: string): string => {
  const value = (JSON.parse(partitionValue) as { S?: string }).S ?? '';
  return value.includes('#') ? `${value.split('#')[0] ?? ''}#` : value;
};

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

/** DynamoDB operations that accept ReturnConsumedCapacity. */
const WITH_CAPACITY = new Set([
  'GetItem',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'Query',
  'Scan',
  'BatchGetItem',
  'BatchWriteItem',
  'TransactGetItems',
  'TransactWriteItems',
]);
const BATCH = new Set(['BatchGetItem', 'BatchWriteItem']);

interface ConsumedCapacity {
  TableName?: string;
  CapacityUnits?: number;
  ReadCapacityUnits?: number;
  WriteCapacityUnits?: number;
}

/** Read/write split of one ConsumedCapacity entry; `CapacityUnits` alone goes by operation kind. */
const split = (operation: string, c: ConsumedCapacity): { read: number; write: number } => {
  if (c.ReadCapacityUnits !== undefined || c.WriteCapacityUnits !== undefined)
    return { read: c.ReadCapacityUnits ?? 0, write: c.WriteCapacityUnits ?? 0 };
  const units = c.CapacityUnits ?? 0;
  return /^(Put|Update|Delete|BatchWrite|TransactWrite)/.test(operation)
    ? { read: 0, write: units }
    : { read: units, write: 0 };
};

/** What on-demand tables say when a key is throttled (the service's own wording). */
const ON_DEMAND_THROTTLE_MESSAGE =
  'Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your table or index so please try again shortly. If exceptions persist, check if you have a hot key: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html';
const PROVISIONED_THROTTLE_MESSAGE =
  'The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.';

/** The region a SigV4 request was signed for (`Credential=AKID/date/region/dynamodb/aws4_request`). */
const signedRegion = (req: IncomingMessage) =>
  /Credential=[^/]+\/\d+\/([^/]+)\//.exec(req.headers.authorization ?? '')?.[1] ?? 'us-east-1';

const SINGLE_WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem']);

type AttributeValue = Record<string, unknown>;
type TransactItem = Record<
  string,
  { TableName?: string; Item?: Record<string, AttributeValue>; Key?: Record<string, AttributeValue> } | undefined
>;

const scalar = (v: AttributeValue | undefined) => (v ? JSON.stringify(v) : '');
const itemId = (table: string | undefined, key: Record<string, AttributeValue> | undefined) =>
  `${table ?? ''}|${scalar(key?.pk)}|${scalar(key?.sk)}`;

/** The items a transaction's entries touch, in order (Put: its item's key; others: Key). */
const transactionItems = (input: { TransactItems?: TransactItem[] }): string[] =>
  (input.TransactItems ?? []).map((entry) => {
    const op = entry.Put ?? entry.Update ?? entry.Delete ?? entry.ConditionCheck;
    return itemId(op?.TableName, op?.Item ?? op?.Key);
  });

/** The `S` value of a key attribute on the wire ('' when absent). */
const keyText = (v: AttributeValue | undefined) => (typeof v?.S === 'string' ? v.S : '');
/** The pk / sk of each item a transaction's entries touch, in order. */
const transactionKeys = (input: { TransactItems?: TransactItem[] }) =>
  (input.TransactItems ?? []).map((entry) => {
    const op = entry.Put ?? entry.Update ?? entry.Delete ?? entry.ConditionCheck;
    const key = op?.Item ?? op?.Key;
    return { pk: keyText(key?.pk), sk: keyText(key?.sk) };
  });

/** Picks the items every write conflicts with (`conflictOn`). */
export type HeldItems = (key: { pk: string; sk: string }) => boolean;

const singleItem = (input: {
  TableName?: string;
  Item?: Record<string, AttributeValue>;
  Key?: Record<string, AttributeValue>;
}) => itemId(input.TableName, input.Item ?? input.Key);

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const errorReply = (res: ServerResponse, type: string, body: Record<string, unknown>) => {
  const text = JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${type}`, ...body });
  res.writeHead(400, {
    'content-type': 'application/x-amz-json-1.0',
    'x-amzn-requestid': randomUUID(),
    'content-length': String(Buffer.byteLength(text)),
  });
  res.end(text);
};

type BatchRequests = Record<string, Record<string, unknown> & { Keys?: unknown[] }>;

/** A batch call without the entries that had no capacity. */
const withoutEntries = (
  operation: string,
  input: Record<string, unknown>,
  left: KeyAccess[],
): Record<string, unknown> => {
  const skip = new Set(left.map((a) => `${a.entry!.table}|${a.entry!.position}`));
  const requestItems: Record<string, unknown> = {};
  for (const [table, request] of Object.entries(input.RequestItems as BatchRequests)) {
    if (operation === 'BatchGetItem') {
      const keys = (request.Keys ?? []).filter((_, i) => !skip.has(`${table}|${i}`));
      if (keys.length) requestItems[table] = { ...request, Keys: keys };
    } else {
      const writes = (request as unknown as unknown[]).filter((_, i) => !skip.has(`${table}|${i}`));
      if (writes.length) requestItems[table] = writes;
    }
  }
  return { ...input, RequestItems: requestItems };
};

/** Returns the entries that had no capacity in the answer, as DynamoDB returns unprocessed ones. */
const addUnprocessed = (
  operation: string,
  input: Record<string, unknown>,
  output: Record<string, unknown>,
  left: KeyAccess[],
) => {
  const requests = input.RequestItems as BatchRequests;
  if (operation === 'BatchGetItem') {
    const unprocessedKeys = (output.UnprocessedKeys ?? {}) as BatchRequests;
    for (const a of left) {
      const { table, position } = a.entry!;
      const { Keys: _keys, ...rest } = requests[table]!;
      const current = unprocessedKeys[table] ?? { ...rest, Keys: [] };
      current.Keys = [...(current.Keys ?? []), requests[table]!.Keys![position]];
      unprocessedKeys[table] = current;
    }
    output.UnprocessedKeys = unprocessedKeys;
  } else {
    const unprocessedItems = (output.UnprocessedItems ?? {}) as Record<string, unknown[]>;
    for (const a of left) {
      const { table, position } = a.entry!;
      unprocessedItems[table] = [
        ...(unprocessedItems[table] ?? []),
        (requests[table] as unknown as unknown[])[position],
      ];
    }
    output.UnprocessedItems = unprocessedItems;
  }
};

export const startDynamoFaultProxy = async (target: string, options: ProxyOptions = {}) => {
  const {
    capacityMode = 'onDemand',
    recordCapacity = false,
    now = () => performance.now(),
    accountId = '000000000000',
    ...initial
  } = options;
  const upstream = new URL(target);
  const settings: FaultSettings = { transactionHoldMs: 0, latencyMs: 0, stall: null, perKeyLimits: null, ...initial };
  const counts: FaultCounts = {
    calls: 0,
    transactionConflicts: 0,
    conflictExceptions: 0,
    stalled: 0,
    throttles: 0,
    readThrottles: 0,
    writeThrottles: 0,
    unprocessed: 0,
    writeThrottlesByPrefix: {},
    unprocessedByPrefix: {},
  };
  let buckets = settings.perKeyLimits ? keyBuckets(settings.perKeyLimits, now) : null;
  let recorded: CapacityCall[] = [];
  /** Items of ongoing transactions, and items single-item writes are updating (with how many). */
  const inTransaction = new Map<string, number>();
  const beingWritten = new Map<string, number>();
  const held = new Set<ServerResponse>();
  /** While set, transactions stay ongoing (their items taken) until it resolves. */
  let transactionGate: Promise<void> | null = null;
  /** Items held by no real transaction that every write still conflicts with. */
  let heldItems: HeldItems | null = null;
  const add = (map: Map<string, number>, ids: string[]) => {
    ids.forEach((id) => map.set(id, (map.get(id) ?? 0) + 1));
  };
  const remove = (map: Map<string, number>, ids: string[]) => {
    ids.forEach((id) => {
      const n = (map.get(id) ?? 1) - 1;
      if (n <= 0) map.delete(id);
      else map.set(id, n);
    });
  };

  const forward = (req: IncomingMessage, body: Buffer) =>
    new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>(
      (resolve, reject) => {
        const headers = { ...req.headers, host: upstream.host, 'content-length': String(body.length) };
        const call = httpRequest(
          { hostname: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers },
          (up) => {
            const out: Buffer[] = [];
            up.on('data', (c: Buffer) => out.push(c));
            up.on('end', () => {
              resolve({ status: up.statusCode ?? 500, headers: up.headers, body: Buffer.concat(out) });
            });
            up.on('error', reject);
          },
        );
        call.on('error', reject);
        call.end(body);
      },
    );

  /** Answers a throttled call as DynamoDB does, naming each key range that had no capacity. */
  const throttle = (req: IncomingMessage, res: ServerResponse, accesses: KeyAccess[]) => {
    counts.throttles += 1;
    if (accesses.some((a) => a.access === 'Read')) counts.readThrottles += 1;
    if (accesses.some((a) => a.access === 'Write')) counts.writeThrottles += 1;
    for (const prefix of new Set(
      accesses.filter((a) => a.access === 'Write').map((a) => keyPrefixOf(a.partitionValue)),
    ))
      counts.writeThrottlesByPrefix[prefix] = (counts.writeThrottlesByPrefix[prefix] ?? 0) + 1;
    const region = signedRegion(req);
    const reasons = [
      ...new Map(
        accesses.map((a) => throttlingReason(a, region, accountId)).map((r) => [`${r.reason}|${r.resource}`, r]),
      ).values(),
    ];
    if (capacityMode === 'onDemand')
      errorReply(res, 'ThrottlingException', { message: ON_DEMAND_THROTTLE_MESSAGE, throttlingReasons: reasons });
    else
      errorReply(res, 'ProvisionedThroughputExceededException', {
        message: PROVISIONED_THROTTLE_MESSAGE,
        ThrottlingReasons: reasons,
      });
  };

  /** Admits what fits the keys' buckets: a batch entry by entry, any other call as a whole. */
  const admit = (operation: string, input: Record<string, unknown>) => {
    const accesses = buckets ? planAccesses(operation, input) : [];
    if (!buckets || !accesses.length)
      return { admitted: [] as KeyAccess[], unprocessed: [] as KeyAccess[], throttled: null };
    if (BATCH.has(operation)) {
      const admitted: KeyAccess[] = [];
      const unprocessed: KeyAccess[] = [];
      for (const a of accesses) {
        if (buckets.fits([a])) {
          buckets.take(a, a.estimate);
          admitted.push(a);
        } else unprocessed.push(a);
      }
      if (admitted.length) {
        counts.unprocessed += unprocessed.length;
        for (const a of unprocessed) {
          const prefix = keyPrefixOf(a.partitionValue);
          counts.unprocessedByPrefix[prefix] = (counts.unprocessedByPrefix[prefix] ?? 0) + 1;
        }
      }
      return admitted.length
        ? { admitted, unprocessed, throttled: null }
        : { admitted, unprocessed: [], throttled: unprocessed };
    }
    if (!buckets.fits(accesses)) {
      const short = accesses.filter((a) => !buckets!.fits([a]));
      return { admitted: [], unprocessed: [], throttled: short.length ? short : accesses };
    }
    for (const a of accesses) buckets.take(a, a.estimate);
    return { admitted: accesses, unprocessed: [], throttled: null };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    counts.calls += 1;
    const operation =
      String(req.headers['x-amz-target'] ?? '')
        .split('.')
        .pop() ?? '';
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

    const input = WITH_CAPACITY.has(operation) ? (JSON.parse(body.toString('utf8')) as Record<string, unknown>) : null;
    const { admitted, unprocessed, throttled } = input
      ? admit(operation, input)
      : { admitted: [], unprocessed: [], throttled: null };
    if (throttled) {
      throttle(req, res, throttled);
      return;
    }
    // What is sent on: a batch without its unprocessed entries; ConsumedCapacity asked for when measured.
    const sent = input && unprocessed.length ? withoutEntries(operation, input, unprocessed) : input;
    const asked = input?.ReturnConsumedCapacity !== undefined && input.ReturnConsumedCapacity !== 'NONE';
    const measure = input !== null && (recordCapacity || admitted.length > 0);
    const outgoing =
      sent && (measure || sent !== input)
        ? Buffer.from(JSON.stringify(measure && !asked ? { ...sent, ReturnConsumedCapacity: 'TOTAL' } : sent))
        : body;

    let owned: { map: Map<string, number>; ids: string[] } | null = null;
    if (operation === 'TransactWriteItems') {
      const ids = transactionItems(input as { TransactItems?: TransactItem[] });
      const itemKeys = transactionKeys(input as { TransactItems?: TransactItem[] });
      const conflicting = ids.map(
        (id, i) => inTransaction.has(id) || beingWritten.has(id) || (heldItems?.(itemKeys[i]!) ?? false),
      );
      if (conflicting.some(Boolean)) {
        counts.transactionConflicts += 1;
        const reasons = conflicting.map((c) =>
          c ? { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' } : { Code: 'None' },
        );
        errorReply(res, 'TransactionCanceledException', {
          Message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(', ')}]`,
          CancellationReasons: reasons,
        });
        return;
      }
      owned = { map: inTransaction, ids };
    } else if (SINGLE_WRITES.has(operation)) {
      const id = singleItem(input as Parameters<typeof singleItem>[0]);
      const single = input as { Item?: Record<string, AttributeValue>; Key?: Record<string, AttributeValue> };
      const key = single.Item ?? single.Key;
      if (inTransaction.has(id) || (heldItems?.({ pk: keyText(key?.pk), sk: keyText(key?.sk) }) ?? false)) {
        counts.conflictExceptions += 1;
        errorReply(res, 'TransactionConflictException', { message: 'Transaction is ongoing for the item' });
        return;
      }
      owned = { map: beingWritten, ids: [id] };
    }

    if (owned) add(owned.map, owned.ids);
    try {
      if (operation === 'TransactWriteItems' && settings.transactionHoldMs > 0) await sleep(settings.transactionHoldMs);
      if (operation === 'TransactWriteItems' && transactionGate) await transactionGate;
      const answer = await forward(req, outgoing);
      if (res.destroyed) return;
      let answerBody = answer.body;
      const headers = { ...answer.headers };
      if (input && sent && answer.status === 200 && (measure || unprocessed.length)) {
        const output = JSON.parse(answer.body.toString('utf8')) as Record<string, unknown>;
        // Each admitted key is charged what the call really consumed (the estimate was taken at admission).
        if (buckets)
          actualUnits(operation, sent, output, admitted).forEach((units, i) => {
            buckets!.take(admitted[i]!, units - admitted[i]!.estimate);
          });
        if (recordCapacity) {
          const consumed = ([] as ConsumedCapacity[]).concat(
            (output.ConsumedCapacity as ConsumedCapacity | ConsumedCapacity[] | undefined) ?? [],
          );
          const units = consumed
            .map((c) => split(operation, c))
            .reduce((a, b) => ({ read: a.read + b.read, write: a.write + b.write }), { read: 0, write: 0 });
          recorded.push({ operation, ...units, reported: consumed.length > 0, input });
        }
        if (!asked) delete output.ConsumedCapacity;
        if (unprocessed.length) addUnprocessed(operation, input, output, unprocessed);
        answerBody = Buffer.from(JSON.stringify(output));
        // DynamoDB Local sends a large answer chunked: the rewritten one goes out with its length only.
        delete headers['transfer-encoding'];
        headers['content-length'] = String(answerBody.length);
        if (headers['x-amz-crc32'] !== undefined) headers['x-amz-crc32'] = String(crc32(answerBody));
      }
      res.writeHead(answer.status, headers);
      res.end(answerBody);
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
    /** Changes the faults from now on (calls already held keep theirs; new limits start with full buckets). */
    set(next: Partial<FaultSettings>) {
      Object.assign(settings, next);
      if ('perKeyLimits' in next) buckets = settings.perKeyLimits ? keyBuckets(settings.perKeyLimits, now) : null;
    },
    /** Units left in a key's bucket now (negative: in debt); `partitionValue` on the DynamoDB JSON wire, e.g. `{"S":"LINK#x"}`. */
    unitsAvailable: (a: Omit<KeyAccess, 'estimate'>) => buckets?.available(a),
    /** Calls recorded (`recordCapacity`) since the last take, then forgets them. */
    take(): CapacityCall[] {
      const taken = recorded;
      recorded = [];
      return taken;
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
    /**
     * From now on every write touching an item `held` picks conflicts, as if another transaction
     * held it (a transaction is cancelled with `TransactionConflict` at that item's index, a
     * single-item write fails with `TransactionConflictException`); `null` ends it.
     */
    conflictOn(held: HeldItems | null) {
      heldItems = held;
    },
    /** How many transactions are ongoing right now (items of theirs taken). */
    ongoingTransactionItems: () => inTransaction.size,
    clear() {
      Object.assign(settings, { transactionHoldMs: 0, latencyMs: 0, stall: null, perKeyLimits: null });
      buckets = null;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const res of held) res.destroy();
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
};

export type DynamoFaultProxy = Awaited<ReturnType<typeof startDynamoFaultProxy>>;
