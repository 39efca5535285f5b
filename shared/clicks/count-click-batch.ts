import { crossedHotThreshold, edgeHotLinksOn, nominateHotCandidates } from '@shared/edge/hot-links/hot-candidates';
import { emitClickMetrics, tallyClickMetrics } from './click-metrics';
import { applyClickCounters, type CounterBatchResult, type CounterStreamRecord } from './link-counters';

/**
 * The click counter consumer's work on one batch of the event stream, deployed (the Lambda) and
 * local (the local stream) alike: the batch's click metrics, then the links' counters. With the
 * edge's hot links on (`EDGE_HOT_LINKS`), the links whose update carried them across the hot
 * threshold are nominated to the hot set's refresh: one write per batch at most, none when no
 * link crossed (docs/edge.md).
 */
export const countClickBatch = async (
  records: CounterStreamRecord[],
  hotLinks = edgeHotLinksOn(),
  now = new Date(),
): Promise<CounterBatchResult> => {
  // Metrics first: they count deliveries (a retried batch again), and once a link shows the
  // clicks, their metrics are already written.
  emitClickMetrics(tallyClickMetrics(records));
  const crossed: string[] = [];
  try {
    return await applyClickCounters(
      records,
      undefined,
      now,
      undefined,
      hotLinks
        ? (linkId, item, hours) => {
            if (crossedHotThreshold(item, hours, now)) crossed.push(linkId);
          }
        : undefined,
    );
  } finally {
    // Also when some links failed: the ones applied are not applied (nor nominated) again on redelivery.
    await nominateHotCandidates(crossed, now);
  }
};
