import { conversionSettingsRepository } from '@shared/conversions/conversion-settings';
import type { ChangeOrigin } from '@shared/audit/audit-entry';
import { conflictBackoffMs } from '@shared/db/conflict-retry';
import { AppError } from '@shared/errors/app-error';
import type { PatchLinkBody } from '@shared/schemas/link-schemas';
import { tagRepository } from '@shared/tags/tag-repository';
import { hashPassword } from '@shared/util/password';
import { retry } from '@shared/util/retry';
import { setTimeout as delay } from 'node:timers/promises';
import { getShortLinkDomainOrThrow } from './create-link';
import { destinationOf, geoOf, keyOf, normalizeObjects, overridesOf, rulesOf, variantsOf } from './link-input';
import { shortLinkOf, type LinkRecord, type LinkType, type TagRef } from './link-record';
import { linkChangedEntry } from './link-audit';
import { LinkChangedError, linkRepository } from './link-repository';
import { assertLinkFits } from './link-size';
import { toLinkResource, type LinkResource } from './link-view';

/** What a patch needs resolved outside the link itself (done once, before the write loop). */
export interface ResolvedPatch {
  domain?: { id: string; domain: string };
  tags?: TagRef[];
  passwordHash?: string | null;
}

/** The fields of LinkPatchRequest the service acts on; anything else in a body is ignored. */
const PATCH_FIELDS = [
  'url',
  'destinationUrl',
  'domain',
  'key',
  'slug',
  'title',
  'objects',
  'tags',
  'comments',
  'password',
  'expiresAt',
  'expiredUrl',
  'tracking',
  'desktopOverrideUrl',
  'androidOverrideUrl',
  'iosOverrideUrl',
  'platformOverrides',
  'socialPreview',
  'geo',
  'rules',
  'variants',
  'trackConversions',
  'archived',
] as const;

export const hasPatchFields = (body: PatchLinkBody) => PATCH_FIELDS.some((f) => body[f] !== undefined);

const keep = <T>(value: T | undefined, current: T): T => (value === undefined ? current : value);

/** A timestamp strictly after `previous`, so the optimistic check on updatedAt always sees a change. */
const nextTimestamp = (previous: string, now = Date.now()) =>
  new Date(Math.max(now, Date.parse(previous) + 1)).toISOString();

/**
 * PATCH semantics: `null` clears, an absent field is untouched, `tags` replaces the set,
 * `domain`/`key` move the slug, `archived` archives or restores; `createdAt` and the counters
 * never change; `updatedAt` moves. A title that was the generated short link follows a moved
 * slug; a null title goes back to the (new) short link.
 */
export const applyLinkPatch = (
  link: LinkRecord,
  body: PatchLinkBody,
  resolved: ResolvedPatch,
  now = Date.now(),
): LinkRecord => {
  const domain = resolved.domain ?? { id: link.domainId, domain: link.domain };
  const key = keyOf(body) ?? link.key;
  const oldShortLink = shortLinkOf(link.domain, link.key);
  const newShortLink = shortLinkOf(domain.domain, key);
  const title =
    body.title === null
      ? newShortLink
      : body.title !== undefined
        ? body.title
        : link.title === oldShortLink
          ? newShortLink
          : link.title;
  const overrides = overridesOf(body);
  const objects = normalizeObjects(body.objects);
  return {
    ...link,
    domainId: domain.id,
    domain: domain.domain,
    key,
    url: destinationOf(body) ?? link.url,
    title,
    desktopOverrideUrl: keep(overrides.desktopOverrideUrl, link.desktopOverrideUrl),
    androidOverrideUrl: keep(overrides.androidOverrideUrl, link.androidOverrideUrl),
    iosOverrideUrl: keep(overrides.iosOverrideUrl, link.iosOverrideUrl),
    expiresAt:
      body.expiresAt === undefined
        ? link.expiresAt
        : body.expiresAt === null
          ? null
          : new Date(body.expiresAt).toISOString(),
    expiredUrl: keep(body.expiredUrl, link.expiredUrl),
    passwordHash: keep(resolved.passwordHash, link.passwordHash),
    comments: keep(body.comments, link.comments),
    objects: keep(objects, link.objects),
    tags: resolved.tags ?? link.tags,
    tracking: keep(body.tracking, link.tracking),
    socialPreview: keep(body.socialPreview, link.socialPreview),
    geo: geoOf(keep(body.geo, link.geo ?? null)),
    rules: body.rules === undefined ? (link.rules ?? null) : rulesOf(body.rules),
    variants: body.variants === undefined ? (link.variants ?? null) : variantsOf(body.variants),
    trackConversions: keep(body.trackConversions, link.trackConversions ?? false),
    archived: body.archived ?? link.archived,
    updatedAt: nextTimestamp(link.updatedAt, now),
  };
};

/** A new domain for the link: a short link moves to another short-link domain; a deep link stays on its app's domain. */
const resolveDomain = async (link: LinkRecord, hostname: string | undefined) => {
  if (hostname === undefined || hostname === link.domain) return undefined;
  if (link.linkType === 'DEEPLINK') {
    throw new AppError('invalid_request', "A deep link stays on its app's domain", [
      { path: 'domain', message: "a deep link's domain is its app's domain" },
    ]);
  }
  const domain = await getShortLinkDomainOrThrow(link.workspaceId, hostname);
  return { id: domain.id, domain: domain.domain };
};

const MAX_ATTEMPTS = 10;

/**
 * Reads the link (404 for another workspace's or the other type), resolves domain, tags and
 * password once, then writes the change with an optimistic check on `updatedAt`; a concurrent
 * change (or a transaction conflict that outlasted the client's own retries) re-reads and
 * re-applies the patch after a jittered backoff. The change's audit entry (who: `origin`) is
 * written in the change's transaction.
 */
export const patchLink = async (
  workspaceId: string,
  linkType: LinkType,
  linkId: string,
  body: PatchLinkBody,
  origin: ChangeOrigin,
): Promise<LinkResource> => {
  let link = await linkRepository.getByIdOrThrow(workspaceId, linkId, linkType, true);
  if (!hasPatchFields(body)) return toLinkResource(link);
  const [domain, tags, passwordHash] = await Promise.all([
    resolveDomain(link, body.domain),
    body.tags === undefined ? undefined : tagRepository.ensureTags(workspaceId, body.tags ?? []),
    body.password === undefined ? undefined : body.password === null ? null : hashPassword(body.password),
    // Tracking turned on: the workspace's click-token secret exists before the edge can need it.
    body.trackConversions === true ? conversionSettingsRepository.getOrCreate(workspaceId) : undefined,
  ]);
  return retry(
    async () => {
      const next = applyLinkPatch(link, body, { domain, tags, passwordHash });
      assertLinkFits(next);
      await linkRepository.saveChange(link, next, linkChangedEntry(link, next, origin));
      return toLinkResource(next);
    },
    {
      attempts: MAX_ATTEMPTS,
      retryOn: (error) => error instanceof LinkChangedError,
      // Another change won (it is committed): re-read at once, with a little jitter against lockstep.
      pause: async () => {
        await delay(conflictBackoffMs(0));
        link = await linkRepository.getByIdOrThrow(workspaceId, linkId, linkType, true);
      },
    },
  );
};

/** DELETE /v1/links/{id} and /v1/deep-links/{id}: archives (slug, analytics, app config kept). Already archived: unchanged. */
export const archiveLink = async (
  workspaceId: string,
  linkType: LinkType,
  linkId: string,
  origin: ChangeOrigin,
): Promise<LinkResource> => {
  const link = await linkRepository.getByIdOrThrow(workspaceId, linkId, linkType, true);
  if (link.archived) return toLinkResource(link);
  return patchLink(workspaceId, linkType, linkId, { archived: true }, origin);
};
