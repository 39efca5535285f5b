import type { EventRecord } from './event-record';

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
 * the lake and by the click counter consumer) when deployed (stream-sink.ts); the local stack's
 * stand-in on one machine (local-event-stream.ts). A module of its own, importing nothing that
 * builds a sink, so the sinks and their users depend on it and never on each other.
 */
export interface EventSink {
  send(events: EventRecord[], options?: SendOptions): Promise<void>;
}
