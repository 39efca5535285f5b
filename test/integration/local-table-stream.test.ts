import { CreateTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureTableStream } from '@shared/local/local-outbound';

const client = new DynamoDBClient({
  endpoint: process.env.DYNAMODB_ENDPOINT,
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});
afterAll(() => {
  client.destroy();
});

describe('the local table stream', () => {
  it('the test table is created with a NEW_AND_OLD_IMAGES stream, as deployed', async () => {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: process.env.TABLE_NAME! }));
    expect(Table?.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' });
    expect(await ensureTableStream(client, process.env.TABLE_NAME!)).toBe(Table?.LatestStreamArn);
  });

  it('a table made before outbound events (no stream) gets its stream turned on', async () => {
    const name = `${process.env.TABLE_NAME}-old`;
    await client.send(
      new CreateTableCommand({
        TableName: name,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
      }),
    );
    const arn = await ensureTableStream(client, name);
    const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
    expect(Table?.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' });
    expect(arn).toBe(Table?.LatestStreamArn);
  });
});
