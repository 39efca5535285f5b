/** admin import-links: a Bitly / Rebrandly / Short.io / generic CSV export into a workspace's domain. */
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { isAppError } from '@shared/errors/app-error';
import { hasUrlColumn, IMPORT_FORMATS, readCsvRecords, type ImportFormat } from '@shared/import/csv-formats';
import { importLinks, type ImportReport } from '@shared/import/import-links';
import { workspaceRepository } from '@shared/tenancy/workspace-repository';
import { invalidInput, notFound } from '@shared/admin/admin-error';
import type { AdminTargetOf } from './admin-target';
import { cliOrigin } from './operator';
import { fromAppError } from './errors';
import { printResult, progressBar, type JsonOption } from './output';

interface ImportCommandOptions extends JsonOption {
  workspace: string;
  domain: string;
  format: string;
  dryRun?: boolean;
}

const summary = (r: ImportReport) =>
  [
    `${r.dryRun ? 'Dry run: would create' : 'Created'} ${r.created}, skipped ${r.skipped}, failed ${r.failed} (${r.rows} rows, format ${r.format}, domain ${r.domain}).`,
    ...r.skippedRows.map(
      (s) =>
        `  row ${s.row}: skipped, ${s.reason === 'already_imported' ? 'already imported' : 'slug taken by another link'} (${s.key})`,
    ),
    ...r.failures.map(
      (f) =>
        `  row ${f.row}: failed, ${f.code}: ${f.message}` +
        (Array.isArray(f.details)
          ? ` (${(f.details as Array<{ path: string; message: string }>).map((d) => `${d.path} ${d.message}`).join('; ')})`
          : ''),
    ),
  ].join('\n');

export const registerImportCommands = (program: Command, adminTarget: AdminTargetOf): void => {
  program
    .command('import-links')
    .description(
      'create links from a CSV export (Bitly, Rebrandly, Short.io or generic); re-running the same file creates nothing new',
    )
    .argument('<file>', 'the CSV file')
    .requiredOption('--workspace <workspaceId>', 'the workspace the links belong to')
    .requiredOption('--domain <domain>', "the workspace's short-link domain the links go on")
    .option('--format <format>', `the export's vendor: ${IMPORT_FORMATS.join(' | ')}`, 'generic')
    .option('--dry-run', 'validate and count without writing')
    .option('--json', 'print one line of JSON')
    .action(async (file: string, options: ImportCommandOptions) => {
      adminTarget();
      if (!(IMPORT_FORMATS as readonly string[]).includes(options.format)) {
        throw invalidInput(`--format must be one of ${IMPORT_FORMATS.join(', ')} (got ${options.format})`);
      }
      const format = options.format as ImportFormat;
      if (!(await workspaceRepository.findById(options.workspace))) throw notFound(`No workspace ${options.workspace}`);
      const text = await readFile(file, 'utf8');
      let parsed: ReturnType<typeof readCsvRecords>;
      try {
        parsed = readCsvRecords(text);
      } catch (error) {
        throw invalidInput(`${file} is not a CSV file: ${(error as Error).message}`);
      }
      if (!hasUrlColumn(format, parsed.headers)) {
        throw invalidInput(
          `${file} has no destination URL column for format ${format} (headers: ${parsed.headers.join(', ')})`,
        );
      }
      const bar = progressBar(options, parsed.records.length, 'import');
      let report: ImportReport;
      try {
        report = await importLinks(parsed.records, {
          workspaceId: options.workspace,
          domain: options.domain,
          format,
          dryRun: options.dryRun,
          origin: cliOrigin(),
          onProgress: (n) => {
            bar.increment(n);
          },
        });
      } catch (error) {
        if (isAppError(error)) throw fromAppError(error, `${options.domain} in workspace ${options.workspace}`);
        throw error;
      } finally {
        bar.stop();
      }
      printResult(options, report, summary);
      if (report.failed > 0) process.exitCode = 1;
    });
};
