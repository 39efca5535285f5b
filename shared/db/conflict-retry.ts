import { setTimeout as delay } from 'node:timers/promises';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { retry } from '@shared/util/retry';

/**
 * Transaction conflicts (docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-conflict-handling):
 * - a `TransactWriteItems` touching an item another transaction (or a single-item write) is
 *   changing is cancelled with a `TransactionConflict` reason;
 * - a `PutItem`/`UpdateItem`/`DeleteItem` on an item inside a running transaction fails with
 *   `TransactionConflictException`.
 * Neither wrote anything, and the SDK retries neither (they are not throttling errors), so the
 * request is simply sent again after a jittered backoff.
 *
 * A conflict only: no reason other than `TransactionConflict` / `None` (a failed condition is an answer, not a conflict).
 */
export const isTransactionConflict = (error: unknown): boolean => {
  if ((error as { name?: string } | null)?.name === 'TransactionConflictException') return true;
  if (!(error instanceof TransactionCanceledException)) return false;
  const codes = (error.CancellationReasons ?? []).map((r) => r.Code ?? 'None');
  return codes.includes('TransactionConflict') && codes.every((c) => c === 'TransactionConflict' || c === 'None');
};

export interface ConflictRetryPolicy {
  /** Attempts in all (the first included). */
  attempts: number;
  baseMs: number;
  capMs: number;
}

/**
 * 8 attempts, full-jitter backoff 10 ms doubling up to 250 ms: at most ~1 s of waiting in all. A
 * transaction holds its items for tens of milliseconds, so short waits are enough; the cap keeps
 * a storm's retries inside a request's time.
 */
export const DEFAULT_CONFLICT_RETRY: ConflictRetryPolicy = { attempts: 8, baseMs: 10, capMs: 250 };

/** Full jitter (a random wait up to the exponential step): concurrent losers do not retry in lockstep. */
export const conflictBackoffMs = (retry: number, policy: ConflictRetryPolicy = DEFAULT_CONFLICT_RETRY) =>
  Math.random() * Math.min(policy.capMs, policy.baseMs * 2 ** retry);

/**
 * Runs `send`, again after a conflict, until it answers otherwise or the attempts are spent (then
 * the last conflict is thrown), through the one retry helper (p-retry, shared/util/retry.ts); the
 * wait is the full-jitter backoff above (p-retry's own randomized delay is never below the step).
 */
export const retryConflicts = <T>(
  send: () => Promise<T>,
  policy: ConflictRetryPolicy = DEFAULT_CONFLICT_RETRY,
): Promise<T> =>
  retry(send, {
    attempts: policy.attempts,
    retryOn: isTransactionConflict,
    pause: (attempt) => delay(conflictBackoffMs(attempt - 1, policy)),
  });
