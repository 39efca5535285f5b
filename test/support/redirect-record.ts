import type { LinkRecord } from '@shared/links/link-record';
import type { RedirectRecord } from '@shared/links/redirect-record';

/** A plain short link's redirect record (no overrides, expiry, password or tracking), with `over` on top. */
export const redirectRecord = (over: Partial<RedirectRecord> = {}): RedirectRecord => ({
  workspaceId: 'ws_1',
  linkId: 'lnk_1',
  linkType: 'SHORTLINK',
  deepLinkAppId: null,
  domainId: 'dom_1',
  url: 'https://example.com/a',
  desktopOverrideUrl: null,
  androidOverrideUrl: null,
  iosOverrideUrl: null,
  expiresAt: null,
  expiredUrl: null,
  passwordHash: null,
  archived: false,
  tracking: null,
  socialPreview: null,
  title: 'A',
  ...over,
});

/**
 * A plain short link's stored record (`lnk` id and key `id`, on go.example.com, to
 * https://example.com/<id>, created 2026-01-01, last changed 2026-02-01), with `over` on top
 * (live counters such as `lh#<hour>` included).
 */
export const plainLinkRecord = (id: string, over: Record<string, unknown> = {}): LinkRecord =>
  ({
    id,
    workspaceId: 'ws_1',
    linkType: 'SHORTLINK',
    deepLinkAppId: null,
    domainId: 'dom_1',
    domain: 'go.example.com',
    key: id,
    url: `https://example.com/${id}`,
    desktopOverrideUrl: null,
    androidOverrideUrl: null,
    iosOverrideUrl: null,
    expiresAt: null,
    expiredUrl: null,
    passwordHash: null,
    archived: false,
    tracking: null,
    socialPreview: null,
    title: id,
    clicks: 0,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-02-01T00:00:00.000Z',
    ...over,
  }) as unknown as LinkRecord;
