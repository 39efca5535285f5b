import { recordEdgeAttribution, type TapIds } from '@shared/attribution/edge-attribution';
import { buildClickEvent, type ClickRequest, type RecordedClick } from '@shared/clicks/record-click';
import { clickRecordBudgetMs, recordClickWithin } from '@shared/clicks/record-click-within';
import type { EventRecord } from '@shared/events/event-record';
import { uuid } from '@shared/util/ids';
import { log } from '@shared/util/logger';
import { countClickNotRecorded } from '@shared/util/metrics';
import { withinBudget } from '@shared/util/within-budget';
import type { ClickFacts, ClickRecording } from './click-decision';

/** The click event's request: the link on this host and key, the visitor, what the edge answered. */
const clickRequestOf = (facts: ClickFacts, recording: ClickRecording): ClickRequest => ({
  link: { ...recording.link, domain: facts.host.hostname, key: facts.key },
  userAgent: facts.request.userAgent,
  client: facts.request.client,
  ip: facts.request.ip,
  country: facts.request.country,
  referrer: facts.request.referrer,
  resolvedDestinationUrl: recording.resolvedDestinationUrl,
  responseKind: recording.responseKind,
  forceBot: facts.request.method === 'HEAD',
  ids: recording.ids,
  decidedBy: recording.decidedBy,
  at: facts.now,
});

/** The tap's attribution record, waited for at most CLICK_RECORD_BUDGET_MS (then the write is aborted); a failure or timeout is logged. */
const recordTapWithin = async (
  facts: ClickFacts,
  recording: ClickRecording,
  tap: { readonly ids: TapIds; readonly platform: string },
  requestId: string,
): Promise<void> => {
  const recorded = await withinBudget(
    (signal) =>
      recordEdgeAttribution(
        {
          record: recording.link,
          domain: facts.host.hostname,
          key: facts.key,
          ids: tap.ids,
          ip: facts.request.ip,
          platform: tap.platform,
          at: facts.now,
        },
        signal,
      ),
    clickRecordBudgetMs(),
  );
  if (!recorded.done)
    log('error', 'edge tap attribution not recorded', {
      requestId,
      error: recorded.reason,
      linkId: recording.link.linkId,
      ids: tap.ids,
    });
};

/** The click's events: the click, and the launch view's impression with it. */
const eventsOf = (recorded: RecordedClick, impression: boolean): EventRecord[] =>
  impression
    ? [recorded.event, { ...recorded.event, eventId: uuid(), eventType: 'launch_view_impression' }]
    : [recorded.event];

/**
 * Records the click (counters + `click` event, plus the launch view's impression and, for a
 * human tap on a deep link, its attribution record). It starts once the visitor has the
 * response, in the same invocation (`afterResponse`, shared/http/after-response.ts;
 * docs/edge.md). It is bounded by CLICK_RECORD_BUDGET_MS (record-click-within.ts), well inside
 * the function's timeout: a counter or event not written in time, or failed, is logged as a
 * replayable record (click-replay.ts); an attribution record is logged as not recorded.
 */
export const recordClickOf = async (facts: ClickFacts, recording: ClickRecording, requestId: string): Promise<void> => {
  const click = clickRequestOf(facts, recording);
  const attribution = recording.tap ? recordTapWithin(facts, recording, recording.tap, requestId) : Promise.resolve();
  let recorded: RecordedClick;
  try {
    recorded = await buildClickEvent(click);
  } catch (error) {
    countClickNotRecorded();
    log('error', 'edge click not recorded', {
      requestId,
      error: String(error),
      click: { ...click, client: undefined, ip: undefined },
    });
    await attribution;
    return;
  }
  await Promise.all([
    recordClickWithin(recorded, eventsOf(recorded, recording.impression), { requestId }),
    attribution,
  ]);
};
