import { describe, expect, it } from 'vitest';
import { listAuditLog } from '@shared/audit/list-audit-log';
import type { ListAuditLogQuery } from '@shared/audit/audit-schemas';
import { issueKey, revokeKeyById } from '@shared/admin/api-key-lifecycle';
import { addDomain, domainAudit, verifyDomain } from '@shared/admin/distribution-tenants';
import { bulkCreateLinks } from '@shared/links/bulk-create-links';
import { domainRepository } from '@shared/tenancy/domain-repository';
import { linkChangedEntry } from '@shared/links/link-audit';
import { LinkChangedError, linkRepository, SlugTakenError } from '@shared/links/link-repository';
import { applyLinkPatch } from '@shared/links/patch-link';
import { TEST_ORIGIN } from '@test/support/test-origin';
import { useFaultProxyTenant } from '@test/support/fault-proxy-tenant';

/**
 * No change without its audit entry, no entry without its change: the entry is one item of the
 * change's own transaction. Transactions cancelled by conflicts (produced on the wire by the
 * fault proxy, as deployed DynamoDB reports them) and by the entry's own condition leave
 * neither behind; each committed change leaves exactly one entry.
 */
const fixture = useFaultProxyTenant();
const { until, newLink } = fixture;

const entries = async (filters: Partial<ListAuditLogQuery>) =>
  (await listAuditLog(fixture.tenant.workspaceId, { limit: 100, ...filters })).data;

describe('audit entries are atomic with their change (fault proxy)', () => {
  it('two colliding PATCHes: each committed change has exactly one entry, the cancelled attempts none', async () => {
    const link = await newLink();
    const [a, b] = await fixture.collidingPatches(link.id);
    const logged = await entries({ resourceId: link.id });
    expect(logged.map((e) => [e.action, e.occurredAt, e.changedFields])).toEqual([
      ['link.updated', b.updatedAt, ['comments']],
      ['link.updated', a.updatedAt, ['title']],
      ['link.created', link.createdAt, []],
    ]);
    expect(logged.every((e) => e.actor.type === 'operator' && e.actor.name === 'test')).toBe(true);
  });

  it('a create that loses its slug through every retry writes neither the link nor an entry', async () => {
    const createdBefore = (await entries({ action: 'link.created' })).length;
    const gate = fixture.proxy.holdTransactions();
    const first = newLink('audit-held-slug');
    await until(() => fixture.proxy.ongoingTransactionItems() > 0);
    const error = await newLink('audit-held-slug').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SlugTakenError);
    gate.release();
    const winner = await first;
    const created = await entries({ action: 'link.created' });
    expect(created).toHaveLength(createdBefore + 1);
    expect(created[0]?.resource).toEqual({ type: 'link', id: winner.id });
  });

  it('an entry that cannot be written cancels its change', async () => {
    const link = await newLink();
    const next = applyLinkPatch(link, { title: 'logged once' }, {});
    const entry = linkChangedEntry(link, next, TEST_ORIGIN);
    await linkRepository.saveChange(link, next, entry);
    // The same entry again (its key is taken): the transaction is cancelled, the link untouched.
    const again = applyLinkPatch(next, { title: 'never applied' }, {});
    await expect(linkRepository.saveChange(next, again, entry)).rejects.toBeInstanceOf(LinkChangedError);
    expect((await linkRepository.findById(link.id, true))?.title).toBe('logged once');
    expect((await entries({ resourceId: link.id })).map((e) => e.action)).toEqual(['link.updated', 'link.created']);
  });
});

describe('bulk create and its chunk entries are atomic (fault proxy)', () => {
  const items = (n: number, tag: string) =>
    Array.from({ length: n }, (_, i) => ({ domain: fixture.tenant.domain, url: `https://e.com/${tag}-${i}` }));
  const linksOf = async (tag: string, n: number) =>
    (
      await Promise.all(items(n, tag).map((_, i) => linkRepository.findBySlug(fixture.tenant.domain, `${tag}-${i}`)))
    ).filter(Boolean);
  const withKeys = (n: number, tag: string) => items(n, tag).map((item, i) => ({ ...item, key: `${tag}-${i}` }));

  it.each([
    [
      'its entry',
      ({ pk }: { pk: string }) => pk.startsWith(`AUDIT#${fixture.tenant.workspaceId}`) && !pk.includes('#resource#'),
    ],
    ['an index item of the entry', ({ pk }: { pk: string }) => pk.includes('#resource#')],
    ['a link', ({ pk }: { pk: string }) => pk.startsWith('LINK#')],
  ])('a chunk whose %s cannot be written writes no link and no entry', async (what, held) => {
    const tag = `bulk-fault-${what.replace(/\W+/g, '-')}-${Date.now()}`;
    const before = await entries({});
    fixture.proxy.conflictOn(held);
    const results = await bulkCreateLinks(fixture.tenant.workspaceId, withKeys(3, tag), TEST_ORIGIN).finally(() => {
      fixture.proxy.conflictOn(null);
    });
    expect(results.map((r) => r.success)).toEqual([false, false, false]);
    expect(await linksOf(tag, 3)).toEqual([]);
    expect(await entries({})).toEqual(before);

    // The same batch without the fault: its links and one entry naming all of them.
    const written = await bulkCreateLinks(fixture.tenant.workspaceId, withKeys(3, tag), TEST_ORIGIN);
    const ids = written.map((r) => (r.success ? r.data.id : ''));
    const after = await entries({});
    expect(after.slice(1)).toEqual(before);
    expect(after[0]).toMatchObject({ action: 'link.created', resourceIds: ids });
    for (const id of ids) expect((await entries({ resourceId: id })).map((e) => e.id)).toEqual([after[0]!.id]);
  });
});

describe('domains verify: one domain.verified entry, however many runs race', () => {
  const newDomain = async () => {
    const hostname = `race-${Date.now()}-${Math.random().toString(36).slice(2, 8)}.example.com`;
    await addDomain(
      { domain: hostname, workspaceId: fixture.tenant.workspaceId, usage: 'SHORTLINK' },
      null,
      '',
      TEST_ORIGIN,
    );
    const domain = (await domainRepository.findByHostname(fixture.tenant.workspaceId, hostname))!;
    return { hostname, domain };
  };
  const verifiedEntries = async (domainId: string) =>
    (await entries({ resourceId: domainId })).filter((e) => e.action === 'domain.verified');

  it('a run that read the domain unverified after another flipped it writes nothing', async () => {
    const { domain } = await newDomain();
    // Both runs read the domain unverified; the first flips it, the second finds it flipped.
    const flip = () =>
      domainRepository.flipToVerified(domain, domainAudit(domain, TEST_ORIGIN, 'domain.verified', ['verified']));
    expect(await flip()).toBe(true);
    expect(await flip()).toBe(false);
    expect((await domainRepository.findById(fixture.tenant.workspaceId, domain.id))?.verified).toBe(true);
    expect(await verifiedEntries(domain.id)).toHaveLength(1);
  });

  it('concurrent runs: the domain verified once, one entry', async () => {
    const { hostname, domain } = await newDomain();
    const runs = await Promise.allSettled(
      Array.from({ length: 4 }, () => verifyDomain(hostname, null, '', TEST_ORIGIN)),
    );
    // A run whose transaction overlapped the winner's is cancelled (a conflict, as DynamoDB does); none writes a second entry.
    expect(runs.some((r) => r.status === 'fulfilled' && r.value.verified)).toBe(true);
    for (const run of runs)
      if (run.status === 'rejected') expect((run.reason as Error).name).toBe('TransactionCanceledException');
    expect((await domainRepository.findById(fixture.tenant.workspaceId, domain.id))?.verified).toBe(true);
    expect(await verifiedEntries(domain.id)).toHaveLength(1);
  });
});

describe('keys revoke: one key.revoked entry, however many runs race', () => {
  it('concurrent revocations of one key: revoked once, one entry, the others refused', async () => {
    const issued = await issueKey({ workspaceId: fixture.tenant.workspaceId, kind: 'server', name: 'race' });
    const runs = await Promise.allSettled(
      Array.from({ length: 4 }, () => revokeKeyById(issued.id, Date.now(), TEST_ORIGIN)),
    );
    expect(runs.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    // A run that read the key unrevoked is refused by the key's condition (a conflict) or, when
    // its transaction overlapped the winner's, cancelled as DynamoDB does: none writes an entry.
    for (const run of runs)
      if (run.status === 'rejected')
        expect(['AdminError', 'TransactionCanceledException']).toContain((run.reason as Error).name);
    const revoked = (await entries({ resourceId: issued.id })).filter((e) => e.action === 'key.revoked');
    expect(revoked).toHaveLength(1);
  });
});
