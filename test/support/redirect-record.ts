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
