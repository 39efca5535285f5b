/**
 * The edge click-log consumer (only with the `edgeHotLinks` context on): CloudFront real-time log
 * records on their Kinesis stream -> click events of the redirects the hot-link function answered
 * at the edge, through the event sink, with ids from CloudFront's request ids (counted once
 * however often a record comes: shared/edge/hot-links/edge-click-events.ts). Records that could
 * not be converted or sent are reported as batch item failures and delivered again; a batch still
 * failing at 20 h is kept whole in its failures bucket for `admin replay-stream-failures`.
 */
import middy from '@middy/core';
import type { KinesisStreamBatchResponse, KinesisStreamEvent } from 'aws-lambda';
import { getEventSink } from '@shared/events/event-sink';
import { convertEdgeClickLogs, edgeClickLogRecordsOf } from '@shared/edge/hot-links/edge-click-events';
import { observabilityMiddlewares } from '@shared/http/middleware/observability';
import { log } from '@shared/util/logger';

const convert = async (event: KinesisStreamEvent): Promise<KinesisStreamBatchResponse> => {
  const result = await convertEdgeClickLogs(edgeClickLogRecordsOf(event.Records), (events) =>
    getEventSink().send(events),
  );
  log(result.failed.length ? 'error' : 'info', 'edge click logs converted', {
    records: event.Records.length,
    ...result,
  });
  return { batchItemFailures: result.failed.map((itemIdentifier) => ({ itemIdentifier })) };
};

export const handler = middy<KinesisStreamEvent, KinesisStreamBatchResponse>(convert).use(observabilityMiddlewares());
