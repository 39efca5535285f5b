import { describe, expect, it } from 'vitest';
import { applyLinkPatch, hasPatchFields } from '@shared/links/patch-link';
import { linkMatchesSearch } from '@shared/links/list-links';
import { linkListEntryItems, linkListPartition, staleTagEntryKeys } from '@shared/links/link-index';
import type { LinkRecord } from '@shared/links/link-record';
import { compareSortKeys } from '@shared/pagination/page';
import { listDomainsQuerySchema, listLinksQuerySchema } from '@shared/schemas/list-schemas';
import { patchLinkBodySchema } from '@shared/schemas/link-schemas';

const link: LinkRecord = {
  id: 'lnk_1',
  workspaceId: 'ws_1',
  linkType: 'SHORTLINK',
  domainId: 'dom_1',
  domain: 'go.example.com',
  key: 'abc',
  url: 'https://example.com',
  title: 'https://go.example.com/abc',
  desktopOverrideUrl: 'https://d.example.com',
  androidOverrideUrl: null,
  iosOverrideUrl: null,
  expiresAt: null,
  expiredUrl: null,
  passwordHash: 'scrypt$x',
  comments: 'note',
  objects: { a: 1 },
  tags: [{ id: 'tag_1', name: 'Promo', color: 'red' }],
  tracking: null,
  socialPreview: null,
  deepLinkAppId: null,
  archived: false,
  clicks: 7,
  botClicks: 2,
  lastClicked: null,
  lastBotClickedAt: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-02T00:00:00.000Z',
};
const parse = (body: unknown) => patchLinkBodySchema.parse(body);

describe('applyLinkPatch', () => {
  it('null clears, absent leaves; counters and createdAt never change; updatedAt moves forward', () => {
    const next = applyLinkPatch(
      link,
      parse({ comments: null, objects: {}, platformOverrides: { desktop: null } }),
      {},
      Date.parse('2020-01-01'),
    );
    expect(next).toMatchObject({
      comments: null,
      objects: null,
      desktopOverrideUrl: null,
      passwordHash: 'scrypt$x',
      tags: link.tags,
      clicks: 7,
      botClicks: 2,
    });
    expect(next.createdAt).toBe(link.createdAt);
    expect(next.updatedAt > link.updatedAt).toBe(true);
  });

  it('a generated title follows a moved slug; a null title resets; a custom title stays', () => {
    expect(applyLinkPatch(link, parse({ key: 'new' }), {}).title).toBe('https://go.example.com/new');
    expect(applyLinkPatch({ ...link, title: 'Mine' }, parse({ key: 'new' }), {}).title).toBe('Mine');
    expect(
      applyLinkPatch({ ...link, title: 'Mine' }, parse({ title: null }), {
        domain: { id: 'd2', domain: 'b.example.com' },
      }).title,
    ).toBe('https://b.example.com/abc');
  });

  it('archived false restores; unknown fields alone are not a change', () => {
    expect(applyLinkPatch({ ...link, archived: true }, parse({ archived: false }), {}).archived).toBe(false);
    expect(hasPatchFields(parse({ whatever: 1 }))).toBe(false);
    expect(hasPatchFields(parse({ comments: null }))).toBe(true);
  });

  it('moves list entries: stale tag entries are deleted, the archived flag changes every partition', () => {
    const next = applyLinkPatch(link, parse({ archived: true }), {
      tags: [{ id: 'tag_2', name: 'New', color: 'blue' }],
    });
    expect(staleTagEntryKeys(link, next)).toEqual([{ pk: 'LINK#lnk_1', sk: 'ENTRY#TAG#tag_1' }]);
    expect(linkListEntryItems(next).map((e) => e.gsi1pk)).toEqual([
      'ws_1#SHORTLINK#1#DOMAIN#go.example.com',
      'ws_1#SHORTLINK#1#TAG#new',
    ]);
    expect(linkListPartition('ws_1', 'DEEPLINK', false, { kind: 'tag', tagName: 'PrOmO' })).toBe(
      'ws_1#DEEPLINK#0#TAG#promo',
    );
  });
});

describe('list query schemas', () => {
  it('applies defaults and caps the limit', () => {
    expect(listLinksQuerySchema.parse({})).toEqual({ limit: 25, archived: false, sort: 'created_at_desc' });
    expect(listLinksQuerySchema.parse({ limit: '1000', archived: 'true', search: '' })).toMatchObject({
      limit: 100,
      archived: true,
      search: undefined,
    });
  });

  it('refuses bad limits, archived values and sorts, naming the field', () => {
    for (const [query, path] of [
      [{ limit: '0' }, 'limit'],
      [{ limit: '1.5' }, 'limit'],
      [{ archived: 'no' }, 'archived'],
      [{ sort: 'clicks' }, 'sort'],
      [{ tag: 'x'.repeat(51) }, 'tag'],
    ] as const) {
      const result = listLinksQuerySchema.safeParse(query);
      expect(result.success).toBe(false);
      expect(result.error?.issues[0]?.path).toEqual([path]);
    }
    expect(listDomainsQuerySchema.safeParse({ sort: 'clicks_desc' }).success).toBe(false);
  });
});

describe('search and ordering helpers', () => {
  it('matches case-insensitive substrings of every searchable field', () => {
    for (const q of ['GO.EXAMPLE', 'https://go.example.com/abc', 'ABC', 'promo', 'example.com'])
      expect(linkMatchesSearch(link, q)).toBe(true);
    expect(linkMatchesSearch(link, 'note')).toBe(false);
  });
  it('orders sort keys in both directions', () => {
    expect(compareSortKeys('a', 'b', false)).toBe(-1);
    expect(compareSortKeys('a', 'b', true)).toBe(1);
    expect(compareSortKeys('a', 'a', true)).toBe(0);
  });
});
