import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '@shared/local/dynamodb-local';

/** One in-memory DynamoDB Local for the whole run; each test file makes its own table. */
export default async function setup(project: TestProject) {
  const dynamo = await startDynamoDbLocal({ lightJvm: true });
  project.provide('dynamoEndpoint', dynamo.endpoint);
  return async () => {
    await dynamo.stop();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}
