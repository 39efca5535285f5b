/** admin set-rate-limits, show-workspace: a workspace's per-minute limits and what it holds. */
import type { Command } from 'commander';
import * as z from '@shared/schemas/zod-mini';
import {
  DEFAULT_RATE_LIMITS,
  effectiveRateLimits,
  perMinuteSchema,
  RATE_LIMIT_MAX,
  RATE_LIMIT_MIN,
  type RateLimits,
} from '@shared/rate-limits/rate-limit-policy';
import { LIMITS_CACHE_SECONDS } from '@shared/rate-limits/rate-limiter';
import { workspaceRepository } from '@shared/tenancy/workspace-repository';
import { invalidInput, notFound } from '@shared/admin/admin-error';
import { newAuditEntry } from '@shared/audit/audit-entry';
import { auditPut } from '@shared/audit/audit-repository';
import type { AdminTargetOf } from './admin-target';
import { cliOrigin } from './operator';
import { fieldLines, printResult, type JsonOption } from './output';

const FLAGS = {
  serverPerMinute: '--server-per-minute',
  clientPerMinute: '--client-per-minute',
  legacyPerMinute: '--legacy-per-minute',
} as const;

const parseLimit = (flag: string, raw: string | undefined): number | undefined => {
  if (raw === undefined) return undefined;
  const n = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!z.safeParse(perMinuteSchema, n).success) {
    throw invalidInput(
      `${flag} must be a whole number from ${RATE_LIMIT_MIN} to ${RATE_LIMIT_MAX.toLocaleString('en')} (got ${raw})`,
    );
  }
  return n;
};

/** Each limit with where it comes from (set on the workspace, or the default). */
const describeLimits = (stored: Partial<RateLimits> | undefined) => {
  const effective = effectiveRateLimits(stored);
  return Object.fromEntries(
    (Object.keys(DEFAULT_RATE_LIMITS) as Array<keyof RateLimits>).map((k) => [
      k,
      { perMinute: effective[k], source: stored?.[k] === undefined ? 'default' : 'workspace' },
    ]),
  );
};

const limitLines = (limits: ReturnType<typeof describeLimits>) =>
  fieldLines(Object.entries(limits).map(([k, l]) => [k, `${l.perMinute} (${l.source})`]));

const workspaceOrThrow = async (workspaceId: string) => {
  const workspace = await workspaceRepository.findById(workspaceId, true);
  if (!workspace) throw notFound(`No workspace ${workspaceId}`);
  return workspace;
};

export const registerWorkspaceCommands = (program: Command, adminTarget: AdminTargetOf): void => {
  program
    .command('set-rate-limits')
    .description(
      `set a workspace's per-minute request limits (${RATE_LIMIT_MIN}-${RATE_LIMIT_MAX}); omitted ones stay; running Lambdas apply them within ${LIMITS_CACHE_SECONDS} s`,
    )
    .argument('<workspaceId>', 'the workspace id')
    .option(`${FLAGS.serverPerMinute} <n>`, `server-key v1 routes (default ${DEFAULT_RATE_LIMITS.serverPerMinute})`)
    .option(
      `${FLAGS.clientPerMinute} <n>`,
      `publishable-key client routes (default ${DEFAULT_RATE_LIMITS.clientPerMinute})`,
    )
    .option(
      `${FLAGS.legacyPerMinute} <n>`,
      `legacy /api/mobile routes (default ${DEFAULT_RATE_LIMITS.legacyPerMinute})`,
    )
    .option('--json', 'print one line of JSON')
    .action(async (workspaceId: string, options: JsonOption & Partial<Record<keyof RateLimits, string>>) => {
      adminTarget();
      const changes = Object.fromEntries(
        (Object.keys(FLAGS) as Array<keyof RateLimits>)
          .map((k) => [k, parseLimit(FLAGS[k], options[k])])
          .filter(([, v]) => v !== undefined),
      ) as Partial<RateLimits>;
      if (Object.keys(changes).length === 0)
        throw invalidInput(`Give at least one of ${Object.values(FLAGS).join(', ')}`);
      await workspaceOrThrow(workspaceId);
      const entry = newAuditEntry(workspaceId, cliOrigin(), {
        action: 'rate_limits.updated',
        resource: { type: 'workspace', id: workspaceId },
        changedFields: Object.keys(changes),
      });
      const stored = await workspaceRepository.setRateLimits(workspaceId, changes, [auditPut(entry)]);
      const rateLimits = describeLimits(stored);
      printResult(options, { workspaceId, rateLimits }, () =>
        [`Rate limits of ${workspaceId} (requests per minute):`, limitLines(rateLimits)].join('\n'),
      );
    });

  program
    .command('show-workspace')
    .description('show a workspace: name, creation time and its rate limits (set or default)')
    .argument('<workspaceId>', 'the workspace id')
    .option('--json', 'print one line of JSON')
    .action(async (workspaceId: string, options: JsonOption) => {
      adminTarget();
      const workspace = await workspaceOrThrow(workspaceId);
      const value = {
        id: workspace.id,
        name: workspace.name,
        createdAt: workspace.createdAt,
        rateLimits: describeLimits(workspace.rateLimits),
      };
      printResult(options, value, (v) =>
        [
          `Workspace ${v.id}:`,
          fieldLines([
            ['name', v.name],
            ['created', v.createdAt],
          ]),
          'Rate limits (requests per minute):',
          limitLines(v.rateLimits),
        ].join('\n'),
      );
    });
};
