import { tableDefinition } from '@shared/db/table-definition';
import { itemSize, readUnits, writeUnits } from './dynamodb-item-size';

/**
 * DynamoDB's per-partition-key throughput limits, scaled down, for the fault proxy
 * (test/support/dynamodb-fault-proxy.ts). Deployed, one partition key value serves at most
 * 1,000 write units and 3,000 read units per second, in on-demand and provisioned mode alike
 * (adaptive capacity isolates a hot key on its own partition but never lifts that cap); beyond
 * it a request is throttled with a `KeyRangeThroughputExceeded` reason. Here each key value of
 * the table and of each index has a token bucket per direction holding one second of its rate,
 * refilled continuously:
 *
 * - a request is admitted when every key it touches has the units it is estimated to cost
 *   (what the request itself tells: a Put's item size, else one unit; reads half when eventually
 *   consistent; transactions twice); once answered, the key is charged what the call really
 *   consumed (a read's item sizes from the answer, or what DynamoDB Local reported), so a key
 *   can go into debt, as a partition does;
 * - `BatchGetItem` / `BatchWriteItem`: entries whose key has no capacity come back as
 *   `UnprocessedKeys` / `UnprocessedItems`; only when none can be served is the whole call
 *   throttled (as DynamoDB documents for both);
 * - `Scan` and control-plane calls are not limited (a Scan reads many partitions).
 */
export interface PerKeyLimits {
  writeUnitsPerSecond: number;
  readUnitsPerSecond: number;
}

export type Access = 'Read' | 'Write';
type Wire = Record<string, unknown>;
type Item = Record<string, Wire>;

/** One item (or one Query's key) a request touches: whose bucket it draws from and how much. */
export interface KeyAccess {
  table: string;
  index?: string;
  partitionValue: string;
  access: Access;
  /** Units charged at admission. */
  estimate: number;
  /** Batch calls: the entry's table and position in RequestItems (to return it unprocessed). */
  entry?: { table: string; position: number };
  /** The entry's full key (batch reads: to find its item in the answer). */
  key?: Item;
}

const pkName = (index?: string) =>
  index
    ? tableDefinition.globalSecondaryIndexes.find((i) => i.indexName === index)?.partitionKey
    : tableDefinition.partitionKey;

const valueOf = (v: Wire | undefined) => (v ? JSON.stringify(v) : '');

const keyAccess = (
  table: string | undefined,
  item: Item | undefined,
  access: Access,
  estimate: number,
  extra: Partial<KeyAccess> = {},
): KeyAccess => ({
  table: table ?? '',
  partitionValue: valueOf(item?.[tableDefinition.partitionKey]),
  access,
  estimate,
  ...extra,
});

/** The partition key value a Query names in its key condition (`pk = :v`, `#n = :v`). */
const queryPartitionValue = (input: Wire): string | undefined => {
  const name = pkName(input.IndexName as string | undefined);
  const names = (input.ExpressionAttributeNames ?? {}) as Record<string, string>;
  const values = (input.ExpressionAttributeValues ?? {}) as Record<string, Wire>;
  const condition = typeof input.KeyConditionExpression === 'string' ? input.KeyConditionExpression : '';
  for (const match of condition.matchAll(/([#\w]+)\s*=\s*(:\w+)/g)) {
    const attribute = match[1]!.startsWith('#') ? names[match[1]!] : match[1];
    if (attribute === name) return valueOf(values[match[2]!]);
  }
  return undefined;
};

const consistency = (strong: unknown) => (strong === true ? 'strong' : 'eventual');

/** The keys a request touches, with the units each is estimated to cost. Empty: not limited. */
export const planAccesses = (operation: string, input: Wire): KeyAccess[] => {
  const table = input.TableName as string | undefined;
  switch (operation) {
    case 'GetItem':
      return [keyAccess(table, input.Key as Item, 'Read', readUnits(0, consistency(input.ConsistentRead)))];
    case 'PutItem':
      return [keyAccess(table, input.Item as Item, 'Write', writeUnits(itemSize(input.Item as Item)))];
    case 'UpdateItem':
    case 'DeleteItem':
      return [keyAccess(table, input.Key as Item, 'Write', writeUnits(0))];
    case 'Query': {
      const partitionValue = queryPartitionValue(input);
      if (partitionValue === undefined) return [];
      const index = input.IndexName as string | undefined;
      return [
        {
          table: table ?? '',
          index,
          partitionValue,
          access: 'Read',
          estimate: readUnits(0, consistency(input.ConsistentRead)),
        },
      ];
    }
    case 'BatchGetItem':
      return Object.entries(
        (input.RequestItems ?? {}) as Record<string, { Keys?: Item[]; ConsistentRead?: boolean }>,
      ).flatMap(([name, request]) =>
        (request.Keys ?? []).map((key, position) =>
          keyAccess(name, key, 'Read', readUnits(0, consistency(request.ConsistentRead)), {
            entry: { table: name, position },
            key,
          }),
        ),
      );
    case 'BatchWriteItem':
      return Object.entries(
        (input.RequestItems ?? {}) as Record<
          string,
          Array<{ PutRequest?: { Item: Item }; DeleteRequest?: { Key: Item } }>
        >,
      ).flatMap(([name, requests]) =>
        requests.map((request, position) =>
          request.PutRequest
            ? keyAccess(name, request.PutRequest.Item, 'Write', writeUnits(itemSize(request.PutRequest.Item)), {
                entry: { table: name, position },
              })
            : keyAccess(name, request.DeleteRequest?.Key, 'Write', writeUnits(0), { entry: { table: name, position } }),
        ),
      );
    case 'TransactGetItems':
      return ((input.TransactItems ?? []) as Array<{ Get?: { TableName?: string; Key?: Item } }>).map((entry) =>
        keyAccess(entry.Get?.TableName, entry.Get?.Key, 'Read', readUnits(0, 'transactional')),
      );
    case 'TransactWriteItems':
      return (
        (input.TransactItems ?? []) as Array<
          Record<string, { TableName?: string; Item?: Item; Key?: Item } | undefined>
        >
      ).map((entry) => {
        const op = entry.Put ?? entry.Update ?? entry.Delete ?? entry.ConditionCheck;
        return keyAccess(
          op?.TableName,
          op?.Item ?? op?.Key,
          'Write',
          writeUnits(entry.Put ? itemSize(entry.Put.Item) : 0, true),
        );
      });
    default:
      return [];
  }
};

const SINGLE_KEY = new Set(['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query']);

/** Total capacity units DynamoDB Local reported for a call (undefined: none reported). */
export const reportedUnits = (output: Wire): number | undefined => {
  // One entry for a single-table call, a list for a batch or transaction.
  const consumed = [output.ConsumedCapacity ?? []].flat() as Array<{ CapacityUnits?: number }>;
  const units = consumed.map((c) => c.CapacityUnits).filter((u): u is number => typeof u === 'number');
  return units.length ? units.reduce((a, b) => a + b, 0) : undefined;
};

const sameKey = (item: Item, key: Item) => Object.entries(key).every(([name, v]) => valueOf(item[name]) === valueOf(v));

/** What each admitted access really cost, from the answer (same order as `accesses`). */
export const actualUnits = (operation: string, input: Wire, output: Wire, accesses: KeyAccess[]): number[] => {
  if (SINGLE_KEY.has(operation)) {
    const reported = reportedUnits(output);
    if (reported !== undefined) return [reported];
    if (operation === 'GetItem') return [readUnits(itemSize(output.Item as Item), consistency(input.ConsistentRead))];
    if (operation === 'Query')
      return [
        readUnits(
          ((output.Items ?? []) as Item[]).reduce((sum, item) => sum + itemSize(item), 0),
          consistency(input.ConsistentRead),
        ),
      ];
    return accesses.map((a) => a.estimate);
  }
  if (operation === 'BatchGetItem') {
    const responses = (output.Responses ?? {}) as Record<string, Item[]>;
    const requests = (input.RequestItems ?? {}) as Record<string, { ConsistentRead?: boolean }>;
    return accesses.map((a) => {
      const item = (responses[a.table] ?? []).find((candidate) => sameKey(candidate, a.key ?? {}));
      return readUnits(itemSize(item), consistency(requests[a.table]?.ConsistentRead));
    });
  }
  if (operation === 'TransactGetItems') {
    const responses = (output.Responses ?? []) as Array<{ Item?: Item }>;
    return accesses.map((_, i) => readUnits(itemSize(responses[i]?.Item), 'transactional'));
  }
  return accesses.map((a) => a.estimate);
};

export const bucketOf = (a: KeyAccess) => `${a.access}|${a.table}|${a.index ?? ''}|${a.partitionValue}`;

/**
 * Token buckets per key value and direction, one second of the rate deep, on an injectable
 * clock (milliseconds).
 */
export const keyBuckets = (limits: PerKeyLimits, now: () => number) => {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const rate = (access: Access) => (access === 'Read' ? limits.readUnitsPerSecond : limits.writeUnitsPerSecond);
  const current = (a: KeyAccess) => {
    const id = bucketOf(a);
    const t = now();
    const perSecond = rate(a.access);
    let bucket = buckets.get(id);
    if (!bucket) {
      if (buckets.size >= 50_000)
        for (const [k, b] of buckets) if (b.tokens + ((t - b.at) / 1000) * perSecond >= perSecond) buckets.delete(k);
      bucket = { tokens: perSecond, at: t };
      buckets.set(id, bucket);
    }
    bucket.tokens = Math.min(perSecond, bucket.tokens + ((t - bucket.at) / 1000) * perSecond);
    bucket.at = t;
    return bucket;
  };
  return {
    /** Whether every access fits (summed per bucket); nothing is taken. */
    fits(accesses: KeyAccess[]): boolean {
      const wanted = new Map<string, { access: KeyAccess; units: number }>();
      for (const a of accesses) {
        const w = wanted.get(bucketOf(a)) ?? { access: a, units: 0 };
        w.units += a.estimate;
        wanted.set(bucketOf(a), w);
      }
      return [...wanted.values()].every((w) => current(w.access).tokens >= w.units);
    },
    take(a: KeyAccess, units: number) {
      current(a).tokens -= units;
    },
    /** Units left in a key's bucket now (may be negative: in debt). */
    available: (a: Pick<KeyAccess, 'table' | 'index' | 'partitionValue' | 'access'>) =>
      current({ ...a, estimate: 0 }).tokens,
  };
};

export type KeyBuckets = ReturnType<typeof keyBuckets>;

/** `TableWriteKeyRangeThroughputExceeded`, `IndexReadKeyRangeThroughputExceeded`, ... */
export const throttlingReason = (a: KeyAccess, region: string, accountId: string) => ({
  reason: `${a.index ? 'Index' : 'Table'}${a.access}KeyRangeThroughputExceeded`,
  resource: `arn:aws:dynamodb:${region}:${accountId}:table/${a.table}${a.index ? `/index/${a.index}` : ''}`,
});
