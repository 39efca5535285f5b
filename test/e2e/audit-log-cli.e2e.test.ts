/**
 * The admin CLI's changes in the audit log: one entry per change, its actor the operator
 * (`--actor`, else the OS user), no request; a refused command writes nothing.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bootstrapTenant, type BootstrapResult } from '@shared/admin/bootstrap';
import type { AuditEntryResource } from '@shared/audit/audit-entry';
import { listAuditLog } from '@shared/audit/list-audit-log';
import { linkRepository } from '@shared/links/link-repository';
import { domainRepository } from '@shared/tenancy/domain-repository';
import { runAdmin, runAdminFailing, runAdminJson } from '@test/support/admin-cli';

let w: BootstrapResult;
beforeAll(async () => {
  w = await bootstrapTenant({ baseUrl: '', edgeUrl: '', name: 'Audit CLI' });
});

/** The workspace's whole log, oldest first. */
const log = async (): Promise<AuditEntryResource[]> =>
  (await listAuditLog(w.workspaceId, { limit: 100 })).data.reverse();

/** Runs the command, then expects exactly one new entry and returns it. */
const oneEntryOf = async <T>(run: () => Promise<T>): Promise<{ result: T; entry: AuditEntryResource }> => {
  const before = await log();
  const result = await run();
  const after = await log();
  expect(after.slice(0, before.length)).toEqual(before);
  expect(after.slice(before.length)).toHaveLength(1);
  return { result, entry: after[before.length]! };
};

/** Runs the refused command and expects no new entry. */
const noEntryOf = async (args: string[]) => {
  const before = await log();
  expect((await runAdminFailing(args)).code).toBe(1);
  expect(await log()).toEqual(before);
};

const alice = { type: 'operator', name: 'alice' };

// Each run starts a process (tsx, the SDK): seconds apiece on a busy machine.
describe('audit log of admin CLI changes', { timeout: 240_000 }, () => {
  it('keys create, rotate, revoke: one entry each, the operator from --actor; refusals write nothing', async () => {
    const created = await oneEntryOf(() =>
      runAdminJson<{ id: string; key: string }>([
        '--actor',
        'alice',
        'keys',
        'create',
        w.workspaceId,
        '--scope',
        'read',
        '--name',
        'audited',
      ]),
    );
    expect(created.entry).toMatchObject({
      actor: alice,
      action: 'key.created',
      resource: { type: 'api_key', id: created.result.id },
      resourceIds: [created.result.id],
      requestId: null,
      ip: null,
      userAgent: null,
      changedFields: [],
    });

    const rotated = await oneEntryOf(() =>
      runAdminJson<{ id: string; key: string }>([
        'keys',
        'rotate',
        created.result.id,
        '--overlap',
        '0s',
        '--actor',
        'alice',
      ]),
    );
    expect(rotated.entry).toMatchObject({
      actor: alice,
      action: 'key.rotated',
      resource: { type: 'api_key', id: created.result.id },
      resourceIds: [created.result.id, rotated.result.id],
      changedFields: ['expiresAt'],
    });

    const revoked = await oneEntryOf(() => runAdminJson(['--actor', 'alice', 'keys', 'revoke', rotated.result.id]));
    expect(revoked.entry).toMatchObject({
      actor: alice,
      action: 'key.revoked',
      resource: { type: 'api_key', id: rotated.result.id },
      changedFields: ['revoked'],
    });

    // Refused: revoking a revoked key, rotating it, an unknown scope, an empty --actor.
    await noEntryOf(['keys', 'revoke', rotated.result.id]);
    await noEntryOf(['keys', 'rotate', rotated.result.id]);
    await noEntryOf(['keys', 'create', w.workspaceId, '--scope', 'everything', '--name', 'x']);
    await noEntryOf(['--actor', ' ', 'keys', 'create', w.workspaceId, '--scope', 'read', '--name', 'x']);

    // No key, plain or hashed, is in the log.
    const text = JSON.stringify(await log());
    expect(text).not.toContain(created.result.key);
    expect(text).not.toContain(rotated.result.key);
  });

  it('revoke-key (by plain value): key.revoked naming the key by its public id; revoking it again writes none', async () => {
    const issued = await runAdminJson<{ id: string; key: string }>([
      'keys',
      'create',
      w.workspaceId,
      '--scope',
      'read',
      '--name',
      'revoked by value',
    ]);
    const revoked = await oneEntryOf(() => runAdminJson(['--actor', 'alice', 'revoke-key', issued.key]));
    expect(revoked.entry).toMatchObject({
      actor: alice,
      action: 'key.revoked',
      resource: { type: 'api_key', id: issued.id },
      changedFields: ['revoked'],
    });
    const before = await log();
    await runAdminJson(['revoke-key', issued.key]);
    expect(await log()).toEqual(before);
    await noEntryOf(['revoke-key', 'sk_never_issued_to_anyone']);
    expect(JSON.stringify(await log())).not.toContain(issued.key);
  });

  it('set-rate-limits: rate_limits.updated with the names of the limits set, never their values; the OS user without --actor', async () => {
    const { entry } = await oneEntryOf(() =>
      runAdminJson(['set-rate-limits', w.workspaceId, '--server-per-minute', '4321', '--legacy-per-minute', '8765']),
    );
    expect(entry).toMatchObject({
      actor: { type: 'operator', name: userInfo().username },
      action: 'rate_limits.updated',
      resource: { type: 'workspace', id: w.workspaceId },
    });
    expect([...entry.changedFields].sort()).toEqual(['legacyPerMinute', 'serverPerMinute']);
    expect(JSON.stringify(entry)).not.toMatch(/4321|8765/);

    await noEntryOf(['set-rate-limits', w.workspaceId, '--server-per-minute', 'lots']);
    await noEntryOf(['set-rate-limits', w.workspaceId]);
  });

  it('domains add, verify, set-domain-urls, remove: one entry each; a change that changes nothing and refusals write none', async () => {
    const hostname = `audit-${Date.now()}.example.com`;
    const added = await oneEntryOf(() =>
      runAdminJson(['--actor', 'alice', 'domains', 'add', hostname, '--workspace', w.workspaceId]),
    );
    const domainId = (await domainRepository.findHost(hostname))!.domainId;
    expect(added.entry).toMatchObject({
      actor: alice,
      action: 'domain.added',
      resource: { type: 'domain', id: domainId },
      changedFields: [],
    });
    await noEntryOf(['domains', 'add', hostname, '--workspace', w.workspaceId]);
    await noEntryOf(['domains', 'add', 'not a domain', '--workspace', w.workspaceId]);

    const verified = await oneEntryOf(() => runAdminJson(['--actor', 'alice', 'domains', 'verify', hostname]));
    expect(verified.entry).toMatchObject({
      action: 'domain.verified',
      resource: { type: 'domain', id: domainId },
      changedFields: ['verified'],
    });
    // Verifying a verified domain again changes nothing.
    const before = await log();
    await runAdminJson(['domains', 'verify', hostname]);
    expect(await log()).toEqual(before);

    const updated = await oneEntryOf(() =>
      runAdminJson([
        '--actor',
        'alice',
        'set-domain-urls',
        hostname,
        '--expired-url',
        'https://example.com/gone-audit',
      ]),
    );
    expect(updated.entry).toMatchObject({
      action: 'domain.updated',
      resource: { type: 'domain', id: domainId },
      changedFields: ['expiredUrl'],
    });
    expect(JSON.stringify(updated.entry)).not.toContain('gone-audit');
    await noEntryOf(['set-domain-urls', hostname, '--expired-url', 'not-a-url']);

    const removed = await oneEntryOf(() => runAdminJson(['--actor', 'alice', 'domains', 'remove', hostname]));
    expect(removed.entry).toMatchObject({
      actor: alice,
      action: 'domain.removed',
      resource: { type: 'domain', id: domainId },
      changedFields: ['archived', 'verified'],
    });
    const afterRemove = await log();
    await runAdminJson(['domains', 'remove', hostname]);
    expect(await log()).toEqual(afterRemove);
  });

  it('webhooks add, rotate-secret, remove: one entry each, never the URL or the secret; refusals write none', async () => {
    const url = 'https://1.1.1.1/audit-hook';
    const added = await oneEntryOf(() =>
      runAdminJson<{ id: string; secret: string }>([
        '--actor',
        'alice',
        'webhooks',
        'add',
        w.workspaceId,
        '--url',
        url,
      ]),
    );
    expect(added.entry).toMatchObject({
      actor: alice,
      action: 'webhook.created',
      resource: { type: 'webhook_endpoint', id: added.result.id },
      changedFields: [],
    });
    await noEntryOf(['webhooks', 'add', w.workspaceId, '--url', 'http://10.0.0.1/x']);

    const rotated = await oneEntryOf(() =>
      runAdminJson<{ secret: string }>(['--actor', 'alice', 'webhooks', 'rotate-secret', added.result.id]),
    );
    expect(rotated.entry).toMatchObject({
      action: 'webhook.updated',
      resource: { type: 'webhook_endpoint', id: added.result.id },
    });
    expect(rotated.entry.changedFields).toContain('secret');

    const removed = await oneEntryOf(() => runAdminJson(['--actor', 'alice', 'webhooks', 'remove', added.result.id]));
    expect(removed.entry).toMatchObject({
      action: 'webhook.deleted',
      resource: { type: 'webhook_endpoint', id: added.result.id },
    });
    await noEntryOf(['webhooks', 'remove', added.result.id]);

    const text = JSON.stringify(await log());
    for (const value of [url, added.result.secret, rotated.result.secret]) expect(text).not.toContain(value);
  });

  it('export-workspace: workspace.exported once the files are written; a refused export writes none', async () => {
    const out = mkdtempSync(path.join(tmpdir(), 'audit-export-'));
    try {
      const { entry } = await oneEntryOf(() =>
        runAdminJson(['--actor', 'alice', 'export-workspace', w.workspaceId, '--out', out]),
      );
      expect(entry).toMatchObject({
        actor: alice,
        action: 'workspace.exported',
        resource: { type: 'workspace', id: w.workspaceId },
        changedFields: [],
      });
      const file = path.join(out, 'not-a-folder');
      writeFileSync(file, '');
      await noEntryOf(['export-workspace', w.workspaceId, '--out', file]);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('import-links: one link.created entry per transaction chunk, listing the created links; a dry run or a re-run writes none', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'audit-import-'));
    try {
      const file = path.join(dir, 'links.csv');
      writeFileSync(
        file,
        'url,key\nhttps://example.com/i1,audit-imp-1\nhttps://example.com/i2,audit-imp-2\nhttps://example.com/i3,audit-imp-3\n',
      );
      const args = ['import-links', file, '--workspace', w.workspaceId, '--domain', w.domain, '--format', 'generic'];
      const before = await log();
      expect((await runAdmin([...args, '--dry-run', '--json'])).code).toBe(0);
      expect(await log()).toEqual(before);

      const { result, entry } = await oneEntryOf(() =>
        runAdminJson<{ created: number }>(['--actor', 'alice', ...args]),
      );
      expect(result.created).toBe(3);
      expect(entry).toMatchObject({ actor: alice, action: 'link.created', requestId: null, changedFields: [] });
      expect(entry.resourceIds).toHaveLength(3);
      expect(entry.resource).toEqual({ type: 'link', id: entry.resourceIds[0] });
      const created = await Promise.all(
        ['audit-imp-1', 'audit-imp-2', 'audit-imp-3'].map(
          async (key) => (await linkRepository.findBySlug(w.domain, key))!.id,
        ),
      );
      expect([...entry.resourceIds].sort()).toEqual([...created].sort());
      expect(JSON.stringify(entry)).not.toContain('example.com/i1');

      const afterImport = await log();
      await runAdmin([...args, '--json']);
      expect(await log()).toEqual(afterImport);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
