/**
 * Retries of idempotent requests: a GET or HEAD, or a request carrying an `Idempotency-Key` (the
 * creates), answered 429 or 5xx is sent again after a backoff, or after the answer's `Retry-After`
 * when it gives one, a bounded number of times. p-retry runs the loop; the wait goes through an
 * injectable `sleep` so tests need no clock.
 */
import pRetry from 'p-retry';

export interface RetryOptions {
  /** Retries after the first attempt (default 2; 0 turns retries off). */
  retries?: number;
  /** The first backoff in milliseconds, doubled on each retry (default 500). */
  minDelayMs?: number;
  /** The longest wait in milliseconds, `Retry-After` included (default 30000). */
  maxDelayMs?: number;
  /** How to wait (default a timer); tests pass their own. */
  sleep?: (ms: number) => Promise<void>;
}

/** A retryable answer, thrown inside the loop so p-retry sees a failed attempt. */
class RetryableAnswer extends Error {
  readonly response: Response;

  constructor(response: Response) {
    super(`HTTP ${String(response.status)}`);
    this.response = response;
  }
}

const isIdempotent = (request: Request): boolean =>
  request.method === 'GET' || request.method === 'HEAD' || request.headers.has('idempotency-key');

const isRetryableStatus = (status: number): boolean => status === 429 || status >= 500;

/** `Retry-After` in milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export const retryAfterMs = (response: Response, now: number = Date.now()): number | undefined => {
  const value = response.headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
};

const timer = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A fetch that retries idempotent requests answered 429 or 5xx. */
export const retryingFetch = (
  fetchImpl: (request: Request) => Promise<Response>,
  options: RetryOptions = {},
): ((request: Request) => Promise<Response>) => {
  const retries = options.retries ?? 2;
  const minDelayMs = options.minDelayMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  const sleep = options.sleep ?? timer;
  return async (request) => {
    if (retries === 0 || !isIdempotent(request)) return fetchImpl(request);
    try {
      return await pRetry(
        async () => {
          const response = await fetchImpl(request.clone());
          if (isRetryableStatus(response.status)) throw new RetryableAnswer(response);
          return response;
        },
        {
          retries,
          // The wait is the sleep in onFailedAttempt (backoff or Retry-After), not p-retry's timer.
          minTimeout: 0,
          maxTimeout: 0,
          randomize: false,
          shouldRetry: ({ error }) => error instanceof RetryableAnswer,
          onFailedAttempt: async ({ error, attemptNumber, retriesLeft }) => {
            if (!(error instanceof RetryableAnswer) || retriesLeft === 0) return;
            // The answer's body is dropped: only the last attempt's answer reaches the caller.
            await error.response.body?.cancel();
            const backoff = minDelayMs * 2 ** (attemptNumber - 1) * (0.5 + Math.random() / 2);
            await sleep(Math.min(maxDelayMs, retryAfterMs(error.response) ?? backoff));
          },
        },
      );
    } catch (error) {
      if (error instanceof RetryableAnswer) return error.response;
      throw error;
    }
  };
};
