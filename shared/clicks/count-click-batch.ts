import { emitClickMetrics, tallyClickMetrics } from './click-metrics';
import { applyClickCounters, type CounterBatchResult, type CounterStreamRecord } from './link-counters';

/**
 * The click counter consumer's work on one batch of the event stream, deployed (the Lambda) and
 * local (the local stream) alike: the links' counters, then the batch's click metrics.
 */
export const countClickBatch = async (records: CounterStreamRecord[]): Promise<CounterBatchResult> => {
  const result = await applyClickCounters(records);
  emitClickMetrics(tallyClickMetrics(records));
  return result;
};
