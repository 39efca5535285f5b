/** admin set-domain-urls: where a domain's expired and unknown links go. */
import type { Command } from 'commander';
import { invalidInput, notFound } from '@shared/admin/admin-error';
import { httpUrlSchema } from '@shared/schemas/common-schemas';
import { domainRepository } from '@shared/tenancy/domain-repository';
import { domainAudit } from '@shared/admin/distribution-tenants';
import type { AdminTargetOf } from './admin-target';
import { cliOrigin } from './operator';
import { fieldLines, printResult, type JsonOption } from './output';

const FLAGS = { expiredUrl: '--expired-url', notFoundUrl: '--not-found-url' } as const;

export const registerDomainCommands = (program: Command, adminTarget: AdminTargetOf): void => {
  program
    .command('set-domain-urls')
    .description("set a domain's expiredUrl / notFoundUrl (an omitted one is cleared; the edge sees it within 60 s)")
    .argument('<hostname>', 'the link domain')
    .option(`${FLAGS.expiredUrl} <url>`, 'where expired links go')
    .option(`${FLAGS.notFoundUrl} <url>`, 'where unknown keys go')
    .option('--json', 'print one line of JSON')
    .action(async (hostname: string, options: JsonOption & { expiredUrl?: string; notFoundUrl?: string }) => {
      adminTarget();
      const urls = { expiredUrl: options.expiredUrl ?? null, notFoundUrl: options.notFoundUrl ?? null };
      for (const name of ['expiredUrl', 'notFoundUrl'] as const) {
        const url = urls[name];
        if (url !== null && !httpUrlSchema.safeParse(url).success)
          throw invalidInput(`${FLAGS[name]} must be an absolute http(s) URL (got ${url})`);
      }
      const name = hostname.trim().toLowerCase().replace(/\.$/, '');
      const host = await domainRepository.findHost(name);
      const domain = host ? await domainRepository.findById(host.workspaceId, host.domainId) : undefined;
      if (!domain) throw notFound(`No domain ${name} (a link domain added with bootstrap or domains add)`);
      const changed = (['expiredUrl', 'notFoundUrl'] as const).filter((field) => domain[field] !== urls[field]);
      await domainRepository.setFallbackUrls(domain, urls, domainAudit(domain, cliOrigin(), 'domain.updated', changed));
      printResult(options, { domain: domain.domain, ...urls }, (v) =>
        [
          `Fallback URLs of ${v.domain} set (the edge sees them within 60 s):`,
          fieldLines([
            ['expired links go to', v.expiredUrl ?? 'none (a 410 page, unless the link has its own expiredUrl)'],
            ['unknown keys go to', v.notFoundUrl ?? 'none (a 404 page)'],
          ]),
        ].join('\n'),
      );
    });
};
