import { emitClickMetrics, tallyClickMetrics } from './click-metrics';
import { applyClickCounters, type CounterBatchResult, type CounterStreamRecord } from './link-counters';

/**
 * The click counter consumer's work on one batch of the event stream, deployed (the Lambda) and
 * local (the local stream) alike: the batch's click metrics, then the links' counters.
 */
export const countClickBatch = async (records: CounterStreamRecord[]): Promise<CounterBatchResult> => {
  // Metrics first: they count deliveries (a retried batch again), and once a link shows the
  // clicks, their metrics are already written.
  emitClickMetrics(tallyClickMetrics(records));
  return applyClickCounters(records);
};
