import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapTenant, type BootstrapResult } from '@shared/admin/bootstrap';
import { auditItem } from '@shared/audit/audit-repository';
import { listAuditLog } from '@shared/audit/list-audit-log';
import { AUDIT_RETENTION_ENV, resetAuditRetention } from '@shared/config/audit-retention';
import { insertLink } from '@shared/links/create-link';
import { linkCreatedEntry } from '@shared/links/link-audit';
import type { LinkRecord } from '@shared/links/link-record';
import { domainRepository } from '@shared/tenancy/domain-repository';
import { TEST_ORIGIN } from '@test/support/test-origin';

let tenant: BootstrapResult;
beforeAll(async () => {
  tenant = await bootstrapTenant({ baseUrl: 'http://unused', edgeUrl: 'http://unused' });
});
const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
  resetAuditRetention();
});

const DAY = 24 * 60 * 60 * 1000;

const newLink = async (): Promise<LinkRecord> => {
  const domain = (await domainRepository.findById(tenant.workspaceId, tenant.domainId))!;
  return insertLink(
    { workspaceId: tenant.workspaceId, linkType: 'SHORTLINK', domain, deepLinkAppId: null, url: 'https://e.com' },
    {},
    TEST_ORIGIN,
  );
};

/** The link's entries read as of `now`. */
const readAt = (link: LinkRecord, now: number) =>
  listAuditLog(tenant.workspaceId, { limit: 10, resourceId: link.id }, now);

describe('audit log retention', () => {
  it('by default an entry expires by TTL after 400 days, and reads ignore it from then on', async () => {
    process.env = { ...saved, [AUDIT_RETENTION_ENV]: undefined };
    resetAuditRetention();
    const link = await newLink();
    const entry = linkCreatedEntry(link, TEST_ORIGIN);
    const created = Date.parse(link.createdAt);
    expect((auditItem(entry).ttl as number) * 1000).toBe(Math.floor((created + 400 * DAY) / 1000) * 1000);
    expect((await readAt(link, created + 399 * DAY)).data.map((e) => e.action)).toEqual(['link.created']);
    expect((await readAt(link, created + 401 * DAY)).data).toEqual([]);
    // The same bound with a `from` older than the retention.
    const old = new Date(created - DAY).toISOString();
    const withFrom = await listAuditLog(tenant.workspaceId, { limit: 10, from: old }, created + 401 * DAY);
    expect(withFrom.data).toEqual([]);
  });

  it('AUDIT_RETENTION_DAYS sets both the TTL written and the bound of reads', async () => {
    process.env[AUDIT_RETENTION_ENV] = '30';
    resetAuditRetention();
    const link = await newLink();
    const created = Date.parse(link.createdAt);
    expect((auditItem(linkCreatedEntry(link, TEST_ORIGIN)).ttl as number) * 1000).toBe(
      Math.floor((created + 30 * DAY) / 1000) * 1000,
    );
    expect((await readAt(link, created + 29 * DAY)).data.map((e) => e.action)).toEqual(['link.created']);
    expect((await readAt(link, created + 31 * DAY)).data).toEqual([]);
    // A longer retention than the default keeps answering past 400 days.
    process.env[AUDIT_RETENTION_ENV] = '800';
    resetAuditRetention();
    expect((await readAt(link, created + 401 * DAY)).data.map((e) => e.action)).toEqual(['link.created']);
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
