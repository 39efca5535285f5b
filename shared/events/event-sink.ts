import { getConfig } from '@shared/config/config';
import type { EventSink } from './event-sink-interface';
import { createKinesisPut } from './kinesis-client';
import { createStreamSink } from './stream-sink';
import { createSqsSpool } from './event-spool';

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

let build: () => EventSink = productionEventSink;
let sink: EventSink | undefined;

/** The process's sink, built on first use: the production one, unless the composition root provided another. */
export const getEventSink = (): EventSink => {
  sink ??= build();
  return sink;
};

/**
 * For a composition root other than a Lambda's (the local stack, the admin CLI pointed at it, the
 * test environment): how this process builds its sink; undefined: the production one again.
 */
export const provideEventSink = (factory: (() => EventSink) | undefined): void => {
  build = factory ?? productionEventSink;
  sink = undefined;
};

/** For tests: route events elsewhere (e.g. a stream sink over a stubbed client); undefined: built again on next use. */
export const setEventSink = (next: EventSink | undefined) => {
  sink = next;
};
