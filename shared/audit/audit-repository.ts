import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetItems } from '@shared/db/batch-get';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import type { IndexName } from '@shared/db/table-definition';
import { strip } from '@shared/tenancy/workspace-repository';
import { AUDIT_RETENTION_MS, type AuditEntry } from './audit-entry';

/**
 * Audit entries in the single table. Access patterns (every one a Query, never a Scan):
 *
 * | read                         | key                                                        |
 * |------------------------------|------------------------------------------------------------|
 * | a workspace's entries        | table: pk `AUDIT#<ws>`, sk `<occurredAt>#<id>` (descending) |
 * | by action                    | gsi1: `AUDIT#<ws>#action#<action>`, gsi1sk = sk            |
 * | by resource id               | gsi2: `AUDIT#<ws>#resource#<resourceId>`, gsi2sk = sk      |
 * | by API key id (actor)        | gsi3: `AUDIT#<ws>#key#<keyId>`, gsi3sk = sk (api_key actors only) |
 * | from / to                    | a range on the sort key of whichever partition is read     |
 *
 * Every partition holds one workspace's entries only, so another workspace's id matches nothing.
 * When several filters are given, the most selective one's partition is read (resource id, then
 * key id, then action) and the others are checked on each entry read. The indexes are KEYS_ONLY:
 * an index page is read back from the table by BatchGet. Entries expire by TTL after the
 * retention; reads bound the sort key at the retention's start, so an expired entry DynamoDB has
 * not deleted yet is never answered.
 */

const ttlOf = (entry: AuditEntry) => Math.floor((Date.parse(entry.occurredAt) + AUDIT_RETENTION_MS) / 1000);

/** The stored item of an entry: the entry, its keys, its index keys and its TTL. */
export const auditItem = (entry: AuditEntry): Record<string, unknown> => {
  const key = keys.auditEntry(entry.workspaceId, entry.occurredAt, entry.id);
  return {
    ...key,
    type: 'AUDIT',
    gsi1pk: keys.auditByAction(entry.workspaceId, entry.action),
    gsi1sk: key.sk,
    gsi2pk: keys.auditByResource(entry.workspaceId, entry.resource.id),
    gsi2sk: key.sk,
    ...(entry.actor.type === 'api_key'
      ? { gsi3pk: keys.auditByKey(entry.workspaceId, entry.actor.keyId), gsi3sk: key.sk }
      : {}),
    ttl: ttlOf(entry),
    ...entry,
  };
};

/** The transaction item that writes an entry alongside its change (never over another entry). */
export const auditPut = (entry: AuditEntry) => ({
  Put: { TableName: tableName(), Item: auditItem(entry), ConditionExpression: 'attribute_not_exists(pk)' },
});

/** The sort key of an entry: `<occurredAt>#<id>`, the position of the list's cursor. */
export const auditSortKey = (entry: Pick<AuditEntry, 'workspaceId' | 'occurredAt' | 'id'>) =>
  keys.auditEntry(entry.workspaceId, entry.occurredAt, entry.id).sk;

/** One partition to read newest first, between two sort keys (inclusive). */
export interface AuditPartition {
  index?: IndexName;
  partition: string;
  from: string;
  to: string;
}

type Key = Record<string, unknown>;

const getEntries = async (entryKeys: Key[]): Promise<Map<string, AuditEntry>> => {
  const found = new Map<string, AuditEntry>();
  for (const raw of await batchGetItems(entryKeys)) found.set(String(raw.sk), strip(raw) as AuditEntry);
  return found;
};

export const auditRepository = {
  /**
   * An entry on its own, for a change that is no DynamoDB write it could join (a workspace export
   * writes files): written right after the change succeeded.
   */
  async put(entry: AuditEntry): Promise<void> {
    await getDocumentClient().send(new PutCommand(auditPut(entry).Put));
  },
  /**
   * Walks one partition newest first, a chunk at a time, yielding the entries (read from the
   * table when the partition is an index's). An index row whose entry is gone is skipped.
   */
  async *walk(read: AuditPartition, chunkSize: number): AsyncGenerator<AuditEntry[]> {
    const keyNames = read.index ? { pk: `${read.index}pk`, sk: `${read.index}sk` } : { pk: 'pk', sk: 'sk' };
    let startKey: Key | undefined;
    for (;;) {
      const out = await getDocumentClient().send(
        new QueryCommand({
          TableName: tableName(),
          IndexName: read.index,
          KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
          ExpressionAttributeNames: { '#pk': keyNames.pk, '#sk': keyNames.sk },
          ExpressionAttributeValues: { ':pk': read.partition, ':from': read.from, ':to': read.to },
          ScanIndexForward: false,
          Limit: chunkSize,
          ExclusiveStartKey: startKey,
        }),
      );
      const items = out.Items ?? [];
      if (read.index) {
        const rows = items.map((item) => ({ pk: String(item.pk), sk: String(item.sk) }));
        const entries = await getEntries(rows);
        const ordered = rows.map((row) => entries.get(row.sk)).filter((e): e is AuditEntry => !!e);
        if (ordered.length > 0) yield ordered;
      } else if (items.length > 0) {
        yield items.map((item) => strip(item) as AuditEntry);
      }
      if (!out.LastEvaluatedKey) return;
      startKey = out.LastEvaluatedKey;
    }
  },
};
