import type { LinkRecord } from './link-record';
import { shortLinkOf } from './link-record';
import { nullableUriOf, uriOf } from '@shared/util/http-url';

/**
 * The Link resource. The password hash never leaves; only `passwordProtected`. URLs are answered
 * as URIs (`uriOf`), however they were stored.
 */
export const toLinkResource = (link: LinkRecord) => ({
  id: link.id,
  title: link.title,
  url: uriOf(link.url),
  desktopOverrideUrl: nullableUriOf(link.desktopOverrideUrl),
  androidOverrideUrl: nullableUriOf(link.androidOverrideUrl),
  iosOverrideUrl: nullableUriOf(link.iosOverrideUrl),
  domain: link.domain,
  key: link.key,
  shortLink: shortLinkOf(link.domain, link.key),
  expiresAt: link.expiresAt,
  expiredUrl: nullableUriOf(link.expiredUrl),
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
  geo: link.geo ? Object.fromEntries(Object.entries(link.geo).map(([country, url]) => [country, uriOf(url)])) : null,
  rules: link.rules ? link.rules.map((rule) => ({ ...rule, url: uriOf(rule.url) })) : null,
  variants: link.variants ? link.variants.map((variant) => ({ ...variant, url: uriOf(variant.url) })) : null,
  trackConversions: link.trackConversions ?? false,
});

export type LinkResource = ReturnType<typeof toLinkResource>;
