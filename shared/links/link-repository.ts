import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetItems } from '@shared/db/batch-get';
import { auditPut, auditPuts } from '@shared/audit/audit-repository';
import type { AuditEntry } from '@shared/audit/audit-entry';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { AppError, notFound } from '@shared/errors/app-error';
import { strip } from '@shared/tenancy/workspace-repository';
import { linkItemIndexKeys, linkListEntryItems, staleTagEntryKeys } from './link-index';
import type { LinkRecord, LinkType } from './link-record';
import { toRedirectRecord } from './redirect-record';

export class SlugTakenError extends AppError {
  constructor() {
    super('slug_taken', 'This domain and key are already used by another link');
  }
}

/** Index keys of a link item (lists query these; link-index.ts says what each serves). */
export const linkIndexKeys = linkItemIndexKeys;

/** Thrown when the link changed between read and write (optimistic concurrency); callers retry. */
export class LinkChangedError extends Error {
  constructor() {
    super('The link changed concurrently');
    this.name = 'LinkChangedError';
  }
}

/**
 * Attributes a link change rewrites; counters (clicks, botClicks, last*) are never touched, nor
 * the clicks order's sort key (gsi3sk: the counter update keeps it; only its partition moves).
 */
const EDITABLE_ATTRIBUTES = [
  'domainId',
  'domain',
  'key',
  'url',
  'title',
  'desktopOverrideUrl',
  'androidOverrideUrl',
  'iosOverrideUrl',
  'expiresAt',
  'expiredUrl',
  'passwordHash',
  'comments',
  'objects',
  'tags',
  'tracking',
  'socialPreview',
  'geo',
  'rules',
  'variants',
  'trackConversions',
  'archived',
  'updatedAt',
  'gsi1pk',
  'gsi1sk',
  'gsi2pk',
  'gsi2sk',
  'gsi3pk',
] as const;

export const linkItem = (link: LinkRecord) => ({
  ...keys.link(link.id),
  type: 'LINK',
  ...linkIndexKeys(link),
  ...link,
});
export const slugItem = (link: LinkRecord) => ({
  ...keys.slug(link.domain, link.key),
  type: 'SLUG',
  ...toRedirectRecord(link),
});

/**
 * The slug write lost: the slug is held (`ConditionalCheckFailed`), or another transaction kept
 * it busy through every retry of the client (`TransactionConflict`, shared/db/conflict-retry.ts):
 * deployed, concurrent creates of one slug end that way, and the caller is told 409 `slug_taken`
 * either way rather than a 500.
 */
const SLUG_LOST = new Set(['ConditionalCheckFailed', 'TransactionConflict']);
const isSlugConflict = (error: unknown, slugIndexes: number[]): boolean =>
  error instanceof TransactionCanceledException &&
  slugIndexes.some((i) => SLUG_LOST.has(error.CancellationReasons?.[i]?.Code ?? ''));

export const linkRepository = {
  /**
   * Writes the link and reserves its slug in one transaction: the slug item is put only if no
   * item holds that domain+key (archived links keep theirs). A clash is `SlugTakenError`.
   * The change's audit entry is written in the same transaction: both or neither.
   */
  async createWithSlug(link: LinkRecord, audit: AuditEntry): Promise<void> {
    try {
      await getDocumentClient().send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: tableName(), Item: linkItem(link), ConditionExpression: 'attribute_not_exists(pk)' } },
            { Put: { TableName: tableName(), Item: slugItem(link), ConditionExpression: 'attribute_not_exists(pk)' } },
            ...linkListEntryItems(link).map((Item) => ({ Put: { TableName: tableName(), Item } })),
            auditPut(audit),
          ],
        }),
      );
    } catch (error) {
      if (isSlugConflict(error, [1])) throw new SlugTakenError();
      throw error;
    }
  },

  /**
   * Writes several new links (bulk create) in ONE transaction of at most 100 items: each link's
   * item, slug reservation and list entries, as `createWithSlug` does for one. When a condition
   * fails nothing is written, and the answer names the links whose slug (or, vanishingly rarely,
   * id) is taken, so the caller can drop or re-key them and write the rest again. Contention with
   * another transaction is `LinkChangedError` (retry). The chunk's audit entry (one `link.created`
   * listing the links) and its index items (one per link after the first, so `resourceId` finds
   * the entry by any of them) are the transaction's last items: all or none.
   */
  async createManyWithSlugs(
    links: LinkRecord[],
    audit: AuditEntry,
  ): Promise<{ slugTaken: string[]; idTaken: string[] }> {
    const items: Array<{ Put: Record<string, unknown> }> = [];
    const positions: Array<{ id: string; link: number; slug: number }> = [];
    for (const link of links) {
      positions.push({ id: link.id, link: items.length, slug: items.length + 1 });
      items.push(
        { Put: { TableName: tableName(), Item: linkItem(link), ConditionExpression: 'attribute_not_exists(pk)' } },
        { Put: { TableName: tableName(), Item: slugItem(link), ConditionExpression: 'attribute_not_exists(pk)' } },
        ...linkListEntryItems(link).map((Item) => ({ Put: { TableName: tableName(), Item } })),
      );
    }
    try {
      await getDocumentClient().send(
        new TransactWriteCommand({ TransactItems: [...items, ...auditPuts(audit)] as never }),
      );
      return { slugTaken: [], idTaken: [] };
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const failed = (i: number) => error.CancellationReasons?.[i]?.Code === 'ConditionalCheckFailed';
      const slugTaken = positions.filter((p) => failed(p.slug)).map((p) => p.id);
      const idTaken = positions.filter((p) => failed(p.link)).map((p) => p.id);
      if (slugTaken.length === 0 && idTaken.length === 0) {
        if (error.CancellationReasons?.some((r) => r.Code === 'TransactionConflict')) throw new LinkChangedError();
        throw error;
      }
      return { slugTaken, idTaken };
    }
  },

  /**
   * Writes a change of a link (PATCH, archive, restore) in ONE transaction:
   * - the link item, only if its `updatedAt` is still the one that was read (else
   *   `LinkChangedError`: two patches can never interleave); counters are left alone;
   * - the slug item with the fresh redirect record: in place (only if it still points at this
   *   link), or moved: the old one deleted (same condition) and the new one put only if free
   *   (else `SlugTakenError`);
   * - the list entries (domain, tags) with the new index keys; removed tags' entries deleted;
   * - the change's audit entry (both or neither).
   * At most 1 + 2 + 1 + 20 + 20 + 1 items, within the 100-item transaction limit.
   */
  async saveChange(previous: LinkRecord, next: LinkRecord, audit: AuditEntry): Promise<void> {
    const item = linkItem(next) as Record<string, unknown>;
    const moved = keys.slug(previous.domain, previous.key).pk !== keys.slug(next.domain, next.key).pk;
    const stillOurs = { ConditionExpression: 'linkId = :id', ExpressionAttributeValues: { ':id': previous.id } };
    const slugWrites = moved
      ? [
          { Delete: { TableName: tableName(), Key: keys.slug(previous.domain, previous.key), ...stillOurs } },
          { Put: { TableName: tableName(), Item: slugItem(next), ConditionExpression: 'attribute_not_exists(pk)' } },
        ]
      : [{ Put: { TableName: tableName(), Item: slugItem(next), ...stillOurs } }];
    const newSlugIndex = moved ? 2 : -1;
    const names = Object.fromEntries(EDITABLE_ATTRIBUTES.map((a, i) => [`#a${i}`, a]));
    const values = Object.fromEntries(EDITABLE_ATTRIBUTES.map((a, i) => [`:a${i}`, item[a]]));
    try {
      await getDocumentClient().send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: tableName(),
                Key: keys.link(previous.id),
                UpdateExpression: `SET ${EDITABLE_ATTRIBUTES.map((_, i) => `#a${i} = :a${i}`).join(', ')}`,
                ConditionExpression: 'attribute_exists(pk) AND #ws = :ws AND #prevUpdated = :prevUpdated',
                ExpressionAttributeNames: { ...names, '#ws': 'workspaceId', '#prevUpdated': 'updatedAt' },
                ExpressionAttributeValues: {
                  ...values,
                  ':ws': previous.workspaceId,
                  ':prevUpdated': previous.updatedAt,
                },
              },
            },
            ...slugWrites,
            ...linkListEntryItems(next).map((Item) => ({ Put: { TableName: tableName(), Item } })),
            ...staleTagEntryKeys(previous, next).map((Key) => ({ Delete: { TableName: tableName(), Key } })),
            auditPut(audit),
          ],
        }),
      );
    } catch (error) {
      if (newSlugIndex >= 0 && isSlugConflict(error, [newSlugIndex])) throw new SlugTakenError();
      if (error instanceof TransactionCanceledException) throw new LinkChangedError();
      throw error;
    }
  },

  /** The link items for these ids (missing ones are absent from the map); BatchGet of 100. */
  async findByIds(linkIds: string[]): Promise<Map<string, LinkRecord>> {
    const found = new Map<string, LinkRecord>();
    for (const raw of await batchGetItems([...new Set(linkIds)].map((id) => ({ ...keys.link(id) })))) {
      const link = strip(raw) as LinkRecord;
      found.set(link.id, link);
    }
    return found;
  },

  async findById(linkId: string, consistent = false): Promise<LinkRecord | undefined> {
    const out = await getDocumentClient().send(
      new GetCommand({ TableName: tableName(), Key: keys.link(linkId), ConsistentRead: consistent }),
    );
    return out.Item ? (strip(out.Item) as LinkRecord) : undefined;
  },

  /** The link holding this domain+key (archived links keep their slug), via the slug item. */
  async findBySlug(domain: string, key: string): Promise<LinkRecord | undefined> {
    const slug = await getDocumentClient().send(
      new GetCommand({ TableName: tableName(), Key: keys.slug(domain, key) }),
    );
    const linkId = slug.Item?.linkId as string | undefined;
    return linkId ? this.findById(linkId) : undefined;
  },

  /** The workspace's link of this type; another workspace's id (or the other type) is 404. */
  async getByIdOrThrow(
    workspaceId: string,
    linkId: string,
    linkType: LinkType,
    consistent = false,
  ): Promise<LinkRecord> {
    const link = await this.findById(linkId, consistent);
    if (!link || link.workspaceId !== workspaceId || link.linkType !== linkType) {
      throw notFound(linkType === 'DEEPLINK' ? 'Deep link' : 'Link');
    }
    return link;
  },
};

export { isSlugConflict };
