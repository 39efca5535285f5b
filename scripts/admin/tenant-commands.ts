/** admin bootstrap: a new workspace with its keys, domains and deep-link app. */
import type { Command } from 'commander';
import { bootstrapTenant } from '@shared/admin/bootstrap';
import { adminTarget } from './admin-target';
import { printResult, type JsonOption } from './output';

export const registerTenantCommands = (program: Command): void => {
  program
    .command('bootstrap')
    .description('create a workspace with its keys, a short-link domain and a deep-link app; keys are shown once')
    .option('--json', 'print one line of JSON')
    .option('--name <name>', 'workspace name')
    .option('--domain <domain>', 'short-link domain (default: a *.localhost name)')
    .option('--app-domain <domain>', 'deep-link app domain')
    .action(async (options: JsonOption & { name?: string; domain?: string; appDomain?: string }) => {
      const { baseUrl, edgeUrl } = adminTarget();
      const result = await bootstrapTenant({
        baseUrl,
        edgeUrl,
        name: options.name,
        domain: options.domain,
        appDomain: options.appDomain,
      });
      printResult(options, result);
    });
};
