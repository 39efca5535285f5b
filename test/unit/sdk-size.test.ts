import { describe, expect, it } from 'vitest';
import { budgets } from '@bench/budgets';
import { sdkSize } from '@bench/sdk-size';

describe('@linkservice/sdk size', () => {
  it('bundled with its dependencies, minified and gzipped, stays under 15 KB', async () => {
    const size = await sdkSize();
    // A bundle that lost its dependencies (or the generated types leaking into code) would be far off.
    expect(size.minifiedBytes).toBeGreaterThan(2 * 1024);
    expect(size.gzipBytes).toBeLessThan(size.minifiedBytes);
    expect(size.gzipBytes).toBeLessThan(budgets.sdkGzipBytes);
  });
});
