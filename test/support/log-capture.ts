import { vi } from 'vitest';

/**
 * Captures what a function writes to stdout and stderr (Powertools Logger and Metrics write
 * there through their own Console, not the global `console`), as parsed JSON lines where they
 * parse. `stop()` restores the streams.
 */
export const captureOutput = () => {
  const raw: { stream: 'stdout' | 'stderr'; text: string }[] = [];
  const spy = (stream: 'stdout' | 'stderr') =>
    vi.spyOn(process[stream], 'write').mockImplementation((chunk: string | Uint8Array) => {
      raw.push({ stream, text: typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8') });
      return true;
    });
  const spies = [spy('stdout'), spy('stderr')];
  const lines = () =>
    raw
      .flatMap(({ stream, text }) =>
        text
          .split('\n')
          .filter((line) => line.trim() !== '')
          .map((line) => ({ stream, line })),
      )
      .map(({ stream, line }) => {
        try {
          return { stream, line, json: JSON.parse(line) as Record<string, unknown> };
        } catch {
          return { stream, line, json: undefined };
        }
      });
  return {
    lines,
    /** Lines that parse as JSON. */
    json: () => lines().flatMap((l) => (l.json ? [l.json] : [])),
    stop: () => {
      spies.forEach((s) => {
        s.mockRestore();
      });
    },
  };
};

/**
 * What `run` answers, and the log lines written while it runs at level `error` (the edge and the
 * sink run in the test's process), one per line.
 */
export const errorLinesDuring = async <T>(run: () => Promise<T>): Promise<{ result: T; lines: string }> => {
  const previous = process.env.LOG_LEVEL;
  process.env.LOG_LEVEL = 'error';
  const output = captureOutput();
  try {
    const result = await run();
    return {
      result,
      lines: output
        .lines()
        .map((l) => l.line)
        .join('\n'),
    };
  } finally {
    output.stop();
    process.env.LOG_LEVEL = previous;
  }
};
