/**
 * Redrive of the event spool (SQS event source): re-sends spooled events to the event stream and reports
 * the messages that still fail as batch item failures, so only those come back to the queue.
 */
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { getConfig } from '@shared/config/config';
import { createKinesisPut } from '@shared/events/kinesis-client';
import { createStreamSink } from '@shared/events/stream-sink';
import { redriveSpooledMessages } from '@shared/events/redrive-events';
import { createErasedCheck } from '@shared/tenancy/erased-workspaces';
import { observabilityMiddlewares } from '@shared/http/middleware/observability';
import { log } from '@shared/util/logger';

const config = getConfig();
const sink = createStreamSink({
  putRecords: createKinesisPut({ region: config.AWS_REGION }),
  streamName: config.EVENTS_STREAM_NAME ?? '',
  maxAttempts: 3,
});
/** Events of erased workspaces are dropped (the tombstones in the table; erased-workspaces.ts). */
const erased = createErasedCheck();

const redrive = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const result = await redriveSpooledMessages(
    event.Records.map((r) => ({ id: r.messageId, body: r.body })),
    sink,
    { erased },
  );
  log('info', 'Redrive of spooled events', {
    messages: event.Records.length,
    delivered: result.delivered.length,
    failed: result.failed.length,
    eventsReplayed: result.eventsReplayed,
    eventsDropped: result.eventsDropped,
  });
  return { batchItemFailures: result.failed.map((itemIdentifier) => ({ itemIdentifier })) };
};

export const handler = middy<SQSEvent, SQSBatchResponse>(redrive).use(
  observabilityMiddlewares<SQSEvent, SQSBatchResponse, Context>(),
);
