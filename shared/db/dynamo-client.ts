import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { getConfig } from '@shared/config/config';

let client: DynamoDBDocumentClient | undefined;

/** One document client per process (module scope), created on first use. */
export const getDocumentClient = (): DynamoDBDocumentClient => {
  if (!client) {
    const config = getConfig();
    const base = new DynamoDBClient({
      region: config.AWS_REGION,
      ...(config.DYNAMODB_ENDPOINT
        ? {
            endpoint: config.DYNAMODB_ENDPOINT,
            credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
            maxAttempts: 2,
          }
        : {}),
    });
    client = DynamoDBDocumentClient.from(base, {
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    });
  }
  return client;
};

export const tableName = (): string => getConfig().TABLE_NAME;
