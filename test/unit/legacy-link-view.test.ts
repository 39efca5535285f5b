import { describe, expect, it } from 'vitest';
import type { LinkRecord } from '@shared/links/link-record';
import { legacyLinkTagId, toLegacyDeepLink, toLegacyShortLink } from '@shared/legacy/legacy-link-view';

const record = (over: Partial<LinkRecord> = {}): LinkRecord => ({
  id: 'lnk_1',
  workspaceId: 'ws_1',
  linkType: 'SHORTLINK',
  domainId: 'dom_1',
  domain: 'go.example.com',
  key: 'abc123',
  url: 'https://example.com',
  title: 'T',
  desktopOverrideUrl: null,
  androidOverrideUrl: null,
  iosOverrideUrl: null,
  expiresAt: null,
  expiredUrl: null,
  passwordHash: 'scrypt$secret',
  comments: 'note',
  objects: { a: 1 },
  tags: [
    { id: 'tag_1', name: 'News', color: 'red' },
    { id: 'tag_2', name: 'Sale', color: 'blue' },
  ],
  tracking: null,
  socialPreview: null,
  deepLinkAppId: null,
  archived: false,
  clicks: 3,
  botClicks: 1,
  lastClicked: null,
  lastBotClickedAt: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...over,
});

describe('legacy link view', () => {
  it('maps a short link to exactly the legacy fields plus projectId', () => {
    expect(toLegacyShortLink(record())).toEqual({
      id: 'lnk_1',
      title: 'T',
      url: 'https://example.com',
      domain: 'go.example.com',
      key: 'abc123',
      shortLink: 'https://go.example.com/abc123',
      linkType: 'SHORTLINK',
      comments: 'note',
      linkObject: { object: { a: 1 } },
      tags: [
        { id: legacyLinkTagId('lnk_1', 'tag_1'), tag: { id: 'tag_1', name: 'News', color: 'red' } },
        { id: legacyLinkTagId('lnk_1', 'tag_2'), tag: { id: 'tag_2', name: 'Sale', color: 'blue' } },
      ],
      projectId: 'ws_1',
    });
  });

  it('maps a deep link with deepLinkAppId and no projectId; no objects is linkObject {object:null}', () => {
    const view = toLegacyDeepLink(
      record({ linkType: 'DEEPLINK', deepLinkAppId: 'app_1', objects: null, comments: null, tags: [] }),
    );
    expect(view).toMatchObject({
      linkType: 'DEEPLINK',
      deepLinkAppId: 'app_1',
      linkObject: { object: null },
      comments: null,
      tags: [],
    });
    expect(view).not.toHaveProperty('projectId');
  });

  it('never exposes the password, counters or v1-only fields', () => {
    const text = JSON.stringify(toLegacyShortLink(record()));
    for (const hidden of ['scrypt', 'password', 'clicks', 'archived', 'tracking', 'workspaceId', 'objects'])
      expect(text).not.toContain(hidden);
  });

  it('gives each link-tag pair a stable id distinct from other pairs', () => {
    expect(legacyLinkTagId('lnk_1', 'tag_1')).toBe(legacyLinkTagId('lnk_1', 'tag_1'));
    expect(legacyLinkTagId('lnk_1', 'tag_1')).not.toBe(legacyLinkTagId('lnk_2', 'tag_1'));
    expect(legacyLinkTagId('lnk_1', 'tag_1')).not.toBe(legacyLinkTagId('lnk_1', 'tag_2'));
    expect(legacyLinkTagId('lnk_1', 'tag_1')).toMatch(/^ltg_[0-9a-f]{24}$/);
  });
});
