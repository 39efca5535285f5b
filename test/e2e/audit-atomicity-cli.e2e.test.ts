/**
 * No change without its audit entry, no entry without its change, for the admin CLI's changes:
 * each command runs as an operator runs it, its DynamoDB calls through the fault proxy. When the
 * proxy makes the entry's item conflict (as if another transaction held it), the command fails
 * and the change is not made; when it makes the change's items conflict, the command fails and no
 * entry exists. In both cases not one item of the workspace differs. Then the same command,
 * without faults, makes its change with exactly one entry.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapTenant, type BootstrapResult } from '@shared/admin/bootstrap';
import { collectWorkspaceItems } from '@shared/admin/workspace-items';
import type { AuditEntryResource } from '@shared/audit/audit-entry';
import { listAuditLog } from '@shared/audit/list-audit-log';
import { runAdmin } from '@test/support/admin-cli';
import { startDynamoFaultProxy, type DynamoFaultProxy } from '@test/support/dynamodb-fault-proxy';

let w: BootstrapResult;
let proxy: DynamoFaultProxy;
let dir: string;
beforeAll(async () => {
  w = await bootstrapTenant({ baseUrl: '', edgeUrl: '', name: 'Audit CLI faults' });
  proxy = await startDynamoFaultProxy(process.env.DYNAMODB_ENDPOINT!);
  dir = mkdtempSync(path.join(tmpdir(), 'audit-faults-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await proxy.stop();
});

const isAudit = ({ pk }: { pk: string }) => pk.startsWith('AUDIT#');

/** Every item of the workspace (the test reads DynamoDB directly, not through the proxy). */
const snapshot = async () => {
  const { items } = await collectWorkspaceItems(w.workspaceId);
  return items.map((i) => JSON.stringify(i)).sort();
};
const log = async (): Promise<AuditEntryResource[]> => (await listAuditLog(w.workspaceId, { limit: 100 })).data;

/** The command through the fault proxy. */
const throughProxy = (args: string[]) => runAdmin([...args, '--json'], { DYNAMODB_ENDPOINT: proxy.endpoint });

/**
 * Runs the command twice under a fault, the entry's items conflicting and then the change's: each
 * time nothing of the workspace changes and the command says it failed (an import reports its rows
 * failed instead). Then once without faults: exactly one new entry, of `action`. Returns the
 * command's JSON answer.
 */
const atomic = async <T>(
  args: string[],
  action: string,
  failed: (run: { code: number; stdout: string }) => boolean = (run) => run.code !== 0,
): Promise<T> => {
  const before = await snapshot();
  for (const held of [isAudit, (key: { pk: string }) => !isAudit(key)]) {
    proxy.conflictOn(held);
    const conflictsBefore = proxy.counts.transactionConflicts + proxy.counts.conflictExceptions;
    const run = await throughProxy(args).finally(() => {
      proxy.conflictOn(null);
    });
    expect(failed(run), `${args.join(' ')}: ${run.stdout} ${run.stderr}`).toBe(true);
    expect(proxy.counts.transactionConflicts + proxy.counts.conflictExceptions).toBeGreaterThan(conflictsBefore);
    expect(await snapshot(), args.join(' ')).toEqual(before);
  }
  const entriesBefore = await log();
  const run = await throughProxy(args);
  expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
  const entriesAfter = await log();
  expect(entriesAfter.slice(1)).toEqual(entriesBefore);
  expect(entriesAfter[0]?.action).toBe(action);
  return JSON.parse(run.stdout.trim().split('\n').pop()!) as T;
};

// Each run starts a process (tsx, the SDK): seconds apiece on a busy machine.
describe('admin CLI changes and their audit entries: all or nothing (fault proxy)', { timeout: 600_000 }, () => {
  it('keys create, rotate, revoke, revoke-key', async () => {
    const created = await atomic<{ id: string }>(
      ['keys', 'create', w.workspaceId, '--scope', 'read', '--name', 'faulty'],
      'key.created',
    );
    const rotated = await atomic<{ id: string }>(['keys', 'rotate', created.id, '--overlap', '0s'], 'key.rotated');
    await atomic(['keys', 'revoke', rotated.id], 'key.revoked');
    const byValue = await atomic<{ key: string }>(
      ['keys', 'create', w.workspaceId, '--scope', 'read', '--name', 'faulty by value'],
      'key.created',
    );
    await atomic(['revoke-key', byValue.key], 'key.revoked');
  });

  it('set-rate-limits', async () => {
    // A workspace's first limits start with an Update that only creates the empty map (no limit
    // changes, no entry; docs/audit-log.md): made here first, so what follows is the change alone.
    expect((await runAdmin(['set-rate-limits', w.workspaceId, '--legacy-per-minute', '600', '--json'])).code).toBe(0);
    await atomic(['set-rate-limits', w.workspaceId, '--server-per-minute', '4321'], 'rate_limits.updated');
  });

  it('domains add, verify, set-domain-urls, remove', async () => {
    const hostname = `faults-${Date.now()}.example.com`;
    await atomic(['domains', 'add', hostname, '--workspace', w.workspaceId], 'domain.added');
    await atomic(['domains', 'verify', hostname], 'domain.verified');
    await atomic(['set-domain-urls', hostname, '--expired-url', 'https://example.com/gone'], 'domain.updated');
    await atomic(['domains', 'remove', hostname], 'domain.removed');
  });

  it('webhooks add, rotate-secret, remove', async () => {
    const added = await atomic<{ id: string }>(
      ['webhooks', 'add', w.workspaceId, '--url', 'https://1.1.1.1/faults-hook'],
      'webhook.created',
    );
    await atomic(['webhooks', 'rotate-secret', added.id], 'webhook.updated');
    await atomic(['webhooks', 'remove', added.id], 'webhook.deleted');
  });

  it('import-links (a chunk and its entry)', async () => {
    const file = path.join(dir, 'links.csv');
    writeFileSync(file, 'url,key\nhttps://example.com/f1,faults-1\nhttps://example.com/f2,faults-2\n');
    const report = await atomic<{ created: number }>(
      ['import-links', file, '--workspace', w.workspaceId, '--domain', w.domain, '--format', 'generic'],
      'link.created',
      // An import answers every row; rows it could not write are reported failed.
      (run) =>
        run.code !== 0 ||
        (JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}') as { created?: number }).created === 0,
    );
    expect(report.created).toBe(2);
  });
});
