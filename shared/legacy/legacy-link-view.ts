import type { LinkRecord } from '@shared/links/link-record';
import { shortLinkOf } from '@shared/links/link-record';
import { sha256Hex } from '@shared/util/hash';
import { uriOf } from '@shared/util/http-url';

/**
 * The id of a link-tag pairing in the legacy `tags` array. The store keeps tags on the link, so
 * there is no join row: the id is derived from the link and tag ids (stable, opaque, unique).
 */
export const legacyLinkTagId = (linkId: string, tagId: string) => `ltg_${sha256Hex(`${linkId}#${tagId}`).slice(0, 24)}`;

/**
 * The legacy `data` shape. `linkObject` is always an object; its `object` is the
 * link's objects, or null when it has none (an empty `{}` is stored as null, as in v1).
 */
const toLegacyLinkBase = (link: LinkRecord) => ({
  id: link.id,
  title: link.title,
  url: uriOf(link.url),
  domain: link.domain,
  key: link.key,
  shortLink: shortLinkOf(link.domain, link.key),
  linkType: link.linkType,
  comments: link.comments,
  linkObject: { object: link.objects },
  tags: link.tags.map((tag) => ({
    id: legacyLinkTagId(link.id, tag.id),
    tag: { id: tag.id, name: tag.name, color: tag.color },
  })),
});

/** Link create and GET link: plus `projectId` (the workspace id). */
export const toLegacyShortLink = (link: LinkRecord) => ({ ...toLegacyLinkBase(link), projectId: link.workspaceId });

/** Deeplink create and retrieve: plus `deepLinkAppId`. */
export const toLegacyDeepLink = (link: LinkRecord) => ({
  ...toLegacyLinkBase(link),
  deepLinkAppId: link.deepLinkAppId,
});

export type LegacyShortLink = ReturnType<typeof toLegacyShortLink>;
export type LegacyDeepLink = ReturnType<typeof toLegacyDeepLink>;
