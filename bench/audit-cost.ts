import type { CapacityCall } from '@test/support/dynamodb-fault-proxy';
import { prices } from './prices';

/**
 * What an operation pays for its audit log: the audit items (entries and the index items of
 * their further resource ids, shared/audit/audit-repository.ts) its DynamoDB calls carry, sized
 * as DynamoDB sizes items, and priced by DynamoDB's on-demand rules: an item written in a
 * transaction costs 2 write units per KB (rounded up), one written alone 1; each index the item
 * is in (gsi1 action, gsi2 resource, gsi3 key; KEYS_ONLY) one more write per KB of its index
 * entry; storage per GB-month of the items and index entries (each with DynamoDB's 100 bytes of
 * overhead).
 */

type AttributeValue = Record<string, unknown>;
type Item = Record<string, AttributeValue>;

const KB = 1024;
const GB = 1024 ** 3;
const MILLION = 1_000_000;
/** DynamoDB's per-item storage overhead, on the table and on each index entry. */
const ITEM_OVERHEAD_BYTES = 100;
const INDEXES = ['gsi1', 'gsi2', 'gsi3'] as const;

/** A number's stored size: about one byte per two significant digits, plus one. */
const numberBytes = (text: string) =>
  Math.ceil(text.replace(/^-/, '').replace(/[.]/, '').replace(/^0+/, '').length / 2) + 1;

/** The size DynamoDB counts for one attribute value (wire JSON). */
export const valueBytes = (value: AttributeValue): number => {
  if (typeof value.S === 'string') return Buffer.byteLength(value.S);
  if (typeof value.N === 'string') return numberBytes(value.N);
  if (typeof value.B === 'string') return Buffer.from(value.B, 'base64').length;
  if ('BOOL' in value || 'NULL' in value) return 1;
  if (Array.isArray(value.L)) return 3 + (value.L as AttributeValue[]).reduce((n, v) => n + 1 + valueBytes(v), 0);
  if (value.M && typeof value.M === 'object')
    return 3 + Object.entries(value.M as Item).reduce((n, [k, v]) => n + Buffer.byteLength(k) + 1 + valueBytes(v), 0);
  if (Array.isArray(value.SS)) return (value.SS as string[]).reduce((n, s) => n + Buffer.byteLength(s), 0);
  if (Array.isArray(value.NS)) return (value.NS as string[]).reduce((n, s) => n + numberBytes(s), 0);
  return 0;
};

/** An item's size: its attribute names and values. */
export const itemBytes = (item: Record<string, object>): number =>
  Object.entries(item).reduce(
    (n, [name, value]) => n + Buffer.byteLength(name) + valueBytes(value as AttributeValue),
    0,
  );

const text = (value: AttributeValue | undefined) => (typeof value?.S === 'string' ? value.S : '');

/** The audit items an operation's calls put: in transactions or alone. */
export const auditItemsOf = (calls: CapacityCall[]): Array<{ item: Item; transactional: boolean }> =>
  calls.flatMap((call) => {
    const input = call.input as { TransactItems?: Array<{ Put?: { Item?: Item } }>; Item?: Item };
    const puts =
      call.operation === 'TransactWriteItems'
        ? (input.TransactItems ?? []).flatMap((t) => (t.Put?.Item ? [{ item: t.Put.Item, transactional: true }] : []))
        : call.operation === 'PutItem' && input.Item
          ? [{ item: input.Item, transactional: false }]
          : [];
    return puts.filter(({ item }) => text(item.pk).startsWith('AUDIT#'));
  });

export interface AuditWriteRow {
  operation: string;
  name: string;
  /** Audit entries and index items (one per further resource id) one run writes. */
  entries: number;
  indexItems: number;
  /** Write units of the audit items on the table, and of their index entries. */
  tableWriteUnits: number;
  indexWriteUnits: number;
  writeUnits: number;
  /** USD per million operations for those write units. */
  perMillion: number;
  /** The share of the operation's whole cost (its cost row's total) the audit write is, percent. */
  shareOfOperation: number;
  /** Bytes stored per run (items, index entries, overheads), and their USD per month per million runs. */
  storedBytes: number;
  storagePerMillionPerMonth: number;
}

const cents = (value: number) => Math.round(value * 10_000) / 10_000;

/** The audit write of one operation (its recorded calls), or null when it writes no audit item. */
export const auditWriteOf = (
  operation: { operation: string; name: string; total: number },
  calls: CapacityCall[],
): AuditWriteRow | null => {
  const items = auditItemsOf(calls);
  if (items.length === 0) return null;
  let tableWriteUnits = 0;
  let indexWriteUnits = 0;
  let storedBytes = 0;
  for (const { item, transactional } of items) {
    const size = itemBytes(item);
    tableWriteUnits += (transactional ? 2 : 1) * Math.ceil(size / KB);
    storedBytes += size + ITEM_OVERHEAD_BYTES;
    const tableKeyBytes = valueBytes(item.pk ?? {}) + valueBytes(item.sk ?? {}) + 'pk'.length + 'sk'.length;
    for (const index of INDEXES) {
      const pk = item[`${index}pk`];
      const sk = item[`${index}sk`];
      if (!pk || !sk) continue;
      const entryBytes = tableKeyBytes + itemBytes({ [`${index}pk`]: pk, [`${index}sk`]: sk }) + ITEM_OVERHEAD_BYTES;
      indexWriteUnits += Math.ceil((entryBytes - ITEM_OVERHEAD_BYTES) / KB);
      storedBytes += entryBytes;
    }
  }
  const writeUnits = tableWriteUnits + indexWriteUnits;
  const perMillion = MILLION * writeUnits * prices.dynamoWriteUnit;
  return {
    operation: operation.operation,
    name: operation.name,
    entries: items.filter(({ item }) => text(item.type) === 'AUDIT').length,
    indexItems: items.filter(({ item }) => text(item.type) === 'AUDIT_REF').length,
    tableWriteUnits,
    indexWriteUnits,
    writeUnits,
    perMillion: cents(perMillion),
    shareOfOperation: operation.total > 0 ? Math.round((1000 * perMillion) / operation.total) / 10 : 0,
    storedBytes,
    storagePerMillionPerMonth: cents(((MILLION * storedBytes) / GB) * prices.dynamoStorageGbMonth),
  };
};
