/** admin set-domain-urls: where a domain's expired and unknown links go. */
import type { Command } from 'commander';
import { httpUrlSchema } from '@shared/schemas/common-schemas';
import { domainRepository } from '@shared/tenancy/domain-repository';
import { AdminUsageError, adminTarget } from './admin-target';
import { printResult, type JsonOption } from './output';

export const registerDomainCommands = (program: Command): void => {
  program
    .command('set-domain-urls')
    .description("set a domain's expiredUrl / notFoundUrl (an omitted one is cleared; the edge sees it within 60 s)")
    .argument('<hostname>', 'the link domain')
    .option('--expired-url <url>', 'where expired links go')
    .option('--not-found-url <url>', 'where unknown keys go')
    .option('--json', 'print one line of JSON')
    .action(async (hostname: string, options: JsonOption & { expiredUrl?: string; notFoundUrl?: string }) => {
      adminTarget();
      const urls = { expiredUrl: options.expiredUrl ?? null, notFoundUrl: options.notFoundUrl ?? null };
      for (const [name, url] of Object.entries(urls)) {
        if (url !== null && !httpUrlSchema.safeParse(url).success)
          throw new AdminUsageError(`${name} must be an absolute http(s) URL`);
      }
      const host = await domainRepository.findHost(hostname);
      const domain = host ? await domainRepository.findById(host.workspaceId, host.domainId) : undefined;
      if (!domain) throw new AdminUsageError(`No domain ${hostname}`);
      await domainRepository.setFallbackUrls(domain, urls);
      printResult(options, { domain: domain.domain, ...urls }, (v) => JSON.stringify(v));
    });
};
