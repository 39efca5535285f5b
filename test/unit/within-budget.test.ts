import { afterEach, describe, expect, it, vi } from 'vitest';
import { withinBudget } from '@shared/util/within-budget';

afterEach(() => vi.useRealTimers());

describe('withinBudget', () => {
  it('is done when the work finishes in time, and names the error when it fails', async () => {
    expect(await withinBudget(() => Promise.resolve('x'), 1000)).toEqual({ done: true });
    expect(await withinBudget(() => Promise.reject(new Error('boom')), 1000)).toEqual({
      done: false,
      reason: 'Error: boom',
    });
  });

  it('work that finishes in time keeps its signal unaborted and leaves no timer', async () => {
    vi.useFakeTimers();
    let given: AbortSignal | undefined;
    const answer = await withinBudget((signal) => {
      given = signal;
      return Promise.resolve();
    }, 3000);
    expect(answer).toEqual({ done: true });
    expect(given?.aborted).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('at the budget, aborts the work (a TimeoutError reason), answers with the budget, and leaves no timer', async () => {
    vi.useFakeTimers();
    let given: AbortSignal | undefined;
    const pending = withinBudget(
      (signal) =>
        new Promise((_resolve, reject) => {
          given = signal;
          // What an SDK call does on abort: it rejects (and destroys its request).
          signal.addEventListener('abort', () => {
            reject(new Error('Request aborted'));
          });
        }),
      3000,
    );
    await vi.advanceTimersByTimeAsync(2999);
    expect(given?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(given?.aborted).toBe(true);
    expect(given?.reason).toMatchObject({ name: 'TimeoutError', message: 'not recorded within 3000 ms' });
    // The budget decided the answer, not the work's own rejection on abort.
    expect(await pending).toEqual({ done: false, reason: 'not recorded within 3000 ms' });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('work that throws before returning a promise is a failure, not an escape', async () => {
    const answer = await withinBudget(() => {
      throw new Error('sync');
    }, 1000);
    expect(answer).toEqual({ done: false, reason: 'Error: sync' });
  });
});
