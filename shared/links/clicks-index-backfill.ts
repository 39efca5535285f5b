import { ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { clicksSortKey, linkListPartition } from './link-index';
import type { LinkRecord } from './link-record';

/**
 * Puts links written before the clicks index existed into it (gsi3 keys from their current
 * counters): a Scan of the link items without `gsi3pk`, one conditional UpdateItem each. Safe to
 * run again and alongside traffic (a link indexed meanwhile is skipped). Returns how many moved.
 */
export const backfillClicksIndex = async (onProgress: (done: number) => void = () => undefined): Promise<number> => {
  let done = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await getDocumentClient().send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: '#type = :link AND attribute_not_exists(gsi3pk)',
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: { ':link': 'LINK' },
        ExclusiveStartKey: start,
      }),
    );
    for (const item of (page.Items ?? []) as Array<LinkRecord & { pk: string }>) {
      try {
        await getDocumentClient().send(
          new UpdateCommand({
            TableName: tableName(),
            Key: keys.link(item.id),
            UpdateExpression: 'SET gsi3pk = :pk, gsi3sk = :sk',
            ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(gsi3pk)',
            ExpressionAttributeValues: {
              ':pk': linkListPartition(item.workspaceId, item.linkType, item.archived, { kind: 'all' }),
              ':sk': clicksSortKey(item),
            },
          }),
        );
        done++;
        onProgress(done);
      } catch (error) {
        if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
      }
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return done;
};
