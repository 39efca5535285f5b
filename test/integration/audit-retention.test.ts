import { beforeAll, describe, expect, it } from 'vitest';
import { bootstrapTenant, type BootstrapResult } from '@shared/admin/bootstrap';
import { AUDIT_RETENTION_MS } from '@shared/audit/audit-entry';
import { auditItem } from '@shared/audit/audit-repository';
import { listAuditLog } from '@shared/audit/list-audit-log';
import { insertLink } from '@shared/links/create-link';
import { linkCreatedEntry } from '@shared/links/link-audit';
import { domainRepository } from '@shared/tenancy/domain-repository';
import { TEST_ORIGIN } from '@test/support/test-origin';

let tenant: BootstrapResult;
beforeAll(async () => {
  tenant = await bootstrapTenant({ baseUrl: 'http://unused', edgeUrl: 'http://unused' });
});

const DAY = 24 * 60 * 60 * 1000;

describe('audit log retention', () => {
  it('an entry expires by TTL after 400 days, and reads ignore it from then on', async () => {
    const domain = (await domainRepository.findById(tenant.workspaceId, tenant.domainId))!;
    const link = await insertLink(
      { workspaceId: tenant.workspaceId, linkType: 'SHORTLINK', domain, deepLinkAppId: null, url: 'https://e.com' },
      {},
      TEST_ORIGIN,
    );
    const entry = linkCreatedEntry(link, TEST_ORIGIN);
    expect((auditItem(entry).ttl as number) * 1000).toBe(
      Math.floor((Date.parse(link.createdAt) + AUDIT_RETENTION_MS) / 1000) * 1000,
    );
    expect(AUDIT_RETENTION_MS).toBe(400 * DAY);
    const read = (now: number) => listAuditLog(tenant.workspaceId, { limit: 10, resourceId: link.id }, now);
    const created = Date.parse(link.createdAt);
    expect((await read(created + 399 * DAY)).data.map((e) => e.action)).toEqual(['link.created']);
    expect((await read(created + 401 * DAY)).data).toEqual([]);
    // The same bound with a `from` older than the retention.
    const old = new Date(created - DAY).toISOString();
    const withFrom = await listAuditLog(tenant.workspaceId, { limit: 10, from: old }, created + 401 * DAY);
    expect(withFrom.data).toEqual([]);
  });

  it('from after to is an empty page, not an error', async () => {
    const page = await listAuditLog(tenant.workspaceId, {
      limit: 10,
      from: '2026-02-01T00:00:00.000Z',
      to: '2026-01-01T00:00:00.000Z',
    });
    expect(page).toEqual({ data: [], pagination: { limit: 10, nextCursor: null, hasMore: false } });
  });
});
