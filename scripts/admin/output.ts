/** Output helpers shared by every admin command: `--json` prints one JSON document, text otherwise. */
import { SingleBar, Presets } from 'cli-progress';

export interface JsonOption {
  json?: boolean;
}

/** Prints `value` as one line of JSON with --json, otherwise as `text(value)` (indented JSON by default). */
export const printResult = <T>(options: JsonOption, value: T, text?: (value: T) => string): void => {
  if (options.json) console.log(JSON.stringify(value));
  else console.log(text ? text(value) : JSON.stringify(value, null, 2));
};

/** A progress bar on stderr for long work; silent with --json or when stderr is not a terminal. */
export const progressBar = (options: JsonOption, total: number, label: string) => {
  if (options.json || !process.stderr.isTTY) return { increment: () => {}, stop: () => {} };
  const bar = new SingleBar(
    { format: `${label} [{bar}] {value}/{total}`, stream: process.stderr },
    Presets.shades_classic,
  );
  bar.start(total, 0);
  return { increment: (n = 1) => bar.increment(n), stop: () => bar.stop() };
};
