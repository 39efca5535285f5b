/** admin replay-clicks: applies the clicks the edge could not record in time (click-replay.ts). */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { replayClick, replaysInLog } from '@shared/clicks/click-replay';
import { AdminError } from '@shared/admin/admin-error';
import type { AdminTargetOf } from './admin-target';
import { printResult, progressBar, type JsonOption } from './output';

export const registerClickCommands = (program: Command, adminTarget: AdminTargetOf): void => {
  program
    .command('replay-clicks')
    .description('replay the "click to replay" records of edge log lines (a CloudWatch Logs export; - reads stdin)')
    .argument('<file>', 'log lines, one JSON entry per line')
    .option('--json', 'print one line of JSON')
    .action(async (file: string, options: JsonOption) => {
      const { config } = adminTarget();
      const replays = replaysInLog(readFileSync(file === '-' ? 0 : file, 'utf8'));
      const withEvents = replays.some((r) => r.events.length > 0);
      if (withEvents && !config.EVENTS_STREAM_NAME && !config.LOCAL_LAKE_DIR) {
        throw new AdminError(
          'not_configured',
          "Records carry events: set EVENTS_STREAM_NAME (the stack's event stream) to replay them.",
        );
      }
      const bar = progressBar(options, replays.length, 'replaying');
      let events = 0;
      try {
        for (const replay of replays) {
          await replayClick(replay);
          events += replay.events.length;
          bar.increment();
        }
      } finally {
        bar.stop();
      }
      printResult(
        options,
        { records: replays.length, events },
        (v) =>
          `Replayed ${v.records} records: ${v.events} events (their clicks are counted as they pass the event stream).`,
      );
    });
};
