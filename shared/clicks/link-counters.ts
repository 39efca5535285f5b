import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';

/**
 * One atomic UpdateItem per click: `clicks`/`lastClicked` for humans, `botClicks` /
 * `lastBotClickedAt` for bots. Counters are not index keys, so no index write follows.
 * Returns false when the link no longer exists. A transaction conflict (the link inside a PATCH)
 * is retried by the client (shared/db/conflict-retry.ts); `abortSignal` bounds the whole call.
 */
export const incrementClickCounters = async (linkId: string, isBot: boolean, at: string, abortSignal?: AbortSignal): Promise<boolean> => {
  try {
    await getDocumentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.link(linkId),
        UpdateExpression: isBot
          ? 'ADD botClicks :one SET lastBotClickedAt = :at'
          : 'ADD clicks :one SET lastClicked = :at',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':one': 1, ':at': at },
      }),
      { abortSignal },
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
};
