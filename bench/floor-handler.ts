/** The floor: a bare DynamoDB client and one command, bundled like every handler. */
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';

const client = new DynamoDBClient({});

export const handler = async (event: { pk: string }) =>
  client.send(new GetItemCommand({ TableName: process.env.TABLE_NAME, Key: { pk: { S: event.pk }, sk: { S: 'LINK' } } }));
