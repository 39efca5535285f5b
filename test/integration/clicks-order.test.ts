import { beforeAll, describe, expect, it, vi } from 'vitest';
import { bootstrapTenant, type BootstrapResult } from '@shared/admin/bootstrap';
import { countClicks } from '@test/support/count-clicks';
import { insertLink } from '@shared/links/create-link';
import { clicksBucket, clicksBucketStart } from '@shared/links/link-index';
import type { LinkRecord } from '@shared/links/link-record';
import { linkRepository } from '@shared/links/link-repository';
import { listLinks } from '@shared/links/list-links';
import { archiveLink } from '@shared/links/patch-link';
import { listLinksQuerySchema } from '@shared/schemas/list-schemas';
import { domainRepository } from '@shared/tenancy/domain-repository';
import { TEST_ORIGIN } from '@test/support/test-origin';

/** Click counts: many links never clicked, ties, exact buckets (< 16) and coarse ones (16+). */
const COUNTS = [
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 2, 3, 3, 5, 8, 13, 15,
  16, 17, 17, 18, 21, 34, 35, 36,
];

let tenant: BootstrapResult;
const links: LinkRecord[] = [];
beforeAll(async () => {
  tenant = await bootstrapTenant({ baseUrl: 'http://unused', edgeUrl: 'http://unused' });
  const domain = (await domainRepository.findById(tenant.workspaceId, tenant.domainId))!;
  for (const [i, clicks] of COUNTS.entries()) {
    const link = await insertLink(
      {
        workspaceId: tenant.workspaceId,
        linkType: 'SHORTLINK',
        domain,
        deepLinkAppId: null,
        url: `https://e.com/${i}`,
      },
      { key: `clicks-${i}`, tags: i % 3 === 0 ? ['third'] : [] },
      TEST_ORIGIN,
    );
    // One consumer batch per link: a batch that crosses several clicks buckets moves the order once.
    await countClicks(link.id, { humans: clicks });
    await countClicks(link.id, { bots: 1 }); // bot clicks never move the order
    links.push((await linkRepository.findById(link.id, true))!);
  }
}, 120_000);

const query = (params: Record<string, string>) => listLinksQuerySchema.parse(params);
const walkAll = async (params: Record<string, string>) => {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await listLinks(tenant.workspaceId, 'SHORTLINK', query({ ...params, ...(cursor ? { cursor } : {}) }));
    ids.push(...page.data.map((l) => l.id));
    cursor = page.pagination.nextCursor ?? undefined;
  } while (cursor);
  return ids;
};
const expected = (subset: LinkRecord[], descending: boolean) =>
  [...subset]
    .sort((a, b) =>
      a.clicks !== b.clicks
        ? descending
          ? b.clicks - a.clicks
          : a.clicks - b.clicks
        : `${a.createdAt}#${a.id}` < `${b.createdAt}#${b.id}` !== descending
          ? -1
          : 1,
    )
    .map((l) => l.id);

describe('clicks order from the bucketed clicks index', () => {
  it('buckets are exact below 16 and contiguous above', () => {
    for (let n = 0; n < 16; n++) expect(clicksBucket(n)).toBe(n);
    for (let b = 16; b < 60; b++) {
      const start = clicksBucketStart(b);
      expect(clicksBucket(start)).toBe(b);
      expect(clicksBucket(start - 1)).toBe(b - 1);
    }
  });

  it('clicks_desc and clicks_asc pages walk every link once in exact order (clicks, then creation)', async () => {
    expect(links.map((l) => l.clicks)).toEqual(COUNTS);
    expect(await walkAll({ sort: 'clicks_desc', limit: '7' })).toEqual(expected(links, true));
    expect(await walkAll({ sort: 'clicks_asc', limit: '6' })).toEqual(expected(links, false));
  });

  it('a page reads a bounded number of links, not the workspace', async () => {
    const spy = vi.spyOn(linkRepository, 'findByIds');
    const page = await listLinks(tenant.workspaceId, 'SHORTLINK', query({ sort: 'clicks_desc', limit: '3' }));
    const read = spy.mock.calls.reduce((n, [ids]) => n + ids.length, 0);
    spy.mockRestore();
    expect(page.data.map((l) => l.clicks)).toEqual([36, 35, 34]);
    // The top coarse bucket(s) only: far fewer than the 47 links of the workspace.
    expect(read).toBeLessThanOrEqual(10);
  });

  it('filters apply on the walk (tag), and an archived link moves to the archived order', async () => {
    const tagged = links.filter((_, i) => i % 3 === 0);
    expect(await walkAll({ sort: 'clicks_desc', tag: 'third', limit: '4' })).toEqual(expected(tagged, true));
    const top = links.find((l) => l.clicks === 36)!;
    await archiveLink(tenant.workspaceId, 'SHORTLINK', top.id, TEST_ORIGIN);
    const active = await walkAll({ sort: 'clicks_desc', limit: '10' });
    expect(active).not.toContain(top.id);
    expect(active).toHaveLength(links.length - 1);
    expect(await walkAll({ sort: 'clicks_desc', archived: 'true', limit: '10' })).toEqual([top.id]);
  });
});

describe('clicks index backfill', () => {
  it('indexes a link written without clicks-index keys, once', async () => {
    const { backfillClicksIndex } = await import('@shared/links/clicks-index-backfill');
    const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
    const { getDocumentClient, tableName } = await import('@shared/db/dynamo-client');
    const old = links.find((l) => l.clicks === 21)!;
    await getDocumentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { pk: `LINK#${old.id}`, sk: 'LINK' },
        UpdateExpression: 'REMOVE gsi3pk, gsi3sk',
      }),
    );
    expect(await walkAll({ sort: 'clicks_desc', limit: '50' })).not.toContain(old.id);
    expect(await backfillClicksIndex()).toBe(1);
    expect(await backfillClicksIndex()).toBe(0);
    expect(await walkAll({ sort: 'clicks_desc', limit: '50' })).toContain(old.id);
  });
});
