/** admin set-domain-urls, set-domain-conversions, set-conversion-param: a domain's fallbacks, its web conversion tracking, the workspace's token parameter. */
import type { Command } from 'commander';
import { invalidInput, notFound } from '@shared/admin/admin-error';
import { CONVERSION_PARAM, conversionSettingsRepository } from '@shared/conversions/conversion-settings';
import { httpUrlSchema } from '@shared/schemas/common-schemas';
import { domainRepository } from '@shared/tenancy/domain-repository';
import { workspaceRepository } from '@shared/tenancy/workspace-repository';
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

  program
    .command('set-domain-conversions')
    .description(
      'turn web conversion tracking on or off for every link of a domain (the edge appends a signed click token to web destinations; it sees the change within 60 s)',
    )
    .argument('<hostname>', 'the link domain')
    .argument('<state>', 'on or off')
    .option('--json', 'print one line of JSON')
    .action(async (hostname: string, state: string, options: JsonOption) => {
      adminTarget();
      if (state !== 'on' && state !== 'off') throw invalidInput(`<state> must be on or off (got ${state})`);
      const name = hostname.trim().toLowerCase().replace(/\.$/, '');
      const host = await domainRepository.findHost(name);
      const domain = host ? await domainRepository.findById(host.workspaceId, host.domainId) : undefined;
      if (!domain) throw notFound(`No domain ${name} (a link domain added with bootstrap or domains add)`);
      const on = state === 'on';
      // The workspace's click-token secret exists before the edge can need it.
      if (on) await conversionSettingsRepository.getOrCreate(domain.workspaceId);
      const changed = (domain.trackConversions ?? false) === on ? [] : ['trackConversions'];
      await domainRepository.setTrackConversions(
        domain,
        on,
        domainAudit(domain, cliOrigin(), 'domain.updated', changed),
      );
      printResult(options, { domain: domain.domain, trackConversions: on }, (v) =>
        v.trackConversions
          ? `Web conversion tracking on for every link of ${v.domain} (the edge sees it within 60 s).`
          : `Web conversion tracking off for ${v.domain}: only links with trackConversions get a click token.`,
      );
    });

  program
    .command('set-conversion-param')
    .description(
      "set the query parameter a workspace's click tokens ride in (default lsid; running Lambdas see it within 60 s)",
    )
    .argument('<workspaceId>', 'the workspace id')
    .argument('<param>', 'the parameter name: a letter, then up to 31 letters, digits, _ or -')
    .option('--json', 'print one line of JSON')
    .action(async (workspaceId: string, param: string, options: JsonOption) => {
      adminTarget();
      if (!CONVERSION_PARAM.test(param) || /^utm_/i.test(param) || param === 'ref')
        throw invalidInput(
          `<param> must be a letter then up to 31 letters, digits, _ or -, and not a tracking parameter (got ${param})`,
        );
      if (!(await workspaceRepository.findById(workspaceId, true))) throw notFound(`No workspace ${workspaceId}`);
      const settings = await conversionSettingsRepository.setParam(workspaceId, param);
      printResult(
        options,
        { workspaceId, param: settings.param },
        (v) =>
          `Click tokens of workspace ${v.workspaceId} now ride in ?${v.param}= (running Lambdas see it within 60 s).`,
      );
    });
};
