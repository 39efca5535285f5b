/**
 * Waits for `work` at most `budgetMs`: `{ done: true }` if it finished in time, else
 * `{ done: false, reason }` (its error, or that the budget ran out). The work is not cancelled;
 * the timer is always cleared.
 */
export const withinBudget = async (
  work: Promise<unknown>,
  budgetMs: number,
): Promise<{ done: true } | { done: false; reason: string }> => {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work.then(
        () => ({ done: true as const }),
        (error: unknown) => ({ done: false as const, reason: String(error) }),
      ),
      new Promise<{ done: false; reason: string }>((resolve) => {
        timer = setTimeout(() => {
          resolve({ done: false, reason: `not recorded within ${budgetMs} ms` });
        }, budgetMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
};
