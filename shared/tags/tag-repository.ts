import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import type { TagRef } from '@shared/links/link-record';
import { prefixedId } from '@shared/util/ids';
import { sha256Hex } from '@shared/util/hash';
import { required } from '@shared/util/required';

/** The allowed tag colours, chosen from the name when a tag is first used. */
export const TAG_COLORS = [
  'red',
  'orange',
  'yellow',
  'green',
  'teal',
  'blue',
  'purple',
  'pink',
  'brown',
  'gray',
] as const;

export const colorForTagName = (name: string): string =>
  required(TAG_COLORS[parseInt(sha256Hex(name.toLowerCase()).slice(0, 8), 16) % TAG_COLORS.length], 'a tag color');

/** Case-insensitive de-duplication, first spelling wins, order kept. */
export const uniqueTagNames = (names: string[]): string[] => {
  const seen = new Set<string>();
  return names.filter((n) => {
    const k = n.toLowerCase();
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
};

export const tagRepository = {
  /** Returns the workspace's tags for these names, creating the missing ones (names unique ignoring case). */
  async ensureTags(workspaceId: string, names: string[]): Promise<TagRef[]> {
    return Promise.all(uniqueTagNames(names).map((name) => this.ensureTag(workspaceId, name)));
  },

  async ensureTag(workspaceId: string, name: string): Promise<TagRef> {
    const tag: TagRef = { id: prefixedId('tag'), name, color: colorForTagName(name) };
    try {
      await getDocumentClient().send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...keys.tag(workspaceId, name),
            type: 'TAG',
            workspaceId,
            ...tag,
            createdAt: new Date().toISOString(),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return tag;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException && error.Item) {
        const existing = unmarshall(error.Item);
        return { id: String(existing.id), name: String(existing.name), color: String(existing.color) };
      }
      throw error;
    }
  },
};
