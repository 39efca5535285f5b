import { getConfig } from '@shared/config/config';
import type { EventSink } from './event-sink-interface';
import { createKinesisPut } from './kinesis-client';
import { createStreamSink } from './stream-sink';
import { createSqsSpool } from './event-spool';
import { service } from '@shared/runtime/services';

export type { EventSink, SendOptions } from './event-sink-interface';

/**
 * The deployed sink: the event stream named by EVENTS_STREAM_NAME. The sink retries itself (per
 * record, with backoff); the client makes one attempt per call. What still fails after the
 * retries goes to the SQS spool; the redrive Lambda re-sends it.
 */
export const productionEventSink = (): EventSink => {
  const config = getConfig();
  if (!config.EVENTS_STREAM_NAME) {
    throw new Error('No event sink configured (EVENTS_STREAM_NAME; the local stack provides its own)');
  }
  const spool = config.EVENTS_SPOOL_QUEUE_URL
    ? createSqsSpool({ queueUrl: config.EVENTS_SPOOL_QUEUE_URL, region: config.AWS_REGION })
    : undefined;
  return createStreamSink({
    putRecords: createKinesisPut({ region: config.AWS_REGION }),
    streamName: config.EVENTS_STREAM_NAME,
    spool,
  });
};

/**
 * The process's sink, built on first use (shared/runtime/services.ts): the production one, unless
 * the composition root provided another.
 */
export const getEventSink = (): EventSink => service('eventSink', productionEventSink);
