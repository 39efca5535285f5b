import middy from '@middy/core';
import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { observabilityMiddlewares } from '@shared/http/middleware/observability';
import { publishStreamBatch } from '@shared/outbound/publish-stream-batch';

/** The table's stream -> the event bus and the webhook queue. */
export const handler = middy<DynamoDBStreamEvent, DynamoDBBatchResponse>((event: DynamoDBStreamEvent) =>
  publishStreamBatch(event),
).use(observabilityMiddlewares<DynamoDBStreamEvent, DynamoDBBatchResponse, Context>());
