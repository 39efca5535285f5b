import { AppError, notFound } from '@shared/errors/app-error';
import { shortLinkOf, type LinkRecord, type LinkType } from '@shared/links/link-record';
import { linkRepository } from '@shared/links/link-repository';
import type { ClientLinkReference } from './client-schemas';
import { canonicalLinkDomain } from '@shared/links/link-domain';
import { slugOfShortLink } from '@shared/links/short-link';
import { uriOf } from '@shared/util/http-url';

/** ClientLinkPayload: the link as the client API returns it. */
export interface ClientLinkPayload {
  linkId: string;
  linkType: LinkType;
  deepLinkAppId: string | null;
  shortLink: string;
  domain: string;
  key: string;
  /** The destination; for a password-protected link its `shortLink` (whose page asks for the password). */
  url: string;
  /** Extension: the link asks for a password; `url` then holds no destination. */
  passwordProtected: boolean;
}

/** What a publishable key may learn of a link: never the destination behind a password. */
export const toClientLinkPayload = (
  link: Pick<LinkRecord, 'linkType' | 'deepLinkAppId' | 'domain' | 'key' | 'url' | 'passwordHash'> & { linkId: string },
): ClientLinkPayload => {
  const shortLink = shortLinkOf(link.domain, link.key);
  const passwordProtected = Boolean(link.passwordHash);
  return {
    linkId: link.linkId,
    linkType: link.linkType,
    deepLinkAppId: link.deepLinkAppId,
    shortLink,
    domain: link.domain,
    key: link.key,
    url: passwordProtected ? shortLink : uriOf(link.url),
    passwordProtected,
  };
};

/** The payload of a stored link record. */
export const clientLinkPayloadOf = (link: LinkRecord): ClientLinkPayload =>
  toClientLinkPayload({ ...link, linkId: link.id });

export const hasLinkReference = (ref: ClientLinkReference): boolean =>
  Boolean(ref.linkId ?? ref.shortLink ?? ref.url ?? ref.domain ?? ref.key ?? ref.slug);

const missingReference = () =>
  new AppError('invalid_request', 'The body must name a link', [
    { path: '', message: 'give linkId, or shortLink (or url), or domain and key (or slug)' },
  ]);

/** domain + key of a short-link URL (`https://{domain}/{key}`), or 400 naming `shortLink`. */
const parseShortLinkOrThrow = (shortLink: string): { domain: string; key: string } => {
  const slug = slugOfShortLink(shortLink);
  if (!slug)
    throw new AppError('invalid_request', 'The short link names no link', [
      { path: 'shortLink', message: 'must be https://{domain}/{key}' },
    ]);
  return slug;
};

/**
 * Resolves a ClientLinkReference: `linkId`; else `shortLink` (or its
 * alias `url`) parsed into domain + key; else `domain` + `key` (or alias `slug`). Nothing usable
 * is 400; a link of another workspace is 404, like an unknown one.
 */
export const resolveClientLinkOrThrow = async (workspaceId: string, ref: ClientLinkReference): Promise<LinkRecord> => {
  // Aliases must agree when both are sent, as on the v1 link routes (url/destinationUrl, key/slug).
  const conflicts = [
    ...(ref.shortLink !== undefined && ref.url !== undefined && ref.shortLink !== ref.url
      ? [{ path: 'url', message: 'differs from shortLink' }]
      : []),
    ...(ref.key !== undefined && ref.slug !== undefined && ref.key !== ref.slug
      ? [{ path: 'slug', message: 'differs from key' }]
      : []),
  ];
  if (conflicts.length) throw new AppError('invalid_request', 'The link reference is invalid', conflicts);
  let link: LinkRecord | undefined;
  const shortLink = ref.shortLink ?? ref.url;
  if (ref.linkId !== undefined) link = await linkRepository.findById(ref.linkId);
  else if (shortLink !== undefined) {
    const { domain, key } = parseShortLinkOrThrow(shortLink);
    link = await linkRepository.findBySlug(await canonicalLinkDomain(domain), key);
  } else if (ref.domain !== undefined || ref.key !== undefined || ref.slug !== undefined) {
    const key = ref.key ?? ref.slug;
    if (ref.domain === undefined || key === undefined) {
      throw new AppError('invalid_request', 'domain and key go together', [
        {
          path: ref.domain === undefined ? 'domain' : 'key',
          message: 'is required with ' + (ref.domain === undefined ? 'key' : 'domain'),
        },
      ]);
    }
    link = await linkRepository.findBySlug(await canonicalLinkDomain(ref.domain), key);
  } else throw missingReference();
  if (!link || link.workspaceId !== workspaceId) throw notFound('Link');
  return link;
};

/** Eligible for attribution: not archived, not expired, not a bot. */
export const isEligible = (link: LinkRecord, isBot: boolean, at: Date): boolean =>
  !link.archived && !isBot && (link.expiresAt === null || Date.parse(link.expiresAt) > at.getTime());
