import { getConfig } from '@shared/config/config';
import type { EventRecord } from './event-record';
import { createFirehosePut } from './firehose-client';
import { createFirehoseSink } from './firehose-sink';
import { createSqsSpool } from './event-spool';
import { createLocalLakeSink } from './local-lake-sink';

/** Where every recorded event goes: Firehose when deployed, the local lake on one machine. */
export interface EventSink {
  send(events: EventRecord[]): Promise<void>;
}

let sink: EventSink | undefined;

export const getEventSink = (): EventSink => {
  if (!sink) {
    const config = getConfig();
    if (config.EVENTS_STREAM_NAME) {
      // The sink retries itself (per record, with backoff); the client makes one attempt per call.
      // What still fails after the retries goes to the SQS spool; the redrive Lambda re-sends it.
      const spool = config.EVENTS_SPOOL_QUEUE_URL ? createSqsSpool({ queueUrl: config.EVENTS_SPOOL_QUEUE_URL, region: config.AWS_REGION }) : undefined;
      sink = createFirehoseSink({ putRecordBatch: createFirehosePut({ region: config.AWS_REGION }), streamName: config.EVENTS_STREAM_NAME, spool });
    } else if (config.LOCAL_LAKE_DIR) sink = createLocalLakeSink(config.LOCAL_LAKE_DIR);
    else throw new Error('No event sink configured (EVENTS_STREAM_NAME or LOCAL_LAKE_DIR)');
  }
  return sink;
};

/** For tests: route events elsewhere (e.g. a Firehose sink over a stubbed client). */
export const setEventSink = (next: EventSink | undefined) => {
  sink = next;
};
