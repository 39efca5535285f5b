/**
 * Admin CLI (provisioning is outside the HTTP API): `npm run -s admin -- --help`.
 * One file per command group under scripts/admin/; each command takes --help and --json.
 * Targets the running local stack (.local/stack.json) or, deployed, the table named by
 * TABLE_NAME with the usual AWS credentials (set BASE_URL and EDGE_URL to the stack outputs).
 */
// First: the CLI's environment is an operator's, not a Lambda's (see operator-env.ts).
import './admin/operator-env';
import { Command } from 'commander';
import { registerAppCommands } from './admin/app-commands';
import { registerClickCommands } from './admin/click-commands';
import { registerCloudFrontDomainCommands } from './admin/cloudfront-domain-commands';
import { registerDomainCommands } from './admin/domain-commands';
import { registerImportCommands } from './admin/import-commands';
import { registerKeyCommands } from './admin/key-commands';
import { registerEventCommands } from './admin/event-commands';
import { registerLakeCommands } from './admin/lake-commands';
import { registerStreamFailureCommands } from './admin/stream-failure-commands';
import { registerLinkCommands } from './admin/link-commands';
import { registerTenantCommands } from './admin/tenant-commands';
import { registerWorkspaceCommands } from './admin/workspace-commands';
import { registerWorkspaceDataCommands } from './admin/workspace-data-commands';
import { registerWebhookCommands } from './admin/webhook-commands';

const program = new Command('admin')
  .description('Provision and operate the link service (local stack or a deployed table)')
  .showHelpAfterError();

// One line per command group.
registerTenantCommands(program);
registerKeyCommands(program);
registerDomainCommands(program);
registerWebhookCommands(program);
registerAppCommands(program);
registerWorkspaceCommands(program);
registerWorkspaceDataCommands(program);
registerEventCommands(program);
registerCloudFrontDomainCommands(program);
registerLakeCommands(program);
registerStreamFailureCommands(program);
registerImportCommands(program);
registerClickCommands(program);
registerLinkCommands(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  console.error(`admin ${program.args[0] ?? ''}: ${(error as Error).message}`);
  process.exit(2);
}
