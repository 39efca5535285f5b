import { getConfig } from '@shared/config/config';
import type { EventRecord } from '@shared/events/event-record';
import { getEventSink } from '@shared/events/event-sink';
import { countClick, countClickNotRecorded } from '@shared/util/metrics';
import { logClickReplay } from './click-replay';
import { incrementClickCounters } from './link-counters';
import type { RecordedClick } from './record-click';

/**
 * How long the edge's answer waits for a click's writes: 3 s. With the read budget (1.5 s) it
 * stays far inside the edge functions' 10 s timeout, whatever the SDK's retries would take.
 */
export const CLICK_RECORD_BUDGET_MS = 3_000;

/** Locally (one shared process on busy cores, as for the read budget): 5 s, still inside the 10 s timeout with the 4 s local read budget. */
export const LOCAL_CLICK_RECORD_BUDGET_MS = 5_000;

export const clickRecordBudgetMs = (): number => (getConfig().DYNAMODB_ENDPOINT ? LOCAL_CLICK_RECORD_BUDGET_MS : CLICK_RECORD_BUDGET_MS);

type Part = 'pending' | 'done' | 'failed';

/**
 * Writes a built click (counter update and its events, at once) within `budgetMs`. What did not
 * finish by then, or failed, is logged as a replayable record (click-replay.ts) and the counter
 * call is aborted; the caller's answer never waits longer than the budget.
 */
export const recordClickWithin = async (
  recorded: RecordedClick,
  events: EventRecord[],
  fields: { requestId: string },
  budgetMs = clickRecordBudgetMs(),
): Promise<void> => {
  const controller = new AbortController();
  const state: { counter: Part; events: Part; error?: string } = { counter: 'pending', events: 'pending' };
  const track = (part: 'counter' | 'events', work: Promise<unknown>) =>
    work.then(
      () => {
        state[part] = 'done';
      },
      (error: unknown) => {
        state[part] = 'failed';
        state.error ??= String(error);
      },
    );
  const { event, isBot } = recorded;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all([
      track('counter', event.linkId ? incrementClickCounters(event.linkId, isBot, event.timestamp, controller.signal) : Promise.resolve()),
      track('events', getEventSink().send(events)),
    ]),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, budgetMs);
    }),
  ]);
  clearTimeout(timer);
  // The click happened: counted here whether its writes finished in time or go to the replay log (ClicksNotRecorded).
  countClick(isBot);
  if (state.counter === 'done' && state.events === 'done') return;
  controller.abort();
  countClickNotRecorded();
  logClickReplay(
    {
      counter: state.counter === 'done' || !event.linkId ? null : { linkId: event.linkId, isBot, at: event.timestamp },
      events: state.events === 'done' ? [] : events,
    },
    { requestId: fields.requestId, reason: state.error ?? `not recorded within ${budgetMs} ms` },
  );
};
