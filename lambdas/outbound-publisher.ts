import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { publishStreamBatch } from '@shared/outbound/publish-stream-batch';

/** The table's stream -> the event bus and the webhook queue. */
export const handler = (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => publishStreamBatch(event);
