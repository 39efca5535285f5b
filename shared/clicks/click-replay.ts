import type { EventRecord } from '@shared/events/event-record';
import { getEventSink } from '@shared/events/event-sink';
import { log } from '@shared/util/logger';

/**
 * The events of a click that did not reach the event stream in time (the counters follow from
 * the events: the counter consumer counts them when they arrive). Logged as one structured line
 * (`message: "click to replay"`, field `replay`) that `replayClick` (and
 * `npm run admin -- replay-clicks`) sends later, so a slow or failing stream never loses a click.
 */
export interface ClickReplay {
  events: EventRecord[];
}

export const CLICK_REPLAY_MESSAGE = 'click to replay';

export const logClickReplay = (replay: ClickReplay, fields: { requestId: string; reason: string }): void => {
  log('error', CLICK_REPLAY_MESSAGE, { ...fields, replay });
};

/** Applies a logged replay record: its events, same event ids (their clicks are counted as they pass the stream). */
export const replayClick = async (replay: ClickReplay): Promise<void> => {
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
