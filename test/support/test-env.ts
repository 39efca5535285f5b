import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { beforeAll, inject } from 'vitest';
import { createTableIfMissing } from '@shared/local/create-table';

/**
 * Runs before every test file: points the configuration at the shared DynamoDB Local, a table of
 * this file's own, and a temporary event lake, then creates the table.
 */
process.env.DYNAMODB_ENDPOINT = inject('dynamoEndpoint');
process.env.TABLE_NAME = `test-${randomBytes(6).toString('hex')}`;
process.env.LOCAL_LAKE_DIR = mkdtempSync(path.join(tmpdir(), 'linkservice-lake-'));
process.env.AWS_REGION = 'us-east-1';
process.env.LOG_LEVEL ??= 'silent';
// EMF metric lines are for CloudWatch; a test that checks them turns them on (vi.hoisted, before its imports).
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

beforeAll(async () => {
  const client = new DynamoDBClient({
    endpoint: process.env.DYNAMODB_ENDPOINT,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await createTableIfMissing(client, process.env.TABLE_NAME!);
  client.destroy();
});
