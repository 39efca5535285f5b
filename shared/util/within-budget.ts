/** The reason a budget's signal is aborted with: a `TimeoutError`, as `AbortSignal.timeout` uses. */
export const budgetExceeded = (budgetMs: number): DOMException =>
  new DOMException(`not recorded within ${budgetMs} ms`, 'TimeoutError');

/**
 * Runs `work` for at most `budgetMs`: `{ done: true }` if it finished in time, else
 * `{ done: false, reason }` (its error, or that the budget ran out). The work gets an
 * `AbortSignal` that is aborted when the budget runs out (reason: `budgetExceeded`), so it can
 * cancel what it started (AWS SDK v3: `client.send(command, { abortSignal })`) rather than leave
 * a request, a socket or a retry timer running after the caller has given up: nothing it started
 * should outlive the budget. The answer is decided before the signal is aborted, so what the work
 * does on abort (reject, log) never changes it, and a late failure is never reported twice. The
 * budget's timer is always cleared.
 */
export const withinBudget = async (
  work: (signal: AbortSignal) => Promise<unknown>,
  budgetMs: number,
): Promise<{ done: true } | { done: false; reason: string }> => {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const budget = new Promise<{ done: false; reason: string }>((resolve) => {
    timer = setTimeout(() => {
      const reason = budgetExceeded(budgetMs);
      // The budget's answer first: the work's rejection on abort comes after it.
      resolve({ done: false, reason: reason.message });
      controller.abort(reason);
    }, budgetMs);
  });
  const started = (async () => work(controller.signal))();
  try {
    return await Promise.race([
      started.then(
        () => ({ done: true as const }),
        (error: unknown) => ({ done: false as const, reason: String(error) }),
      ),
      budget,
    ]);
  } finally {
    clearTimeout(timer);
  }
};
