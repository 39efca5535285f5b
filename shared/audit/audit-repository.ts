import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetItems } from '@shared/db/batch-get';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import type { IndexName } from '@shared/db/table-definition';
import { auditRetentionMs } from '@shared/config/audit-retention';
import { strip } from '@shared/tenancy/workspace-repository';
import { newAuditEntry, type AuditEntry, type ChangeOrigin } from './audit-entry';

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
 * An entry that names more than one resource (`resourceIds`: a bulk or import chunk's links, a
 * rotation's new key) also gets one small index item per further id (`AUDIT_REF`, below), in the
 * same transaction: its gsi2 key puts the entry in that id's resource partition too, so
 * `resourceId` finds the entry by any of its ids.
 *
 * Every partition holds one workspace's entries only, so another workspace's id matches nothing.
 * When several filters are given, the most selective one's partition is read (resource id, then
 * key id, then action) and the others are checked on each entry read. The indexes are KEYS_ONLY:
 * an index page is read back from the table by BatchGet. Entries expire by TTL after the
 * retention; reads bound the sort key at the retention's start, so an expired entry DynamoDB has
 * not deleted yet is never answered.
 */

const ttlOf = (entry: AuditEntry) => Math.floor((Date.parse(entry.occurredAt) + auditRetentionMs()) / 1000);

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

/** The ids an entry names besides `resource.id`, each once: each gets an index item. */
const furtherResourceIds = (entry: AuditEntry): string[] =>
  [...new Set(entry.resourceIds ?? [])].filter((id) => id !== entry.resource.id);

/**
 * The index item that files an entry under one more resource id: keyed (table and gsi2 alike)
 * `AUDIT#<ws>#resource#<resourceId>` / the entry's sort key, so a gsi2 row of it leads to the
 * entry as the entry's own row does (same workspace, same sort key). It holds no part of the
 * entry but the workspace (erasure finds it by `workspaceId`) and expires with it.
 */
export const auditRefItem = (entry: AuditEntry, resourceId: string): Record<string, unknown> => {
  const sk = auditSortKey(entry);
  const pk = keys.auditByResource(entry.workspaceId, resourceId);
  return { pk, sk, type: 'AUDIT_REF', gsi2pk: pk, gsi2sk: sk, workspaceId: entry.workspaceId, ttl: ttlOf(entry) };
};

/**
 * The transaction items that write an entry alongside its change (never over another entry): the
 * entry, then one index item per further resource id. A bulk chunk counts one item per link for
 * its log (the entry for the first link, an index item for each other).
 */
export const auditPuts = (entry: AuditEntry) => [
  { Put: { TableName: tableName(), Item: auditItem(entry), ConditionExpression: 'attribute_not_exists(pk)' } },
  ...furtherResourceIds(entry).map((id) => ({
    Put: { TableName: tableName(), Item: auditRefItem(entry, id), ConditionExpression: 'attribute_not_exists(pk)' },
  })),
];

/**
 * The transaction item of an entry that names one resource (most changes). An entry with further
 * resource ids needs its index items too: auditPuts.
 */
export const auditPut = (entry: AuditEntry) => {
  const [put, ...refs] = auditPuts(entry);
  if (!put || refs.length > 0) throw new Error(`${entry.action}: an entry naming several resources needs auditPuts`);
  return put;
};

/**
 * The transaction items of a change's entry, for a caller that audits only when it is given an
 * origin (the admin functions shared by the CLI and tests): none without one.
 */
export const auditPutsFor = (
  workspaceId: string,
  origin: ChangeOrigin | undefined,
  change: Parameters<typeof newAuditEntry>[2],
) => (origin ? auditPuts(newAuditEntry(workspaceId, origin, change)) : []);

/** How many transaction items an entry takes (auditPuts). */
export const auditItemCount = (entry: AuditEntry): number => 1 + furtherResourceIds(entry).length;

/** The sort key of an entry: `<occurredAt>#<id>`, the position of the list's cursor. */
export const auditSortKey = (entry: Pick<AuditEntry, 'workspaceId' | 'occurredAt' | 'id'>) =>
  keys.auditEntry(entry.workspaceId, entry.occurredAt, entry.id).sk;

/** One partition to read newest first, between two sort keys (inclusive). */
export interface AuditPartition {
  workspaceId: string;
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
   * writes files): written right after the change succeeded. Such an entry names one resource.
   */
  async put(entry: AuditEntry): Promise<void> {
    await getDocumentClient().send(new PutCommand(auditPut(entry).Put));
  },
  /**
   * Walks one partition newest first, a chunk at a time, yielding the entries (read from the
   * table when the partition is an index's: an index row, the entry's own or an index item's,
   * leads to the entry of its workspace with the same sort key). An index row whose entry is gone
   * is skipped.
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
        const entriesPk = keys.auditEntriesOf(read.workspaceId).pk;
        const rows = items.map((item) => ({ pk: entriesPk, sk: String(item[keyNames.sk]) }));
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
