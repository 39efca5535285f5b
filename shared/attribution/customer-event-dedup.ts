import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';

export const CUSTOMER_EVENT_DEDUP_MS = 7 * 24 * 3600 * 1000;

/**
 * `eventId` dedup for customer events (7 days, DynamoDB TTL): a conditional put claims an id;
 * an id already claimed and not yet expired is a duplicate. TTL deletion is lazy, so an expired
 * claim (ttl in the past) counts as free.
 */
export const customerEventDedup = {
  async claim(workspaceId: string, eventId: string, at: Date): Promise<boolean> {
    const now = Math.floor(at.getTime() / 1000);
    try {
      await getDocumentClient().send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...keys.customerEvent(workspaceId, eventId),
            type: 'CEVT',
            eventId,
            ttl: now + CUSTOMER_EVENT_DEDUP_MS / 1000,
          },
          ConditionExpression: 'attribute_not_exists(pk) OR #ttl < :now',
          ExpressionAttributeNames: { '#ttl': 'ttl' },
          ExpressionAttributeValues: { ':now': now },
        }),
      );
      return true;
    } catch (error) {
      if ((error as Error).name === 'ConditionalCheckFailedException') return false;
      throw error;
    }
  },

  /** Gives claims back (the events could not be queued), so that a retry is not a duplicate. */
  async release(workspaceId: string, eventIds: string[]): Promise<void> {
    await Promise.all(
      eventIds.map((eventId) =>
        getDocumentClient().send(
          new DeleteCommand({ TableName: tableName(), Key: keys.customerEvent(workspaceId, eventId) }),
        ),
      ),
    );
  },
};
