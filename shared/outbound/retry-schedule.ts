import { service } from '@shared/runtime/services';

/**
 * When a failed delivery is tried again: the schedule the Standard Webhooks specification
 * suggests (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h), 8 attempts over about 27.6 hours, then the
 * dead-letter queue. The local stack runs the same code on a schedule of seconds.
 */
export const deployedRetryDelaysMs = [5e3, 300e3, 1800e3, 7200e3, 18000e3, 36000e3, 36000e3] as const;
export const localRetryDelaysMs = [250, 500, 1000, 2000, 4000, 8000, 16000] as const;

/** Attempts before the dead-letter queue: the first one plus one per delay. SQS maxReceiveCount. */
export const MAX_DELIVERY_ATTEMPTS = deployedRetryDelaysMs.length + 1;

/** The wait before attempt `attempt + 1`, after attempt `attempt` (1-based) failed; undefined: no more. */
export const retryDelayAfter = (attempt: number): number | undefined =>
  attempt >= 1 ? service('retryDelaysMs', () => deployedRetryDelaysMs)[attempt - 1] : undefined;
