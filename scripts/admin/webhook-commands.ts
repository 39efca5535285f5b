/** admin webhooks add|list|remove|rotate-secret|replay: a workspace's webhook endpoints (docs/events.md). */
import type { Command } from 'commander';
import { outboundEventTypes } from '@shared/outbound/event-catalogue';
import {
  addWebhookEndpoint,
  listWebhookEndpoints,
  parseEventTypes,
  removeWebhookEndpoint,
  replayWebhookEvents,
  rotateWebhookSecret,
} from '@shared/outbound/manage-webhooks';
import { notFound } from '@shared/admin/admin-error';
import { workspaceRepository } from '@shared/tenancy/workspace-repository';
import type { AdminTargetOf } from './admin-target';
import { cliOrigin } from './operator';
import { fieldLines, printResult, progressBar, type JsonOption } from './output';

export const registerWebhookCommands = (program: Command, adminTarget: AdminTargetOf): void => {
  const webhooks = program
    .command('webhooks')
    .description("a workspace's signed webhook endpoints (Standard Webhooks)");

  webhooks
    .command('add')
    .description('add an endpoint; prints its id and signing secret once')
    .argument('<workspaceId>', 'the workspace')
    .requiredOption('--url <url>', 'https URL (the local stack also takes http://127.0.0.1 and http://localhost)')
    .option(
      '--events <types>',
      `comma-separated event types (default: all but link.clicked); known: ${outboundEventTypes.join(', ')}`,
    )
    .option('--json', 'print {"id","secret"}')
    .action(async (workspaceId: string, options: JsonOption & { url: string; events?: string }) => {
      adminTarget();
      const added = await addWebhookEndpoint(
        workspaceId,
        options.url,
        parseEventTypes(options.events),
        new Date(),
        cliOrigin(),
      );
      printResult(options, added, (v) =>
        [
          'Endpoint added; keep its signing secret now, it is shown once:',
          fieldLines([
            ['endpoint', v.id],
            ['secret', v.secret],
          ]),
        ].join('\n'),
      );
    });

  webhooks
    .command('list')
    .description("a workspace's endpoints (never their secrets)")
    .argument('<workspaceId>', 'the workspace')
    .option('--json', 'print one line of JSON')
    .action(async (workspaceId: string, options: JsonOption) => {
      adminTarget();
      if (!(await workspaceRepository.findById(workspaceId))) throw notFound(`No workspace ${workspaceId}`);
      const endpoints = await listWebhookEndpoints(workspaceId);
      printResult(options, endpoints, (list) =>
        list.length === 0
          ? `${workspaceId} has no webhook endpoints.`
          : list
              .map((e) => `${e.id}  ${e.enabled ? 'enabled ' : 'disabled'}  ${e.url}  ${e.events.join(',')}`)
              .join('\n'),
      );
    });

  webhooks
    .command('remove')
    .description('remove an endpoint (queued deliveries to it are dropped)')
    .argument('<endpointId>', 'the endpoint')
    .option('--json', 'print one line of JSON')
    .action(async (endpointId: string, options: JsonOption) => {
      adminTarget();
      printResult(options, await removeWebhookEndpoint(endpointId, cliOrigin()), (v) => `Endpoint ${v.id} removed.`);
    });

  webhooks
    .command('rotate-secret')
    .description('new signing secret; for 24 hours deliveries carry signatures with both the old and the new one')
    .argument('<endpointId>', 'the endpoint')
    .option('--json', 'print {"id","secret","previousSecretExpiresAt"}')
    .action(async (endpointId: string, options: JsonOption) => {
      adminTarget();
      const rotated = await rotateWebhookSecret(endpointId, new Date(), cliOrigin());
      printResult(options, rotated, (v) =>
        [
          `New signing secret (shown once); the old one signs too until ${v.previousSecretExpiresAt}:`,
          fieldLines([
            ['endpoint', v.id],
            ['secret', v.secret],
          ]),
        ].join('\n'),
      );
    });

  webhooks
    .command('replay')
    .description(
      "re-send the workspace's events since a time (kept 30 days) that the endpoint subscribes to, with their original ids",
    )
    .argument('<endpointId>', 'the endpoint')
    .requiredOption('--since <iso>', 'ISO 8601 date-time')
    .option('--json', 'print one line of JSON')
    .action(async (endpointId: string, options: JsonOption & { since: string }) => {
      adminTarget();
      const bar = progressBar(options, 0, 'replay');
      let shown = 0;
      const result = await replayWebhookEvents(endpointId, options.since, (n) => {
        bar.increment(n - shown);
        shown = n;
      }).finally(() => {
        bar.stop();
      });
      printResult(options, result, (v) => `Replaying ${v.replayed} event(s) to ${v.id} since ${v.since}.`);
    });
};
