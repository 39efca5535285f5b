import { getConfig } from '@shared/config/config';
import type { EventRecord } from './event-record';
import { createKinesisPut } from './kinesis-client';
import { createStreamSink } from './stream-sink';
import { createSqsSpool } from './event-spool';
import { createLocalEventStream } from './local-event-stream';

export interface SendOptions {
  /**
   * For the lake only: replays of records the lake failed to store (`admin replay-lake-errors`)
   * were counted when they first passed, so the click counters skip them.
   */
  lakeOnly?: boolean;
  /**
   * The caller's budget: once aborted, the sink stops (the request in flight is cancelled, no
   * retry, no spool) and the send rejects with the signal's reason. The caller owns the events
   * then (the edge logs them once for replay, shared/clicks/record-click-within.ts).
   */
  signal?: AbortSignal;
}

/**
 * Where every recorded event goes: the event stream (Kinesis Data Streams, read by Firehose into
 * the lake and by the click counter consumer) when deployed; its local stand-in on one machine.
 */
export interface EventSink {
  send(events: EventRecord[], options?: SendOptions): Promise<void>;
}

let sink: EventSink | undefined;

export const getEventSink = (): EventSink => {
  if (!sink) {
    const config = getConfig();
    if (config.EVENTS_STREAM_NAME) {
      // The sink retries itself (per record, with backoff); the client makes one attempt per call.
      // What still fails after the retries goes to the SQS spool; the redrive Lambda re-sends it.
      const spool = config.EVENTS_SPOOL_QUEUE_URL
        ? createSqsSpool({ queueUrl: config.EVENTS_SPOOL_QUEUE_URL, region: config.AWS_REGION })
        : undefined;
      sink = createStreamSink({
        putRecords: createKinesisPut({ region: config.AWS_REGION }),
        streamName: config.EVENTS_STREAM_NAME,
        spool,
      });
    } else if (config.LOCAL_LAKE_DIR) sink = createLocalEventStream(config.LOCAL_LAKE_DIR);
    else throw new Error('No event sink configured (EVENTS_STREAM_NAME or LOCAL_LAKE_DIR)');
  }
  return sink;
};

/** For tests: route events elsewhere (e.g. a stream sink over a stubbed client). */
export const setEventSink = (next: EventSink | undefined) => {
  sink = next;
};
