import { afterEach, describe, expect, it, vi } from 'vitest';
import { withinBudget } from '@shared/util/within-budget';

afterEach(() => vi.useRealTimers());

describe('withinBudget', () => {
  it('is done when the work finishes in time, and names the error when it fails', async () => {
    expect(await withinBudget(Promise.resolve('x'), 1000)).toEqual({ done: true });
    expect(await withinBudget(Promise.reject(new Error('boom')), 1000)).toEqual({ done: false, reason: 'Error: boom' });
  });

  it('gives up when the budget runs out, without waiting for the work, and leaves no timer', async () => {
    vi.useFakeTimers();
    const pending = withinBudget(new Promise(() => {}), 3000);
    await vi.advanceTimersByTimeAsync(3000);
    expect(await pending).toEqual({ done: false, reason: 'not recorded within 3000 ms' });
    expect(vi.getTimerCount()).toBe(0);
  });
});
