/**
 * Admin CLI (provisioning is outside the HTTP API): `npm run -s admin -- --help`.
 * One file per command group under scripts/admin/; each command takes --help and --json.
 * Targets the table named by --table (else TABLE_NAME; deployed: with the usual AWS credentials,
 * BASE_URL and EDGE_URL set to the stack outputs) or the running local stack (.local/stack.json);
 * --endpoint (else DYNAMODB_ENDPOINT) names DynamoDB's endpoint (admin/admin-target.ts).
 *
 * Results go to stdout: text for a person, or with --json one line of JSON. Any failure, from a
 * mistyped option to an AWS refusal, is one sentence on stderr (with --json one line
 * `{"error":{"code","message"}}` on stderr) and exit code 1 (admin/errors.ts).
 */
// First: the CLI's environment is an operator's, not a Lambda's (see operator-env.ts).
import './admin/operator-env';
import { Command, CommanderError } from 'commander';
import { registerAppCommands } from './admin/app-commands';
import { registerClickCommands } from './admin/click-commands';
import { registerDistributionTenantCommands } from './admin/distribution-tenant-commands';
import { registerDomainCommands } from './admin/domain-commands';
import { registerEdgeCommands } from './admin/edge-commands';
import { registerImportCommands } from './admin/import-commands';
import { registerKeyCommands } from './admin/key-commands';
import { registerEventCommands } from './admin/event-commands';
import { CliUsageError, reportFailure } from './admin/errors';
import { registerLakeCommands } from './admin/lake-commands';
import { registerStreamFailureCommands } from './admin/stream-failure-commands';
import { registerLinkCommands } from './admin/link-commands';
import { registerTenantCommands } from './admin/tenant-commands';
import { registerWorkspaceCommands } from './admin/workspace-commands';
import { registerWorkspaceDataCommands } from './admin/workspace-data-commands';
import { registerWebhookCommands } from './admin/webhook-commands';
import { setOperatorActor } from './admin/operator';
import { adminTargetFrom, type AdminTargetOptions } from './admin/admin-target';

const program = new Command('admin')
  .description('Provision and operate the link service (local stack or a deployed table)')
  .option('--actor <name>', 'who makes the change, for the audit log (default: the OS user)')
  .option('--table <name>', 'the table to write (default: TABLE_NAME, else the running local stack)')
  .option(
    '--endpoint <url>',
    "DynamoDB's endpoint (default: DYNAMODB_ENDPOINT, else AWS or the running local stack's)",
  );

/** The target every command writes to, from the global flags, resolved when a command first needs it. */
const adminTarget = adminTargetFrom(() => program.opts<AdminTargetOptions>());

// One line per command group.
registerTenantCommands(program, adminTarget);
registerKeyCommands(program, adminTarget);
registerDomainCommands(program, adminTarget);
registerWebhookCommands(program, adminTarget);
registerAppCommands(program, adminTarget);
registerWorkspaceCommands(program, adminTarget);
registerWorkspaceDataCommands(program, adminTarget);
registerEventCommands(program, adminTarget);
registerDistributionTenantCommands(program, adminTarget);
registerLakeCommands(program, adminTarget);
registerStreamFailureCommands(program, adminTarget);
registerImportCommands(program, adminTarget);
registerClickCommands(program, adminTarget);
registerLinkCommands(program, adminTarget);
registerEdgeCommands(program, adminTarget);

/** Help and version output are not failures: commander has printed them; exit with its code. */
const SHOWN = new Set(['commander.helpDisplayed', 'commander.help', 'commander.version']);

/**
 * commander's own refusals (unknown option, missing argument or required option, too many
 * arguments) go through the same error output as every other failure, naming the command.
 */
const routeParseErrors = (command: Command, path: string[]): void => {
  command.configureOutput({ outputError: () => undefined }).exitOverride((error: CommanderError) => {
    if (SHOWN.has(error.code)) throw error;
    throw new CliUsageError(error.message, path.join(' '));
  });
  for (const sub of command.commands) routeParseErrors(sub, [...path, sub.name()]);
};
routeParseErrors(program, []);

/** The command running, for the error line (`admin domains add: ...`). */
let commandPath = '';
program.hook('preAction', (_program, action) => {
  const names: string[] = [];
  for (let c: Command | null = action; c && c !== program; c = c.parent) names.unshift(c.name());
  commandPath = names.join(' ');
  setOperatorActor(program.opts<{ actor?: string }>().actor);
});

/** --json anywhere before a `--` asks for the error as JSON too, even when the command line was refused. */
const args = process.argv.slice(2);
const json = (args.includes('--') ? args.slice(0, args.indexOf('--')) : args).includes('--json');

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError && SHOWN.has(error.code)) process.exit(error.exitCode);
  process.exit(reportFailure(error, { json, commandPath }));
}
