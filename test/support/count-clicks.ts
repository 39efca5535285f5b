import { randomBytes } from 'node:crypto';
import { applyClickCounters, type CounterBatchResult, type CounterStreamRecord } from '@shared/clicks/link-counters';

/** One test shard per process, its sequence numbers increasing across calls (as a stream shard's are). */
const shardId = `shardId-test-${process.pid}-${randomBytes(4).toString('hex')}`;
let sequence = 0n;

/** Stream records of `click` events for a link, as the counter consumer receives them. */
export const clickRecords = (
  linkId: string,
  clicks: { humans?: number; bots?: number; at?: string },
): CounterStreamRecord[] => {
  const at = clicks.at ?? new Date().toISOString();
  const line = (trafficType: string) => JSON.stringify({ eventType: 'click', linkId, trafficType, timestamp: at });
  return [
    ...Array.from({ length: clicks.humans ?? 0 }, () => line('human')),
    ...Array.from({ length: clicks.bots ?? 0 }, () => line('bot')),
  ].map((data) => {
    sequence += 1n;
    return { shardId, sequenceNumber: String(sequence), data };
  });
};

/** Counts clicks on a link through the counter consumer, in one batch. */
export const countClicks = (
  linkId: string,
  clicks: { humans?: number; bots?: number; at?: string },
): Promise<CounterBatchResult> => applyClickCounters(clickRecords(linkId, clicks));
