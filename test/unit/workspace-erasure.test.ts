import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { batchDeleteKeys } from '@shared/admin/batch-delete';
import {
  emptyOwnedIds,
  isDependentItem,
  kindOfItem,
  noteOwnedIds,
  workspaceOfItem,
  type TableItem,
} from '@shared/admin/workspace-items';
import { keys } from '@shared/db/keys';
import { awsLoopback, loopbackCredentials } from '@test/support/aws-loopback';

const item = (key: { pk: string; sk: string }, rest: Record<string, unknown> = {}): TableItem => ({ ...key, ...rest });

describe('which items belong to a workspace', () => {
  it('reads the workspace from the attribute, the event, or a workspace-scoped key, exactly', () => {
    expect(workspaceOfItem(item(keys.link('lnk_1'), { type: 'LINK', workspaceId: 'ws_a' }))).toBe('ws_a');
    expect(workspaceOfItem(item(keys.outbox('e1'), { type: 'OUTBOX', event: { workspaceId: 'ws_a' } }))).toBe('ws_a');
    for (const key of [
      keys.idempotency('ws_a', 'POST /v1/links', 'h'),
      keys.rateCounter('ws_a', 'server', 60, 3),
      keys.analyticsCache('ws_a', 'r', 's', '7d', 'human'),
      keys.fingerprintClick('ws_a', 'fp', 't', 'c'),
      keys.firstOpen('ws_a', 'i'),
      keys.customerEvent('ws_a', 'e'),
      keys.webhookEndpoint('ws_a', 'wh'),
      keys.eventLog('ws_a', 't', 'e', 0),
      keys.workspace('ws_a'),
      keys.tag('ws_a', 'x'),
      keys.conversionSettings('ws_a'),
    ]) {
      expect(workspaceOfItem(item(key)), key.pk).toBe('ws_a');
    }
    // A prefix of another id is another workspace; keys that carry no workspace carry none.
    expect(workspaceOfItem(item(keys.idempotency('ws_ab', 'r', 'h')))).toBe('ws_ab');
    expect(workspaceOfItem(item(keys.slug('ws_a.example', 'ws_a')))).toBeUndefined();
    expect(workspaceOfItem(item(keys.secret('ip-salt')))).toBeUndefined();
    // The attribute wins over a key segment.
    expect(workspaceOfItem(item(keys.workspace('ws_a'), { workspaceId: 'ws_b' }))).toBe('ws_b');
  });

  it('takes items keyed by its links, keys, endpoints and domain names, and nothing that names another workspace', () => {
    const ids = emptyOwnedIds();
    noteOwnedIds(item(keys.link('lnk_1'), { type: 'LINK', id: 'lnk_1', workspaceId: 'ws_a' }), ids);
    noteOwnedIds(item(keys.apiKey('hash1'), { type: 'APIKEY', keyHash: 'hash1', workspaceId: 'ws_a' }), ids);
    noteOwnedIds(item(keys.webhookEndpoint('ws_a', 'wh_1'), { type: 'WEBHOOK', id: 'wh_1', workspaceId: 'ws_a' }), ids);
    noteOwnedIds(
      item(keys.domain('ws_a', 'dom_1'), { type: 'DOMAIN', domain: 'Go.A.example', workspaceId: 'ws_a' }),
      ids,
    );
    expect(isDependentItem(item(keys.passwordAttempts('lnk_1', 'c')), ids)).toBe(true);
    expect(isDependentItem(item(keys.linkListEntry('lnk_1', 'DOMAIN')), ids)).toBe(true);
    expect(isDependentItem(item(keys.browserOrigin('https://a.example', 'hash1')), ids)).toBe(true);
    expect(isDependentItem(item(keys.host('go.a.example')), ids)).toBe(true);
    expect(isDependentItem(item(keys.webhookReplay('wh_1', 'e1')), ids)).toBe(true);
    expect(isDependentItem(item(keys.webhookSent('wh_1', 'e1')), ids)).toBe(true);
    expect(isDependentItem(item(keys.webhookSent('wh_2', 'e1')), ids)).toBe(false);
    expect(isDependentItem(item(keys.apiKey('hash1')), ids)).toBe(true);
    expect(isDependentItem(item(keys.passwordAttempts('lnk_2', 'c')), ids)).toBe(false);
    expect(isDependentItem(item(keys.browserOrigin('https://a.example', 'hash2')), ids)).toBe(false);
    expect(isDependentItem(item(keys.host('go.a.example'), { workspaceId: 'ws_b' }), ids)).toBe(false);
    expect(isDependentItem(item(keys.secret('ip-salt')), ids)).toBe(false);
  });

  it('counts an item under its type, else its key prefix', () => {
    expect(kindOfItem(item(keys.passwordAttempts('l', 'c')))).toBe('PWTRY');
    expect(kindOfItem(item(keys.link('l'), { type: 'LINK' }))).toBe('LINK');
  });
});

describe('batched deletes', () => {
  const dynamo = awsLoopback();
  const client = () =>
    DynamoDBDocumentClient.from(
      new DynamoDBClient({
        region: 'us-east-1',
        endpoint: dynamo.endpoint,
        credentials: loopbackCredentials,
        maxAttempts: 1,
      }),
    );

  it('sends 25 deletes per BatchWriteItem and re-sends the unprocessed ones after a backoff', async () => {
    const itemKeys = Array.from({ length: 30 }, (_, i) => keys.link(`lnk_${i}`));
    const unprocessed = {
      UnprocessedItems: { t: [{ DeleteRequest: { Key: { pk: { S: 'LINK#lnk_3' }, sk: { S: 'LINK' } } } }] },
    };
    dynamo.reply = { status: 200, json: unprocessed };
    const sleeps: number[] = [];
    let deleted = 0;
    const { retries } = await batchDeleteKeys(itemKeys, {
      client: client(),
      table: 't',
      sleep: (ms) => {
        sleeps.push(ms);
        dynamo.reply = { status: 200, json: { UnprocessedItems: {} } };
        return Promise.resolve();
      },
      onDeleted: (n) => (deleted += n),
    });
    const bodies = dynamo.seen.map(
      (r) => JSON.parse(r.body) as { RequestItems: { t: Array<{ DeleteRequest: { Key: { pk: { S: string } } } }> } },
    );
    expect(dynamo.seen.map((r) => r.headers['x-amz-target'])).toEqual(
      Array(3).fill('DynamoDB_20120810.BatchWriteItem'),
    );
    expect(bodies.map((b) => b.RequestItems.t.length)).toEqual([25, 1, 5]);
    expect(bodies[1]!.RequestItems.t[0]!.DeleteRequest.Key.pk).toEqual({ S: 'LINK#lnk_3' });
    expect({ retries, sleeps, deleted }).toEqual({ retries: 1, sleeps: [50], deleted: 30 });
  });

  it('gives up with a clear error when items stay unprocessed', async () => {
    dynamo.reply = {
      status: 200,
      json: { UnprocessedItems: { t: [{ DeleteRequest: { Key: { pk: { S: 'LINK#x' }, sk: { S: 'LINK' } } } }] } },
    };
    await expect(
      batchDeleteKeys([keys.link('x')], { client: client(), table: 't', sleep: async () => {}, maxAttempts: 3 }),
    ).rejects.toThrow(/1 items unprocessed after 3 attempts; run the command again/);
  });
});
