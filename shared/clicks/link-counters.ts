import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { clicksBucket, clicksBucketStart, clicksSortKey } from '@shared/links/link-index';

/**
 * One atomic UpdateItem per click: `clicks`/`lastClicked` for humans, `botClicks` /
 * `lastBotClickedAt` for bots. Counters are not index keys; a human click that moves the count
 * into the next clicks bucket (link-index.ts) also moves the link's clicks-order sort key, with
 * a second UpdateItem conditioned on the count still being in that bucket (a later crossing
 * writes its own).
 * Returns false when the link no longer exists. A transaction conflict (the link inside a PATCH)
 * is retried by the client (shared/db/conflict-retry.ts); `abortSignal` bounds the whole call.
 */
export const incrementClickCounters = async (linkId: string, isBot: boolean, at: string, abortSignal?: AbortSignal): Promise<boolean> => {
  let updated: Record<string, unknown> | undefined;
  try {
    const out = await getDocumentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.link(linkId),
        UpdateExpression: isBot
          ? 'ADD botClicks :one SET lastBotClickedAt = :at'
          : 'ADD clicks :one SET lastClicked = :at',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':one': 1, ':at': at },
        // A human click needs the new count and the creation time (the clicks-order sort key).
        ReturnValues: isBot ? 'NONE' : 'ALL_NEW',
      }),
      { abortSignal },
    );
    updated = out.Attributes;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
  const clicks = Number(updated?.clicks ?? 0);
  if (!isBot && updated?.gsi3pk !== undefined && clicksBucket(clicks) !== clicksBucket(clicks - 1)) {
    await moveClicksSortKey(linkId, clicks, String(updated.createdAt), abortSignal);
  }
  return true;
};

const moveClicksSortKey = async (linkId: string, clicks: number, createdAt: string, abortSignal?: AbortSignal): Promise<void> => {
  const bucket = clicksBucket(clicks);
  try {
    await getDocumentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.link(linkId),
        UpdateExpression: 'SET gsi3sk = :sk',
        ConditionExpression: 'attribute_exists(gsi3pk) AND clicks >= :lo AND clicks < :hi',
        ExpressionAttributeValues: { ':sk': clicksSortKey({ id: linkId, createdAt, clicks }), ':lo': clicksBucketStart(bucket), ':hi': clicksBucketStart(bucket + 1) },
      }),
      { abortSignal },
    );
  } catch (error) {
    // The count has moved on (a later crossing writes its bucket), or the link is gone.
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
  }
};
