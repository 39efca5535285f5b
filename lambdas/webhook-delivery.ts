import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { deliverBatch } from '@shared/outbound/delivery-batch';

/** SQS -> webhook endpoints (Standard Webhooks); partial batch failures retry only what failed. */
export const handler = (event: SQSEvent): Promise<SQSBatchResponse> => deliverBatch(event);
