import type { ChangeOrigin } from '@shared/audit/audit-entry';
import { insertDeepLink } from '@shared/links/create-deep-link';
import { insertLink } from '@shared/links/create-link';
import type { LinkRecord } from '@shared/links/link-record';
import { linkRepository, SlugTakenError } from '@shared/links/link-repository';
import type { LegacyDeepLinkForm, LegacyLinkForm } from '@shared/schemas/legacy-schemas';
import { domainRepository } from '@shared/tenancy/domain-repository';
import type { DomainRecord } from '@shared/tenancy/tenancy-types';
import { legacyErrors } from './legacy-error';
import { toLegacyDeepLink, toLegacyShortLink, type LegacyDeepLink, type LegacyShortLink } from './legacy-link-view';
import { canonicalLinkDomain } from '@shared/links/link-domain';
import { isHttpUrl, slugOfShortLink } from '@shared/links/short-link';

/** Legacy creates generate 6-character slugs. */
export const LEGACY_GENERATED_KEY_LENGTH = 6;

/**
 * The legacy form has no domain field: links go on the workspace's primary short-link domain
 * (verified, not archived; the oldest if several are marked primary).
 */
export const getPrimaryShortLinkDomainOrThrow = async (workspaceId: string): Promise<DomainRecord> => {
  const candidates = (await domainRepository.listByWorkspace(workspaceId))
    .filter((d) => d.usage === 'SHORTLINK' && d.primary && d.verified && !d.archived)
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  if (!candidates[0]) throw legacyErrors.noPrimaryDomain();
  return candidates[0];
};

/** A taken slug is the legacy contract's 200 `{success:false, msg}`; other errors pass through. */
const slugTakenAsLegacy = async (create: () => Promise<LinkRecord>): Promise<LinkRecord> => {
  try {
    return await create();
  } catch (error) {
    if (error instanceof SlugTakenError) throw legacyErrors.slugExists();
    throw error;
  }
};

/** POST /api/mobile/link/create. */
export const createLegacyShortLink = async (
  workspaceId: string,
  form: LegacyLinkForm,
  origin: ChangeOrigin,
): Promise<LegacyShortLink> => {
  const domain = await getPrimaryShortLinkDomainOrThrow(workspaceId);
  const link = await slugTakenAsLegacy(() =>
    insertLink(
      { workspaceId, linkType: 'SHORTLINK', domain, deepLinkAppId: null, url: form.url },
      form,
      origin,
      LEGACY_GENERATED_KEY_LENGTH,
    ),
  );
  return toLegacyShortLink(link);
};

/** POST /api/mobile/deeplink: on the app's domain, to the app's default URL. */
export const createLegacyDeepLink = async (
  workspaceId: string,
  appId: string,
  form: LegacyDeepLinkForm,
  origin: ChangeOrigin,
): Promise<LegacyDeepLink> =>
  toLegacyDeepLink(
    await slugTakenAsLegacy(() => insertDeepLink(workspaceId, appId, form, origin, LEGACY_GENERATED_KEY_LENGTH)),
  );

/**
 * `shortLink` (the full short URL) as domain + key. Missing or empty: 400 `error`; not an
 * absolute http(s) URL: 400 `error`; a URL that cannot name a link (no key, nested path): none.
 */
export const parseShortLinkOrThrow = (shortLink: string | undefined): { domain: string; key: string } | undefined => {
  if (shortLink === undefined || shortLink.trim() === '') throw legacyErrors.shortLinkRequired();
  if (!isHttpUrl(shortLink)) throw legacyErrors.shortLinkInvalid();
  return slugOfShortLink(shortLink);
};

/** The link a shortLink names, when `belongs` accepts it; otherwise 404 "requested link could not be found". */
const getLinkByShortLinkOrThrow = async (shortLink: string | undefined, belongs: (link: LinkRecord) => boolean) => {
  const slug = parseShortLinkOrThrow(shortLink);
  // `open.<app domain>` (the launch view's alternate host) names the app domain's link.
  const link = slug ? await linkRepository.findBySlug(await canonicalLinkDomain(slug.domain), slug.key) : undefined;
  if (!link || !belongs(link)) throw legacyErrors.linkNotFound();
  return link;
};

/** GET /api/mobile/link: a short link of the mobile key's workspace. */
export const getLegacyShortLinkOrThrow = async (
  workspaceId: string,
  shortLink: string | undefined,
): Promise<LegacyShortLink> =>
  toLegacyShortLink(
    await getLinkByShortLinkOrThrow(shortLink, (l) => l.workspaceId === workspaceId && l.linkType === 'SHORTLINK'),
  );

/** GET /api/mobile/deeplink: a deep link of the app key's app (and workspace). */
export const getLegacyDeepLinkOrThrow = async (
  workspaceId: string,
  appId: string,
  shortLink: string | undefined,
): Promise<LegacyDeepLink> =>
  toLegacyDeepLink(
    await getLinkByShortLinkOrThrow(
      shortLink,
      (l) => l.workspaceId === workspaceId && l.linkType === 'DEEPLINK' && l.deepLinkAppId === appId,
    ),
  );
