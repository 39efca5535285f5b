/** admin reindex-links: puts links written before the clicks index into it (sort=clicks_*). */
import type { Command } from 'commander';
import { backfillClicksIndex } from '@shared/links/clicks-index-backfill';
import type { AdminTargetOf } from './admin-target';
import { printResult, type JsonOption } from './output';

export const registerLinkCommands = (program: Command, adminTarget: AdminTargetOf): void => {
  program
    .command('reindex-links')
    .description('index links created before the clicks order existed (once after upgrading; safe to repeat)')
    .option('--json', 'print one line of JSON')
    .action(async (options: JsonOption) => {
      adminTarget();
      const indexed = await backfillClicksIndex((done) => {
        if (!options.json && process.stderr.isTTY && done % 1000 === 0) process.stderr.write(`\rindexed ${done}`);
      });
      printResult(options, { indexed }, (v) => `Indexed ${v.indexed} links.`);
    });
};
