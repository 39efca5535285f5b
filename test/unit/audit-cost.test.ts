import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { auditItemsOf, auditWriteOf, itemBytes } from '@bench/audit-cost';
import { newAuditEntry } from '@shared/audit/audit-entry';
import { auditPut, auditPuts } from '@shared/audit/audit-repository';
import type { CapacityCall } from '@test/support/dynamodb-fault-proxy';

const origin = {
  actor: { type: 'api_key' as const, keyId: 'key_01ABCDEFGHJKMNPQRSTVWXYZ01', name: 'writer' },
  requestId: 'req-1',
  ip: '203.0.113.7',
  userAgent: 'bench/1.0',
};

/** A TransactWriteItems call on the wire (what the capacity proxy records) with these items. */
const transaction = (puts: Array<{ Put: { Item: Record<string, unknown> } }>, more = 0): CapacityCall => ({
  operation: 'TransactWriteItems',
  read: 0,
  write: 0,
  reported: true,
  input: {
    TransactItems: [
      ...Array.from({ length: more }, (_, i) => ({ Put: { Item: marshall({ pk: `LINK#l${i}`, sk: 'LINK' }) } })),
      ...puts.map((p) => ({ Put: { Item: marshall(p.Put.Item, { removeUndefinedValues: true }) } })),
    ],
  },
});

describe('the bench prices the audit write (bench/audit-cost.ts)', () => {
  it('a single change: its entry, 2 WCU in the transaction and 1 per index it is in (action, resource, key)', () => {
    const entry = newAuditEntry('ws_1', origin, { action: 'link.created', resource: { type: 'link', id: 'lnk_1' } });
    const calls = [transaction([auditPut(entry)], 3)];
    expect(auditItemsOf(calls)).toHaveLength(1);
    const row = auditWriteOf({ operation: 'create', name: 'POST link', total: 10 }, calls)!;
    expect(row).toMatchObject({ entries: 1, indexItems: 0, tableWriteUnits: 2, indexWriteUnits: 3, writeUnits: 5 });
    // 5 WCU at $0.625 per million: $3.125 per million changes, 31% of a $10 operation.
    expect(row.perMillion).toBeCloseTo(3.125, 4);
    expect(row.shareOfOperation).toBeCloseTo(31.3, 1);
    // Stored: the item and its three index entries, each with DynamoDB's 100 bytes of overhead.
    const entryBytes = itemBytes(marshall(auditPut(entry).Put.Item, { removeUndefinedValues: true }));
    expect(row.storedBytes).toBeGreaterThan(entryBytes + 4 * 100);
    expect(row.storagePerMillionPerMonth).toBeGreaterThan(0);
  });

  it('a bulk chunk: one entry and an index item per further link, each in the resource index', () => {
    const entry = newAuditEntry('ws_1', origin, {
      action: 'link.created',
      resource: { type: 'link', id: 'lnk_1' },
      resourceIds: ['lnk_1', 'lnk_2', 'lnk_3'],
    });
    const row = auditWriteOf({ operation: 'bulk', name: 'bulk', total: 100 }, [transaction(auditPuts(entry), 9)])!;
    expect(row).toMatchObject({ entries: 1, indexItems: 2, tableWriteUnits: 6, indexWriteUnits: 5, writeUnits: 11 });
  });

  it('an operation without audit items (the redirect) has no row', () => {
    expect(auditWriteOf({ operation: 'redirect', name: 'redirect', total: 1 }, [transaction([], 2)])).toBeNull();
  });
});
