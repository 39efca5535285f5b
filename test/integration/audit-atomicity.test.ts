import { describe, expect, it } from 'vitest';
import { listAuditLog } from '@shared/audit/list-audit-log';
import type { ListAuditLogQuery } from '@shared/audit/audit-schemas';
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
