import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WATERMARK_FILE } from '@shared/analytics/lake/compact-lake';
import { FIRST_COMPACTION_DELAY_MS, scheduleLakeCompaction } from '@shared/analytics/lake/compaction-schedule';

const lakes: string[] = [];
afterEach(() => {
  vi.useRealTimers();
  for (const lake of lakes.splice(0)) rmSync(lake, { recursive: true, force: true });
});

describe("npm start's compaction schedule", () => {
  it('runs nothing while the stack starts, then compacts, and its stop waits for a run in progress', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'setInterval', 'clearTimeout', 'clearInterval'] });
    const lake = mkdtempSync(path.join(os.tmpdir(), 'schedule-lake-'));
    lakes.push(lake);
    const stop = scheduleLakeCompaction(lake, 10 * 60_000);
    await vi.advanceTimersByTimeAsync(FIRST_COMPACTION_DELAY_MS - 1);
    expect(existsSync(path.join(lake, WATERMARK_FILE))).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await stop();
    expect(existsSync(path.join(lake, WATERMARK_FILE))).toBe(true);
  });
});
