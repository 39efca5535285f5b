import { describe, expect, it } from 'vitest';
import { countClicks } from '@test/support/count-clicks';
import { linkRepository, SlugTakenError } from '@shared/links/link-repository';
import { patchLink } from '@shared/links/patch-link';
import { TEST_ORIGIN } from '@test/support/test-origin';
import { useFaultProxyTenant } from '@test/support/fault-proxy-tenant';

/**
 * The conflicts deployed DynamoDB reports and DynamoDB Local never does, produced on the wire
 * by the fault proxy with transactions held open on purpose (no timing involved: a test waits
 * for the collision, then lets the held transaction finish).
 */
const fixture = useFaultProxyTenant();
const { until, newLink } = fixture;

describe('transaction conflicts (fault proxy)', () => {
  it('a counter update on a link inside a running PATCH transaction is retried and counted', async () => {
    const link = await newLink();
    const gate = fixture.proxy.holdTransactions();
    const patched = patchLink(
      fixture.tenant.workspaceId,
      'SHORTLINK',
      link.id,
      { title: 'during a click' },
      TEST_ORIGIN,
    );
    await until(() => fixture.proxy.ongoingTransactionItems() > 0);
    const before = fixture.proxy.counts.conflictExceptions;
    const click = countClicks(link.id, { humans: 1 });
    await until(() => fixture.proxy.counts.conflictExceptions > before);
    gate.release();
    expect(await click).toMatchObject({ applied: 1, clicks: 1 });
    expect((await patched).title).toBe('during a click');
    const now = await linkRepository.findById(link.id, true);
    expect(now).toMatchObject({ clicks: 1, title: 'during a click' });
  });

  it('a create whose slug is inside a running transaction: retried, then 409 slug_taken once the other holds it', async () => {
    const gate = fixture.proxy.holdTransactions();
    const first = newLink('conflict-slug');
    await until(() => fixture.proxy.ongoingTransactionItems() > 0);
    const before = fixture.proxy.counts.transactionConflicts;
    const second = newLink('conflict-slug').catch((e: unknown) => e);
    await until(() => fixture.proxy.counts.transactionConflicts > before);
    gate.release();
    const winner = await first;
    expect(await second).toBeInstanceOf(SlugTakenError);
    expect((await linkRepository.findBySlug(winner.domain, 'conflict-slug'))?.id).toBe(winner.id);
  });

  it('a slug conflict that outlasts every retry is slug_taken, not a 500', async () => {
    const gate = fixture.proxy.holdTransactions();
    const first = newLink('held-slug');
    await until(() => fixture.proxy.ongoingTransactionItems() > 0);
    const before = fixture.proxy.counts.transactionConflicts;
    const error = await newLink('held-slug').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SlugTakenError);
    expect((error as SlugTakenError).code).toBe('slug_taken');
    expect(fixture.proxy.counts.transactionConflicts - before).toBe(8);
    gate.release();
    await first;
  });

  it("a PATCH colliding with another PATCH's transaction is retried and applied on top of it", async () => {
    const link = await newLink();
    const [a, b] = await fixture.collidingPatches(link.id);
    expect(a.title).toBe('first');
    expect(b).toMatchObject({ title: 'first', comments: 'second' });
  });
});
