import { conversionSettingsRepository } from '@shared/conversions/conversion-settings';
import type { ChangeOrigin } from '@shared/audit/audit-entry';
import { AppError } from '@shared/errors/app-error';
import type { CreateLinkBody } from '@shared/schemas/link-schemas';
import { tagRepository } from '@shared/tags/tag-repository';
import { domainRepository } from '@shared/tenancy/domain-repository';
import type { DomainRecord } from '@shared/tenancy/tenancy-types';
import { prefixedId, randomBase62 } from '@shared/util/ids';
import { hashPassword } from '@shared/util/password';
import {
  destinationOf,
  geoOf,
  keyOf,
  normalizeObjects,
  overridesOf,
  rulesOf,
  variantsOf,
  type EditableLinkInput,
} from './link-input';
import type { LinkRecord, LinkType, TagRef } from './link-record';
import { shortLinkOf } from './link-record';
import { linkCreatedEntry } from './link-audit';
import { linkRepository, SlugTakenError } from './link-repository';
import { assertLinkFits } from './link-size';
import { toLinkResource, type LinkResource } from './link-view';
import { required } from '@shared/util/required';
import { retry } from '@shared/util/retry';

export const GENERATED_KEY_LENGTH = 7;
export const GENERATED_KEY_ATTEMPTS = 5;

/** The workspace's usable short-link domain with this name, or 400 naming `domain`. */
export const getShortLinkDomainOrThrow = async (workspaceId: string, hostname: string): Promise<DomainRecord> => {
  const domain = await domainRepository.findByHostname(workspaceId, hostname);
  if (!domain || domain.archived || domain.usage !== 'SHORTLINK') {
    throw new AppError('invalid_request', 'The domain is not a short-link domain of this workspace', [
      { path: 'domain', message: 'is not a short-link domain of this workspace' },
    ]);
  }
  if (!domain.verified) {
    throw new AppError('invalid_request', 'The domain is not verified yet', [
      { path: 'domain', message: 'is not verified' },
    ]);
  }
  return domain;
};

export interface NewLinkPlacement {
  workspaceId: string;
  linkType: LinkType;
  domain: DomainRecord;
  deepLinkAppId: string | null;
  url: string;
}

/** What a new link needs resolved outside the body (tags created, password hashed). */
export interface ResolvedLinkInput {
  tags: TagRef[];
  passwordHash: string | null;
}

/** The stored record of a new link with this key (counters at zero, title defaulting to the short link). */
export const newLinkRecord = (
  placement: NewLinkPlacement,
  body: EditableLinkInput,
  resolved: ResolvedLinkInput,
  key: string,
  now: string,
  /** An imported link keeps its original creation time. */
  createdAt = now,
): LinkRecord => {
  const overrides = overridesOf(body);
  return {
    id: prefixedId('lnk'),
    workspaceId: placement.workspaceId,
    linkType: placement.linkType,
    domainId: placement.domain.id,
    domain: placement.domain.domain,
    key,
    url: placement.url,
    title: body.title ?? shortLinkOf(placement.domain.domain, key),
    desktopOverrideUrl: overrides.desktopOverrideUrl ?? null,
    androidOverrideUrl: overrides.androidOverrideUrl ?? null,
    iosOverrideUrl: overrides.iosOverrideUrl ?? null,
    expiresAt: body.expiresAt ? new Date(body.expiresAt).toISOString() : null,
    expiredUrl: body.expiredUrl ?? null,
    passwordHash: resolved.passwordHash,
    comments: body.comments ?? null,
    objects: normalizeObjects(body.objects) ?? null,
    tags: resolved.tags,
    tracking: body.tracking ?? null,
    socialPreview: body.socialPreview ?? null,
    geo: geoOf(body.geo),
    rules: rulesOf(body.rules),
    variants: variantsOf(body.variants),
    trackConversions: body.trackConversions ?? false,
    deepLinkAppId: placement.deepLinkAppId,
    archived: false,
    clicks: 0,
    botClicks: 0,
    lastClicked: null,
    lastBotClickedAt: null,
    createdAt,
    updatedAt: now,
  };
};

/**
 * Builds and stores a new link. With a caller's key a clash is 409 `slug_taken`; a generated
 * key (`generatedKeyLength` base62 characters) is retried on clash. The `link.created` (or
 * `deep_link.created`) audit entry of `origin` is written in the link's transaction.
 */
export const insertLink = async (
  placement: NewLinkPlacement,
  body: EditableLinkInput,
  origin: ChangeOrigin,
  generatedKeyLength = GENERATED_KEY_LENGTH,
): Promise<LinkRecord> => {
  const [tags, passwordHash] = await Promise.all([
    tagRepository.ensureTags(placement.workspaceId, body.tags ?? []),
    body.password ? hashPassword(body.password) : Promise.resolve(null),
    // Tracking turned on: the workspace's click-token secret exists before the edge can need it.
    body.trackConversions === true ? conversionSettingsRepository.getOrCreate(placement.workspaceId) : undefined,
  ]);
  const now = new Date().toISOString();
  const customKey = keyOf(body);

  // A generated key that is taken is drawn again (the one retry helper, no wait: nothing to wait
  // for); a custom key that is taken is the caller's answer.
  return retry(
    async () => {
      const link = newLinkRecord(
        placement,
        body,
        { tags, passwordHash },
        customKey ?? randomBase62(generatedKeyLength),
        now,
      );
      assertLinkFits(link);
      await linkRepository.createWithSlug(link, linkCreatedEntry(link, origin));
      return link;
    },
    {
      attempts: customKey === undefined ? GENERATED_KEY_ATTEMPTS : 1,
      retryOn: (error) => error instanceof SlugTakenError,
      pause: () => Promise.resolve(),
    },
  );
};

/** POST /v1/links. */
export const createShortLink = async (
  workspaceId: string,
  body: CreateLinkBody,
  origin: ChangeOrigin,
): Promise<LinkResource> => {
  const domain = await getShortLinkDomainOrThrow(workspaceId, body.domain);
  const link = await insertLink(
    {
      workspaceId,
      linkType: 'SHORTLINK',
      domain,
      deepLinkAppId: null,
      url: required(destinationOf(body), 'the url of a link to create (the schema requires it)'),
    },
    body,
    origin,
  );
  return toLinkResource(link);
};
