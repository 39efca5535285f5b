import type { LinkRecord } from './link-record';
import { shortLinkOf } from './link-record';

/** The Link resource. The password hash never leaves; only `passwordProtected`. */
export const toLinkResource = (link: LinkRecord) => ({
  id: link.id,
  title: link.title,
  url: link.url,
  desktopOverrideUrl: link.desktopOverrideUrl,
  androidOverrideUrl: link.androidOverrideUrl,
  iosOverrideUrl: link.iosOverrideUrl,
  domain: link.domain,
  key: link.key,
  shortLink: shortLinkOf(link.domain, link.key),
  expiresAt: link.expiresAt,
  expiredUrl: link.expiredUrl,
  passwordProtected: link.passwordHash !== null,
  clicks: link.clicks,
  botClicks: link.botClicks,
  lastClicked: link.lastClicked,
  lastBotClickedAt: link.lastBotClickedAt,
  comments: link.comments,
  createdAt: link.createdAt,
  updatedAt: link.updatedAt,
  linkType: link.linkType,
  archived: link.archived,
  deepLinkAppId: link.deepLinkAppId,
  objects: link.objects,
  tags: link.tags,
  tracking: link.tracking,
  socialPreview: link.socialPreview,
  geo: link.geo ?? null,
});

export type LinkResource = ReturnType<typeof toLinkResource>;
