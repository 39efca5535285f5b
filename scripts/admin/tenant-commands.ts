/** admin bootstrap: a new workspace with its keys, domains and deep-link app. */
import type { Command } from 'commander';
import { bootstrapTenant, type BootstrapResult } from '@shared/admin/bootstrap';
import type { AdminTargetOf } from './admin-target';
import { fieldLines, printResult, type JsonOption } from './output';

const bootstrapText = (r: BootstrapResult): string =>
  [
    `Workspace ${r.workspaceId} created. Keep its keys now: they are shown once (only their hashes are stored).`,
    fieldLines([
      ['workspace', r.workspaceId],
      ['server key', r.serverKey],
      ['mobile key', r.mobileKey],
      ['short-link domain', `${r.domain} (${r.domainId})`],
      ['deep-link app', `${r.deepLinkApp.id} on ${r.deepLinkApp.domain} (default URL ${r.deepLinkApp.defaultUrl})`],
      ['app key', r.deepLinkApp.appKey],
      ['browser key', `${r.publishableKeys.browser.key} (origin ${r.publishableKeys.browser.origin})`],
      ['Android key', `${r.publishableKeys.android.key} (package ${r.publishableKeys.android.package})`],
      ['iOS key', `${r.publishableKeys.ios.key} (bundle ${r.publishableKeys.ios.bundleId})`],
      ['service API', r.baseUrl || 'not set (BASE_URL)'],
      ['edge', r.edgeUrl || 'not set (EDGE_URL)'],
    ]),
  ].join('\n');

export const registerTenantCommands = (program: Command, adminTarget: AdminTargetOf): void => {
  program
    .command('bootstrap')
    .description('create a workspace with its keys, a short-link domain and a deep-link app; keys are shown once')
    .option('--json', 'print one line of JSON')
    .option('--name <name>', 'workspace name')
    .option('--domain <domain>', 'short-link domain (default: a *.localhost name)')
    .option('--app-domain <domain>', 'deep-link app domain (default: a *.localhost name)')
    .action(async (options: JsonOption & { name?: string; domain?: string; appDomain?: string }) => {
      const { baseUrl, edgeUrl } = adminTarget();
      const result = await bootstrapTenant({
        baseUrl,
        edgeUrl,
        name: options.name,
        domain: options.domain,
        appDomain: options.appDomain,
      });
      printResult(options, result, bootstrapText);
    });
};
