import { vi } from 'vitest';

/**
 * Polls `check` until it holds (deliveries, held transactions and the like happen asynchronously):
 * vitest's `vi.waitFor`, failing after `timeout` ms with what was awaited.
 */
export const waitUntil = (
  check: () => boolean | Promise<boolean>,
  what: string,
  { timeout = 30_000, interval = 50 }: { timeout?: number; interval?: number } = {},
): Promise<void> =>
  vi.waitFor(
    async () => {
      if (!(await check())) throw new Error(`Timed out waiting for ${what}`);
    },
    { timeout, interval },
  );
