import { describe, expect, it } from 'vitest';
import { LAST_USED_UPDATE } from '@shared/auth/last-used';
import { webhookDeliveryConsumer } from '@shared/routes/consumer-specs';
import { functionTableAccess, refusedAccess, updatedAttributesOf } from '@shared/routes/table-access';

describe('attribute-limited updates (dynamodb:Attributes), as the local grant guard reads them', () => {
  it('names the top-level attribute of every path an update expression writes', () => {
    expect(updatedAttributesOf({ UpdateExpression: LAST_USED_UPDATE })).toEqual(['lastUsedOn']);
    expect(
      updatedAttributesOf({
        UpdateExpression: 'SET #a = if_not_exists(#a, :z), b.c = :x REMOVE d[0] ADD n :one DELETE tags :t',
        ExpressionAttributeNames: { '#a': 'enabled' },
      }),
    ).toEqual(['enabled', 'b', 'd', 'n', 'tags']);
  });

  it("covers the delivery's disable and nothing else of an endpoint: other attributes, returned values, transactions", () => {
    const statements = functionTableAccess(webhookDeliveryConsumer);
    const key = { pk: 'WEBHOOKS#ws_1', sk: 'WEBHOOK#wh_1' };
    const disable = { Key: key, UpdateExpression: 'SET enabled = :f, disabledAt = :now, disabledReason = :r' };
    expect(refusedAccess(statements, 'UpdateItemCommand', disable)).toBeNull();
    expect(refusedAccess(statements, 'UpdateItemCommand', { ...disable, ReturnValues: 'ALL_NEW' })).toMatch(
      /UpdateItem/,
    );
    expect(refusedAccess(statements, 'UpdateItemCommand', { Key: key, UpdateExpression: 'SET secret = :s' })).toMatch(
      /UpdateItem/,
    );
    expect(
      refusedAccess(statements, 'TransactWriteItemsCommand', {
        TransactItems: [{ Update: disable }],
      }),
    ).toMatch(/UpdateItem/);
  });
});
