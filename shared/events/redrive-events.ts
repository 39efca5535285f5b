import { dropErased, type ErasedCheck } from '@shared/tenancy/erased-workspaces';
import { log } from '@shared/util/logger';
import type { EventRecord } from './event-record';
import type { StreamSink } from './stream-sink';
import { parseSpoolMessage } from './event-spool';
import type { ReplayPacer } from './paced-replay';

export interface SpooledMessage {
  id: string;
  body: string;
}

export interface RedriveResult {
  /** Messages whose events all reached the event stream (delete them from the queue). */
  delivered: string[];
  /** Messages to leave on the queue (the stream still failing, or unreadable). */
  failed: string[];
  /** Events re-sent to the stream. */
  eventsReplayed: number;
  /** Events of erased workspaces, dropped (their messages count as delivered). */
  eventsDropped: number;
}

export interface RedriveOptions {
  /** Drops the events of erased workspaces (erased-workspaces.ts). */
  erased?: ErasedCheck;
  /** Paces the sends under Firehose's active-partition limit (`admin replay-events`; paced-replay.ts). */
  pacer?: ReplayPacer;
}

/**
 * Re-sends spooled events to the event stream, one message at a time (a message is delivered when all
 * its events are). A message that still fails stays on the queue and comes back after its
 * visibility timeout; SQS moves it to the dead-letter queue after maxReceiveCount receives.
 * A partly delivered message is re-sent whole: the lake may get a line twice, and analytics
 * count each eventId once, and the click counters settle such a click to once
 * (docs/event-stream.md, "Exactly once where users look").
 * Events of an erased workspace are dropped, not re-sent: the erasure cannot reach into the queue.
 */
export const redriveSpooledMessages = async (
  messages: SpooledMessage[],
  sink: StreamSink,
  options: RedriveOptions = {},
): Promise<RedriveResult> => {
  const result: RedriveResult = { delivered: [], failed: [], eventsReplayed: 0, eventsDropped: 0 };
  for (const message of messages) {
    let events: EventRecord[];
    try {
      events = parseSpoolMessage(message.body).events;
    } catch (error) {
      log('error', 'Spooled events message cannot be read; left for the dead-letter queue', {
        messageId: message.id,
        error: (error as Error).message,
      });
      result.failed.push(message.id);
      continue;
    }
    if (options.erased) {
      const live = await dropErased(events, (e) => e.workspaceId, options.erased);
      result.eventsDropped += live.dropped;
      events = live.kept;
    }
    const undelivered: EventRecord[] = [];
    const reasons: string[] = [];
    const deliver = async (batch: EventRecord[]) => {
      const out = await sink.deliver(batch);
      undelivered.push(...out.undelivered);
      reasons.push(...out.reasons);
    };
    if (options.pacer) await options.pacer.send(events, deliver);
    else if (events.length) await deliver(events);
    if (undelivered.length) {
      log('warn', 'Redrive: the event stream still rejects spooled events', {
        messageId: message.id,
        undelivered: undelivered.length,
        reasons,
      });
      result.failed.push(message.id);
      continue;
    }
    result.delivered.push(message.id);
    result.eventsReplayed += events.length;
  }
  return result;
};
