import { getConfig } from '@shared/config/config';
import type { EventRecord } from '@shared/events/event-record';
import { getEventSink } from '@shared/events/event-sink';
import { countClickNotRecorded } from '@shared/util/metrics';
import { withinBudget } from '@shared/util/within-budget';
import { logClickReplay } from './click-replay';
import type { RecordedClick } from './record-click';

/**
 * How long the edge's answer waits for a click's writes: 3 s. With the read budget (1.5 s) it
 * stays far inside the edge functions' 10 s timeout, whatever the SDK's retries would take.
 */
export const CLICK_RECORD_BUDGET_MS = 3_000;

/** Locally (one shared process on busy cores, as for the read budget): 5 s, still inside the 10 s timeout with the 4 s local read budget. */
export const LOCAL_CLICK_RECORD_BUDGET_MS = 5_000;

export const clickRecordBudgetMs = (): number =>
  getConfig().DYNAMODB_ENDPOINT ? LOCAL_CLICK_RECORD_BUDGET_MS : CLICK_RECORD_BUDGET_MS;

/**
 * Sends a built click's events (the counters follow from them, link-counters.ts) within
 * `budgetMs`. At the budget the send is aborted (the sink gets the budget's signal: the put in
 * flight is cancelled, no retry or spool follows), so nothing of it outlives the budget and keeps
 * the invocation running. Events not sent by then, or failed, are logged once, here, as a
 * replayable record (click-replay.ts); the caller never waits longer than the budget.
 */
export const recordClickWithin = async (
  recorded: RecordedClick,
  events: EventRecord[],
  fields: { requestId: string },
  budgetMs = clickRecordBudgetMs(),
): Promise<void> => {
  const sent = await withinBudget((signal) => getEventSink().send(events, { signal }), budgetMs);
  // Click metrics are written by the counter consumer from the events; only a miss is counted here.
  if (sent.done) return;
  countClickNotRecorded();
  logClickReplay({ events }, { requestId: fields.requestId, reason: sent.reason });
};
