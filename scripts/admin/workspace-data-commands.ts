/** admin export-workspace, delete-workspace: hand a workspace its data; erase a workspace. */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import type { Command } from 'commander';
import { deleteWorkspace } from '@shared/admin/delete-workspace';
import { exportWorkspace } from '@shared/admin/export-workspace';
import { createLocalLakeStore, createS3LakeStore, type LakeStore } from '@shared/admin/lake-store';
import { workspaceRepository } from '@shared/tenancy/workspace-repository';
import { AdminError, invalidInput, notFound } from '@shared/admin/admin-error';
import { newAuditEntry } from '@shared/audit/audit-entry';
import { auditRepository } from '@shared/audit/audit-repository';
import type { AdminTargetOf } from './admin-target';
import { cliOrigin } from './operator';
import { fieldLines, printResult, progressBar, type JsonOption } from './output';
import { localStreamFailuresDir } from '@shared/events/local-event-stream';

const WORKSPACE_ID = /^[A-Za-z0-9_-]{1,64}$/;

const checkId = (workspaceId: string) => {
  if (!WORKSPACE_ID.test(workspaceId))
    throw invalidInput(`${workspaceId} is not a workspace id (letters, digits, _ and -, at most 64)`);
};

/**
 * The lake to erase: the local folder (the target's LOCAL_LAKE_DIR: that variable, or the running
 * local stack's folder unless LAKE_BUCKET names a deployed one), else the deployed bucket
 * LAKE_BUCKET (stack output EventLakeBucketName).
 */
const lakeStore = (localDir: string | undefined): LakeStore => {
  if (localDir) return createLocalLakeStore(localDir);
  if (process.env.LAKE_BUCKET)
    return createS3LakeStore(new S3Client({ region: process.env.AWS_REGION ?? 'us-east-1' }), process.env.LAKE_BUCKET);
  throw new AdminError(
    'not_configured',
    'No lake: set LAKE_BUCKET (the stack output EventLakeBucketName) or LOCAL_LAKE_DIR; nothing was erased',
  );
};

/**
 * Where copies of events live besides the lake: locally the kept failures folder; deployed the
 * failures buckets (STREAM_FAILURES_BUCKETS, comma-separated: the stack outputs
 * CounterFailuresBucketName, PublishFailuresBucketName and, with edgeHotLinks,
 * EdgeClickLogFailuresBucketName) and the Athena results bucket
 * (ATHENA_RESULTS_BUCKET: the stack output AthenaResultsBucketName).
 */
const copiesStores = (localDir: string | undefined): { keptFailures: LakeStore[]; queryResults?: LakeStore } => {
  if (localDir) return { keptFailures: [createLocalLakeStore(localStreamFailuresDir(localDir))] };
  const s3 = new S3Client({ region: process.env.AWS_REGION ?? 'us-east-1' });
  const buckets = (process.env.STREAM_FAILURES_BUCKETS ?? '').split(',').filter((b) => b.trim() !== '');
  return {
    keptFailures: buckets.map((bucket) => createS3LakeStore(s3, bucket.trim())),
    queryResults: process.env.ATHENA_RESULTS_BUCKET
      ? createS3LakeStore(s3, process.env.ATHENA_RESULTS_BUCKET)
      : undefined,
  };
};

export const registerWorkspaceDataCommands = (program: Command, adminTarget: AdminTargetOf): void => {
  program
    .command('export-workspace')
    .description(
      "write a workspace's links, deep links, domains, apps, tags, webhook endpoints, API keys (no hashes or secrets) and its events (from the lake) as JSON Lines files",
    )
    .argument('<workspaceId>', 'the workspace id')
    .requiredOption('--out <dir>', 'the folder to write (created if missing; files in it are replaced)')
    .option('--json', 'print one line of JSON')
    .action(async (workspaceId: string, options: JsonOption & { out: string }) => {
      // Events come through the analytics engine: DuckDB over the target's local lake, or Athena
      // (ATHENA_WORKGROUP, ATHENA_DATABASE).
      adminTarget();
      checkId(workspaceId);
      const out = path.resolve(options.out);
      if (existsSync(out) && !statSync(out).isDirectory())
        throw invalidInput(`--out must be a folder; ${options.out} is a file`);
      if (!(await workspaceRepository.findById(workspaceId, true))) throw notFound(`No workspace ${workspaceId}`);
      const bar = progressBar(options, 0, 'events exported');
      const result = await exportWorkspace(workspaceId, out, {
        onEvents: (n) => {
          bar.increment(n);
        },
      }).finally(() => {
        bar.stop();
      });
      // An export writes files, not items: its entry is written once the files are (not in a transaction).
      await auditRepository.put(
        newAuditEntry(workspaceId, cliOrigin(), {
          action: 'workspace.exported',
          resource: { type: 'workspace', id: workspaceId },
        }),
      );
      printResult(options, result, (r) =>
        [`Exported ${r.workspaceId} to ${r.out} (lines per file):`, fieldLines(Object.entries(r.files))].join('\n'),
      );
    });

  program
    .command('delete-workspace')
    .description(
      'erase a workspace: every table item (keys, links, slugs, indexes, counters, attribution, idempotency, cache, rate-limit, webhook, outbox, host and origin-index items), its lake data and the copies of its events (kept failures, query results), after recording its tombstone so every replay drops spooled copies; other workspaces are untouched',
    )
    .argument('<workspaceId>', 'the workspace id')
    .requiredOption('--confirm <workspaceId>', 'the same workspace id again (nothing is erased otherwise)')
    .option('--json', 'print one line of JSON')
    .action(async (workspaceId: string, options: JsonOption & { confirm: string }) => {
      const { config } = adminTarget();
      checkId(workspaceId);
      if (options.confirm !== workspaceId)
        throw invalidInput(`--confirm must repeat the workspace id (${workspaceId}); nothing was erased`);
      const lake = lakeStore(config.LOCAL_LAKE_DIR);
      const copies = copiesStores(config.LOCAL_LAKE_DIR);
      let bar = progressBar(options, 0, 'items erased');
      const result = await deleteWorkspace(workspaceId, lake, {
        ...copies,
        onFound: (total) => {
          bar.stop();
          bar = progressBar(options, total, 'items erased');
        },
        onDeleted: (n) => {
          bar.increment(n);
        },
      }).finally(() => {
        bar.stop();
      });
      printResult(options, result, (r) =>
        [
          r.totalItemsErased === 0
            ? `Nothing of ${r.workspaceId} was left in the table (${r.itemsScanned} items scanned).`
            : `Erased ${r.workspaceId}: ${r.totalItemsErased} table items (${r.itemsScanned} scanned):`,
          ...(r.totalItemsErased === 0
            ? []
            : [fieldLines(Object.entries(r.itemsErased).sort(([a], [b]) => a.localeCompare(b)))]),
          `Lake ${r.lake.location}: ${r.lake.compactedObjectsDeleted} compacted objects deleted; ${r.lake.rawRecordsRemoved} raw records removed ` +
            `(${r.lake.rawObjectsRead} raw objects read, ${r.lake.rawObjectsRewritten} rewritten, ${r.lake.rawObjectsDeleted} deleted).`,
          ...r.keptFailures.map(
            (k) =>
              `Kept failures ${k.location}: ${k.recordsRemoved} records removed (${k.objectsRewritten} objects rewritten, ${k.objectsDeleted} deleted).`,
          ),
          r.queryResultsDeleted === null
            ? 'Query results: not given (set ATHENA_RESULTS_BUCKET; they expire after 7 days).'
            : `Query results: ${r.queryResultsDeleted} objects deleted.`,
          `Spooled and kept copies: replays drop its events until ${r.tombstoneUntil} (its tombstone).`,
          ...(r.domains.length
            ? [
                `Domains: ${r.domains.join(', ')} (deployed: their CloudFront distribution tenants are not touched here; see docs/operations.md).`,
              ]
            : []),
        ].join('\n'),
      );
    });
};
