import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { observabilityMiddlewares } from '@shared/http/middleware/observability';
import { deliverBatch } from '@shared/outbound/delivery-batch';

/** SQS -> webhook endpoints (Standard Webhooks); partial batch failures retry only what failed. */
export const handler = middy<SQSEvent, SQSBatchResponse>((event: SQSEvent) => deliverBatch(event)).use(
  observabilityMiddlewares<SQSEvent, SQSBatchResponse, Context>(),
);
