/**
 * admin domains add|verify|remove: customer link domains on the CloudFront front door
 * (distribution tenants with managed certificates). Deployed: set EDGE_DISTRIBUTION_ID and
 * EDGE_CONNECTION_GROUP_ID (stack outputs) and, with your own certificate, LINK_CERTIFICATE_ARN.
 * Against `npm start` there is no CloudFront: add stores the domain, verify flips it.
 */
import type { Command } from 'commander';
import { invalidInput } from '@shared/admin/admin-error';
import {
  addDomain,
  frontDoorFromEnv,
  removeDomain,
  verifyDomain,
  type DnsRecord,
} from '@shared/admin/distribution-tenants';
import type { AdminTargetOf } from './admin-target';
import { cliOrigin } from './operator';
import { printResult, type JsonOption } from './output';

/** Exit code of `domains verify` while something is still missing (scripts can loop on it). */
export const VERIFY_PENDING_EXIT = 3;

const recordsText = (records: DnsRecord[]) =>
  records.map((r) => `  ${r.type.padEnd(5)} ${r.name}  ->  ${r.value}    (${r.why})`).join('\n');

export const registerDistributionTenantCommands = (program: Command, adminTarget: AdminTargetOf): void => {
  const domains = program
    .command('domains')
    .description('customer link domains on the CloudFront front door (add, verify, remove)');

  domains
    .command('add')
    .description('store a link domain unverified and print the DNS records the customer must create')
    .argument('<domain>', 'the link domain, e.g. go.acme.com')
    .requiredOption('--workspace <workspaceId>', 'the workspace the domain belongs to')
    .option(
      '--usage <usage>',
      'SHORTLINK or DEEPLINK (a DEEPLINK domain comes with its open.<domain> host)',
      'SHORTLINK',
    )
    .option('--json', 'print one line of JSON')
    .action(async (domain: string, options: JsonOption & { workspace: string; usage: string }) => {
      const { edgeUrl } = adminTarget();
      const usage = options.usage.toUpperCase();
      if (usage !== 'SHORTLINK' && usage !== 'DEEPLINK')
        throw invalidInput(`--usage must be SHORTLINK or DEEPLINK (got ${options.usage})`);
      const result = await addDomain(
        { domain, workspaceId: options.workspace, usage },
        frontDoorFromEnv(),
        edgeUrl,
        cliOrigin(),
      );
      printResult(options, result, (r) =>
        [
          `${r.domain} added to ${r.workspaceId} (${r.usage}), not verified yet.`,
          'Create these DNS records, then run `domains verify`:',
          recordsText(r.dnsRecords),
        ].join('\n'),
      );
    });

  domains
    .command('verify')
    .description(
      'check DNS, create/update the CloudFront tenant and its certificate; verified once the certificate is issued (safe to re-run)',
    )
    .argument('<domain>', 'the link domain')
    .option('--json', 'print one line of JSON')
    .action(async (domain: string, options: JsonOption) => {
      const { edgeUrl } = adminTarget();
      const result = await verifyDomain(domain, frontDoorFromEnv(), edgeUrl, cliOrigin());
      printResult(options, result, (r) =>
        r.verified
          ? `${r.domain} is verified${r.tenantId ? ` (tenant ${r.tenantId})` : ''}: its links answer on https://${r.domain}/`
          : [
              `${r.domain} is not verified yet (${r.state}). Still missing:`,
              ...r.missing.map((m) => `  - ${m}`),
              'DNS records:',
              recordsText(r.dnsRecords),
            ].join('\n'),
      );
      if (!result.verified) process.exitCode = VERIFY_PENDING_EXIT;
    });

  domains
    .command('remove')
    .description("take the domain's CloudFront tenant down and retire the domain (its links answer not found)")
    .argument('<domain>', 'the link domain')
    .option('--json', 'print one line of JSON')
    .action(async (domain: string, options: JsonOption) => {
      adminTarget();
      const result = await removeDomain(domain, frontDoorFromEnv(), cliOrigin());
      printResult(options, result, (r) =>
        [`${r.domain} removed (tenant: ${r.tenant}).`, ...r.missing.map((m) => `  - ${m}`)].join('\n'),
      );
    });
};
