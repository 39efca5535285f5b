import { describe, expect, it } from 'vitest';
import { budgets } from '@bench/budgets';
import { webScript, webScriptSize } from '@bench/sdk-size';

describe('@linkservice/web script', () => {
  it('minified and gzipped, stays within 2 KB', async () => {
    const size = await webScriptSize();
    // A build that lost the tracker (an empty bundle) would be far under this.
    expect(size.minifiedBytes).toBeGreaterThan(512);
    expect(size.gzipBytes).toBeLessThan(size.minifiedBytes);
    expect(size.gzipBytes).toBeLessThanOrEqual(budgets.webScriptGzipBytes);
  });

  it('bundles no import: the package has no dependencies', async () => {
    const code = await webScript();
    expect(code).not.toMatch(/\brequire\(|\bimport\s*[({"']/);
    expect(code).toContain('/v1/client/events');
    expect(code).toContain('keepalive');
  });
});
