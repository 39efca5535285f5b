import type { EventRecord } from '@shared/events/event-record';
import { getEventSink } from '@shared/events/event-sink';
import { log } from '@shared/util/logger';
import { incrementClickCounters } from './link-counters';

/**
 * The part of a click that was not recorded in time: its counter update and/or its events.
 * Logged as one structured line (`message: "click to replay"`, field `replay`) that
 * `replayClick` (and `npm run admin -- replay-clicks`) applies later, so a slow or failing
 * DynamoDB or Firehose never loses a click. The durable queue of the reliability issue
 * replaces the log line as the hand-off when it lands; the record stays the same.
 */
export interface ClickReplay {
  counter: { linkId: string; isBot: boolean; at: string } | null;
  events: EventRecord[];
}

export const CLICK_REPLAY_MESSAGE = 'click to replay';

export const logClickReplay = (replay: ClickReplay, fields: { requestId: string; reason: string }): void =>
  log('error', CLICK_REPLAY_MESSAGE, { ...fields, replay });

/** Applies a logged replay record: the counter update (skipped when the link is gone) and the events (same event ids). */
export const replayClick = async (replay: ClickReplay): Promise<void> => {
  if (replay.counter) await incrementClickCounters(replay.counter.linkId, replay.counter.isBot, replay.counter.at);
  if (replay.events.length > 0) await getEventSink().send(replay.events);
};

/** The replay records in a stream of log lines (JSON per line; other lines are skipped). */
export const replaysInLog = (text: string): ClickReplay[] =>
  text.split('\n').flatMap((line) => {
    const start = line.indexOf('{');
    if (start < 0) return [];
    try {
      const entry = JSON.parse(line.slice(start)) as { message?: string; replay?: ClickReplay };
      return entry.message === CLICK_REPLAY_MESSAGE && entry.replay ? [entry.replay] : [];
    } catch {
      return [];
    }
  });
