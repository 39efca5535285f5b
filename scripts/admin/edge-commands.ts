/**
 * admin edge hot-set: the hot links the edge answers from its KeyValueStore (docs/edge.md, only
 * with the `edgeHotLinks` context on): each entry (store key, link, `Location`, version, expiry),
 * the store's bytes against its 5 MB quota, its item count and the last refresh's age. The store:
 * `--kvs-arn` (else HOT_LINKS_KVS_ARN: the stack output HotLinksKeyValueStoreArn); `--kvs-endpoint`
 * (else HOT_LINKS_KVS_ENDPOINT) for a local stand-in. Read-only.
 */
import type { Command } from 'commander';
import { AdminError, invalidInput } from '@shared/admin/admin-error';
import { describeHotSet, hotSetStoreClient, type HotSetView } from '@shared/edge/hot-links/hot-set-view';
import { HOT_LINKS_KVS_ARN_ENV } from '@shared/edge/hot-links/kvs-writer';
import type { AdminTargetOf } from './admin-target';
import { fieldLines, printResult, type JsonOption } from './output';

/** The environment variable naming a KeyValueStore endpoint other than AWS's (a local stand-in). */
export const HOT_LINKS_KVS_ENDPOINT_ENV = 'HOT_LINKS_KVS_ENDPOINT';

const KVS_ARN = /^arn:aws[\w-]*:cloudfront::\d{12}:key-value-store\/[\w-]+$/;

const hotSetText = (view: HotSetView): string => {
  const mb = (n: number) => `${(n / (1024 * 1024)).toFixed(2)} MB`;
  const lines = [
    `Hot set: ${String(view.entries.length)} links at the edge.`,
    fieldLines([
      ['store', view.store.arn],
      ['items', view.store.itemCount],
      [
        'bytes used',
        `${String(view.store.totalSizeInBytes)} (${mb(view.store.totalSizeInBytes)} of ${mb(view.store.quotaBytes)}, ${String(view.store.usedPercent)}%)`,
      ],
      ['last refresh', view.refresh ? `${view.refresh.at} (${String(view.refresh.ageSeconds)} s ago)` : null],
      ['candidates', view.candidates],
    ]),
  ];
  if (view.entries.length) {
    lines.push('');
    for (const e of view.entries) {
      lines.push(
        `  ${e.key}  ->  ${e.location ?? '(malformed entry)'}`,
        `      link ${e.linkId ?? 'none'}, version ${e.version ?? 'none'}, expires ${e.expiresAt ?? 'never'}`,
      );
    }
  }
  return lines.join('\n');
};

export const registerEdgeCommands = (program: Command, adminTarget: AdminTargetOf): void => {
  const edge = program.command('edge').description('what the CloudFront edge answers by itself (hot links)');

  edge
    .command('hot-set')
    .description(
      "list the hot links in the edge's KeyValueStore, the store's bytes used of its 5 MB and the last refresh's age",
    )
    .option('--kvs-arn <arn>', `the hot-link KeyValueStore's ARN (default: ${HOT_LINKS_KVS_ARN_ENV})`)
    .option(
      '--kvs-endpoint <url>',
      `a KeyValueStore endpoint other than AWS's (default: ${HOT_LINKS_KVS_ENDPOINT_ENV})`,
    )
    .option('--json', 'print one line of JSON')
    .action(async (options: JsonOption & { kvsArn?: string; kvsEndpoint?: string }) => {
      adminTarget();
      const arn = options.kvsArn ?? process.env[HOT_LINKS_KVS_ARN_ENV];
      if (!arn)
        throw new AdminError(
          'not_configured',
          `No KeyValueStore named: pass --kvs-arn or set ${HOT_LINKS_KVS_ARN_ENV} (the stack output HotLinksKeyValueStoreArn; the stack has one only with the edgeHotLinks context on).`,
        );
      if (!KVS_ARN.test(arn)) throw invalidInput(`--kvs-arn is not a CloudFront KeyValueStore ARN (got ${arn})`);
      const endpoint = options.kvsEndpoint ?? process.env[HOT_LINKS_KVS_ENDPOINT_ENV];
      if (endpoint !== undefined && !URL.canParse(endpoint))
        throw invalidInput(`--kvs-endpoint is not a URL (got ${endpoint})`);
      const client = hotSetStoreClient(endpoint);
      try {
        printResult(options, await describeHotSet(client, arn), hotSetText);
      } finally {
        client.destroy();
      }
    });
};
