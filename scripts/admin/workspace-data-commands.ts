/** admin export-workspace, delete-workspace: hand a workspace its data; erase a workspace. */
import path from 'node:path';
import type { Command } from 'commander';
import { deleteWorkspace } from '@shared/admin/delete-workspace';
import { exportWorkspace } from '@shared/admin/export-workspace';
import { workspaceRepository } from '@shared/tenancy/workspace-repository';
import { AdminUsageError, adminTarget } from './admin-target';
import { printResult, progressBar, type JsonOption } from './output';

const WORKSPACE_ID = /^[A-Za-z0-9_-]{1,64}$/;

const checkId = (workspaceId: string) => {
  if (!WORKSPACE_ID.test(workspaceId)) throw new AdminUsageError(`Not a workspace id: ${workspaceId}`);
};

export const registerWorkspaceDataCommands = (program: Command): void => {
  program
    .command('export-workspace')
    .description("write a workspace's links, deep links, domains, apps, tags, webhook endpoints, API keys (no hashes or secrets) and its events (from the lake) as JSON Lines files")
    .argument('<workspaceId>', 'the workspace id')
    .requiredOption('--out <dir>', 'the folder to write (created if missing; files in it are replaced)')
    .option('--json', 'print one line of JSON')
    .action(async (workspaceId: string, options: JsonOption & { out: string }) => {
      adminTarget();
      checkId(workspaceId);
      if (!(await workspaceRepository.findById(workspaceId, true))) throw new AdminUsageError(`No workspace ${workspaceId}`);
      const bar = progressBar(options, 0, 'events exported');
      const result = await exportWorkspace(workspaceId, path.resolve(options.out), { onEvents: (n) => bar.increment(n) });
      bar.stop();
      printResult(options, result, (r) => [`exported ${r.workspaceId} to ${r.out}:`, ...Object.entries(r.files).map(([f, n]) => `  ${f}: ${n}`)].join('\n'));
    });

  program
    .command('delete-workspace')
    .description('erase a workspace: every table item (keys, links, slugs, indexes, counters, attribution, idempotency, cache, rate-limit, webhook, outbox, host and origin-index items) and its lake data; other workspaces are untouched')
    .argument('<workspaceId>', 'the workspace id')
    .requiredOption('--confirm <workspaceId>', 'the same workspace id again (nothing is erased otherwise)')
    .option('--json', 'print one line of JSON')
    .action(async (workspaceId: string, options: JsonOption & { confirm: string }) => {
      adminTarget();
      checkId(workspaceId);
      if (options.confirm !== workspaceId) throw new AdminUsageError(`--confirm must repeat the workspace id (${workspaceId}); nothing was erased`);
      let bar = progressBar(options, 0, 'items erased');
      const result = await deleteWorkspace(workspaceId, {
        onFound: (total) => {
          bar.stop();
          bar = progressBar(options, total, 'items erased');
        },
        onDeleted: (n) => bar.increment(n),
      });
      bar.stop();
      printResult(options, result, (r) =>
        [
          `erased ${r.workspaceId}: ${r.totalItemsErased} table items (${r.itemsScanned} scanned)`,
          ...Object.entries(r.itemsErased).sort().map(([k, n]) => `  ${k}: ${n}`),
          r.lake.lake === 'local'
            ? `lake: ${r.lake.recordsRemoved} records removed (${r.lake.objectsDeleted} objects deleted, ${r.lake.objectsRewritten} rewritten)`
            : `lake: NOT erased by this command on a deployed stack; delete s3://<lake bucket>/events/workspace_id=${r.workspaceId}/ (docs/operations.md)`,
        ].join('\n'),
      );
    });
};
