import type { RedirectRule, Variant } from './link-rules';
import type { LinkRecord } from './link-record';

/**
 * What the edge needs to answer a click, denormalized onto the slug item (pk SLUG#domain#key)
 * and written in the same transaction as every change to the link: one GetItem per redirect.
 */
export const toRedirectRecord = (link: LinkRecord) => ({
  workspaceId: link.workspaceId,
  linkId: link.id,
  linkType: link.linkType,
  deepLinkAppId: link.deepLinkAppId,
  domainId: link.domainId,
  url: link.url,
  desktopOverrideUrl: link.desktopOverrideUrl,
  androidOverrideUrl: link.androidOverrideUrl,
  iosOverrideUrl: link.iosOverrideUrl,
  geo: link.geo ?? null,
  rules: link.rules ?? null,
  variants: link.variants ?? null,
  expiresAt: link.expiresAt,
  expiredUrl: link.expiredUrl,
  passwordHash: link.passwordHash,
  archived: link.archived,
  tracking: link.tracking,
  socialPreview: link.socialPreview,
  title: link.title,
  trackConversions: link.trackConversions ?? false,
});

/** Slug items written before geo targeting (or rules, variants, conversion tracking) existed have no `geo` (`rules`, `variants`, `trackConversions`). */
export type RedirectRecord = Omit<
  ReturnType<typeof toRedirectRecord>,
  'geo' | 'rules' | 'variants' | 'trackConversions'
> & {
  geo?: Record<string, string> | null;
  rules?: RedirectRule[] | null;
  variants?: Variant[] | null;
  trackConversions?: boolean;
};
