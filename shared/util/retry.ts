import pRetry from 'p-retry';

export interface RetryOptions {
  /** Attempts in all, the first included. */
  attempts: number;
  /** Whether a failure is worth another attempt (any other is thrown at once). */
  retryOn: (error: Error) => boolean;
  /** The wait before the attempt after `attempt` (1-based) failed with `error`; it may reject (an abort). */
  pause: (attempt: number, error: Error) => Promise<void>;
}

/**
 * The service's one retry loop: p-retry runs `run` until it succeeds, fails with an error
 * `retryOn` refuses, or the attempts are spent (then the last error is thrown). The wait is the
 * caller's `pause` (its own backoff and jitter, on an injectable clock), not p-retry's timer.
 */
export const retry = <T>(run: () => Promise<T>, options: RetryOptions): Promise<T> => {
  // Each failure is judged once, before its pause: p-retry asks `shouldRetry` after
  // `onFailedAttempt` (the pause), when the world the failure was judged in may have moved on.
  const again = new WeakMap<Error, boolean>();
  return pRetry(() => run(), {
    retries: options.attempts - 1,
    minTimeout: 0,
    maxTimeout: 0,
    randomize: false,
    onFailedAttempt: async ({ error, attemptNumber, retriesLeft }) => {
      const retrying = retriesLeft > 0 && options.retryOn(error);
      again.set(error, retrying);
      if (retrying) await options.pause(attemptNumber, error);
    },
    shouldRetry: ({ error }) => again.get(error) ?? false,
  });
};
