/**
 * Output helpers shared by every admin command: with --json one line of JSON on stdout, otherwise
 * text for a person (sentences, aligned `key: value` lines). Failures are errors.ts's.
 */
import { SingleBar, Presets } from 'cli-progress';

export interface JsonOption {
  json?: boolean;
}

/** Prints `value` as one line of JSON with --json, otherwise `text(value)`. */
export const printResult = <T>(options: JsonOption, value: T, text: (value: T) => string): void => {
  console.log(options.json ? JSON.stringify(value) : text(value));
};

type FieldValue = string | number | boolean | null | undefined;

/** `label: value` lines with the values aligned; null and undefined print as `none`. */
export const fieldLines = (
  fields: ReadonlyArray<readonly [label: string, value: FieldValue]>,
  indent = '  ',
): string => {
  const width = Math.max(...fields.map(([label]) => label.length)) + 1;
  return fields
    .map(
      ([label, value]) =>
        `${indent}${`${label}:`.padEnd(width)} ${value === null || value === undefined ? 'none' : String(value)}`,
    )
    .join('\n');
};

/** A progress bar on stderr for long work; silent with --json or when stderr is not a terminal. */
export const progressBar = (options: JsonOption, total: number, label: string) => {
  if (options.json || !process.stderr.isTTY)
    return {
      increment: (_n?: number) => {},
      stop: () => {},
    };
  const bar = new SingleBar(
    { format: `${label} [{bar}] {value}/{total}`, stream: process.stderr },
    Presets.shades_classic,
  );
  bar.start(total, 0);
  return {
    increment: (n = 1) => {
      bar.increment(n);
    },
    stop: () => {
      bar.stop();
    },
  };
};
