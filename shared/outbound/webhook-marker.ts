import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';

/**
 * Each event delivered once per endpoint, whatever is re-put: the table stream's consumer
 * publishes a retried batch again (same event ids), and SQS delivers a message at least once.
 * Before posting, a delivery claims its (endpoint, event id) marker; a copy that finds it
 * delivered is dropped, one that finds it being delivered by another attempt is retried later.
 * The claim is a lease (`LEASE_MS`, past the delivery function's 30 s timeout): a claimant that
 * died leaves a marker the next attempt takes over. A failed post releases the claim. Two writes
 * per delivery (claim, mark delivered). Replays asked for (`webhooks replay`) skip the marker.
 */
export const LEASE_MS = 60_000;
/** Markers outlive the delivery queue's retention (4 days): no copy of a message is older. */
export const MARKER_TTL_DAYS = 4;

export type DeliveryClaim = 'claimed' | 'delivered' | 'in_flight';

export const claimDelivery = async (endpointId: string, eventId: string, now: Date): Promise<DeliveryClaim> => {
  try {
    await getDocumentClient().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.webhookSent(endpointId, eventId),
          state: 'sending',
          leaseUntil: new Date(now.getTime() + LEASE_MS).toISOString(),
          ttl: Math.floor(now.getTime() / 1000) + MARKER_TTL_DAYS * 86_400,
        },
        ConditionExpression: 'attribute_not_exists(pk) OR (#state = :sending AND leaseUntil < :now)',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':sending': 'sending', ':now': now.toISOString() },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return 'claimed';
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    // The document client does not unmarshall an error's item.
    const old = (error as { Item?: Parameters<typeof unmarshall>[0] }).Item;
    return old && unmarshall(old).state === 'delivered' ? 'delivered' : 'in_flight';
  }
};

export const markDelivered = async (endpointId: string, eventId: string, now: Date): Promise<void> => {
  await getDocumentClient().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.webhookSent(endpointId, eventId),
      UpdateExpression: 'SET #state = :delivered, deliveredAt = :now REMOVE leaseUntil',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':delivered': 'delivered', ':now': now.toISOString() },
    }),
  );
};

/** A failed attempt gives its claim back (only while it still holds it), so the retry may post. */
export const releaseDelivery = async (endpointId: string, eventId: string): Promise<void> => {
  try {
    await getDocumentClient().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: keys.webhookSent(endpointId, eventId),
        ConditionExpression: '#state = :sending',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':sending': 'sending' },
      }),
    );
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
  }
};
