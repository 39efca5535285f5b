import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { beforeAll, inject } from 'vitest';
import { createTableIfMissing } from '@shared/local/create-table';

/**
 * Runs before every integration and end-to-end test file (after test-env.ts): points the
 * configuration at the run's DynamoDB Local (test/support/global-setup.ts) and creates this
 * file's table in it.
 */
process.env.DYNAMODB_ENDPOINT = inject('dynamoEndpoint');

beforeAll(async () => {
  const client = new DynamoDBClient({
    endpoint: process.env.DYNAMODB_ENDPOINT,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await createTableIfMissing(client, process.env.TABLE_NAME!);
  client.destroy();
});
