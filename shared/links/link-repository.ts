import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { AppError, notFound } from '@shared/errors/app-error';
import { strip } from '@shared/tenancy/workspace-repository';
import type { LinkRecord, LinkType } from './link-record';
import { toRedirectRecord } from './redirect-record';

export class SlugTakenError extends AppError {
  constructor() {
    super('slug_taken', 'This domain and key are already used by another link');
  }
}

/** Index keys of a link item (lists query these; see the list module for what each serves). */
export const linkIndexKeys = (link: LinkRecord) => {
  const base = `${link.workspaceId}#${link.linkType}#${link.archived ? 1 : 0}`;
  return {
    gsi1pk: base,
    gsi1sk: `${link.createdAt}#${link.id}`,
    gsi2pk: base,
    gsi2sk: `${link.updatedAt}#${link.id}`,
  };
};

export const linkItem = (link: LinkRecord) => ({ ...keys.link(link.id), type: 'LINK', ...linkIndexKeys(link), ...link });
export const slugItem = (link: LinkRecord) => ({
  ...keys.slug(link.domain, link.key),
  type: 'SLUG',
  ...toRedirectRecord(link),
});

const isSlugConflict = (error: unknown, slugIndexes: number[]): boolean =>
  error instanceof TransactionCanceledException &&
  slugIndexes.some((i) => error.CancellationReasons?.[i]?.Code === 'ConditionalCheckFailed');

export const linkRepository = {
  /**
   * Writes the link and reserves its slug in one transaction: the slug item is put only if no
   * item holds that domain+key (archived links keep theirs). A clash is `SlugTakenError`.
   */
  async createWithSlug(link: LinkRecord): Promise<void> {
    try {
      await getDocumentClient().send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: tableName(), Item: linkItem(link), ConditionExpression: 'attribute_not_exists(pk)' } },
            { Put: { TableName: tableName(), Item: slugItem(link), ConditionExpression: 'attribute_not_exists(pk)' } },
          ],
        }),
      );
    } catch (error) {
      if (isSlugConflict(error, [1])) throw new SlugTakenError();
      throw error;
    }
  },

  async findById(linkId: string, consistent = false): Promise<LinkRecord | undefined> {
    const out = await getDocumentClient().send(
      new GetCommand({ TableName: tableName(), Key: keys.link(linkId), ConsistentRead: consistent }),
    );
    return out.Item ? strip<LinkRecord>(out.Item) : undefined;
  },

  /** The link holding this domain+key (archived links keep their slug), via the slug item. */
  async findBySlug(domain: string, key: string): Promise<LinkRecord | undefined> {
    const slug = await getDocumentClient().send(new GetCommand({ TableName: tableName(), Key: keys.slug(domain, key) }));
    const linkId = slug.Item?.linkId as string | undefined;
    return linkId ? this.findById(linkId) : undefined;
  },

  /** The workspace's link of this type; another workspace's id (or the other type) is 404. */
  async getByIdOrThrow(workspaceId: string, linkId: string, linkType: LinkType): Promise<LinkRecord> {
    const link = await this.findById(linkId);
    if (!link || link.workspaceId !== workspaceId || link.linkType !== linkType) {
      throw notFound(linkType === 'DEEPLINK' ? 'Deep link' : 'Link');
    }
    return link;
  },
};

export { isSlugConflict };
