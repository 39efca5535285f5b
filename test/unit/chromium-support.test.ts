import { describe, expect, it } from 'vitest';
import { requireChromium } from '@test/support/chromium';

describe('the browser tests on a machine without Chromium', () => {
  it('fail with one line that says how to install it', () => {
    let thrown: unknown;
    try {
      requireChromium('/nonexistent/chromium');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect((thrown as Error).stack?.split('\n')).toEqual([
      'Error: Chromium is missing (/nonexistent/chromium), the browser tests need it: install it with `apt-get install chromium` (.ci/run does).',
    ]);
  });

  it('launch the Chromium that is there', () => {
    expect(requireChromium(process.execPath)).toBe(process.execPath);
  });
});
