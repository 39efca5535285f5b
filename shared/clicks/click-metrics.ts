import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { edgeOutcomes, metricNames, metrics } from '@shared/util/metrics';

/** The fields of a click event the metrics read (the stream's JSON lines). */
interface ClickFields {
  eventType?: unknown;
  trafficType?: unknown;
  responseKind?: unknown;
}

export interface ClickMetricTally {
  /** `Clicks` / `BotClicks` by `Source` (`edge`, or `client API` for the client click route). */
  clicks: Record<'edge' | 'client API', { human: number; bot: number }>;
  /** `Redirects` by `Outcome`: how the edge answered the clicks of known links. */
  outcomes: Map<string, number>;
}

const OUTCOMES = new Set<string>(edgeOutcomes);

/** Counts a batch of the event stream's records (lake-only replays excluded, as for the counters). */
export const tallyClickMetrics = (records: ReadonlyArray<{ data: string; lakeOnly?: boolean }>): ClickMetricTally => {
  const tally: ClickMetricTally = {
    clicks: { edge: { human: 0, bot: 0 }, 'client API': { human: 0, bot: 0 } },
    outcomes: new Map(),
  };
  for (const record of records) {
    if (record.lakeOnly) continue;
    let line: ClickFields;
    try {
      line = JSON.parse(record.data) as ClickFields;
    } catch {
      continue;
    }
    if (line.eventType !== 'click') continue;
    const kind = typeof line.responseKind === 'string' ? line.responseKind : null;
    const source = kind === 'api' ? 'client API' : 'edge';
    tally.clicks[source][line.trafficType === 'bot' ? 'bot' : 'human'] += 1;
    if (kind && OUTCOMES.has(kind)) tally.outcomes.set(kind, (tally.outcomes.get(kind) ?? 0) + 1);
  }
  return tally;
};

/**
 * Click metrics where clicks are aggregated: the click counter consumer writes them once per batch
 * (one EMF line per dimension set), so the click path writes no metrics record per click.
 * They count deliveries: a batch the event source mapping retries is counted again (the link
 * counters and analytics, not these metrics, are the exact numbers). Unknown keys answer 404
 * without an event; they show in the function URL's own `Url4xxCount`.
 */
export const emitClickMetrics = (tally: ClickMetricTally): void => {
  // A single metric is written (and its dimensions cleared) on each addMetric: one per datum.
  const emit = (name: string, dimension: string, value: string, count: number) => {
    if (count === 0) return;
    const single = metrics.singleMetric();
    single.addDimension(dimension, value);
    single.addMetric(name, MetricUnit.Count, count);
  };
  for (const [source, counts] of Object.entries(tally.clicks)) {
    emit(metricNames.clicks, 'Source', source, counts.human);
    emit(metricNames.botClicks, 'Source', source, counts.bot);
  }
  for (const [outcome, count] of tally.outcomes) emit(metricNames.redirects, 'Outcome', outcome, count);
};
