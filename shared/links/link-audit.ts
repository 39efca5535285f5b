import { isDeepStrictEqual } from 'node:util';
import { newAuditEntry, type AuditEntry, type ChangeOrigin } from '@shared/audit/audit-entry';
import type { LinkRecord } from './link-record';

/**
 * The audit entries of link changes (short links `link.*`, deep links `deep_link.*`), written by
 * link-repository.ts in the change's own transaction.
 */

const resourceTypeOf = (link: LinkRecord) => (link.linkType === 'DEEPLINK' ? 'deep_link' : 'link');

/** The fields a change can set, by their API name, and the stored attribute each reads. */
const AUDITED_FIELDS: ReadonlyArray<readonly [field: string, attribute: keyof LinkRecord]> = [
  ['url', 'url'],
  ['domain', 'domain'],
  ['key', 'key'],
  ['title', 'title'],
  ['desktopOverrideUrl', 'desktopOverrideUrl'],
  ['androidOverrideUrl', 'androidOverrideUrl'],
  ['iosOverrideUrl', 'iosOverrideUrl'],
  ['expiresAt', 'expiresAt'],
  ['expiredUrl', 'expiredUrl'],
  ['password', 'passwordHash'],
  ['comments', 'comments'],
  ['objects', 'objects'],
  ['tags', 'tags'],
  ['tracking', 'tracking'],
  ['socialPreview', 'socialPreview'],
  ['geo', 'geo'],
  ['rules', 'rules'],
  ['variants', 'variants'],
  ['trackConversions', 'trackConversions'],
  ['archived', 'archived'],
];

/** The API names of the fields whose stored value differs (names only: values never enter the log). */
export const changedLinkFields = (previous: LinkRecord, next: LinkRecord): string[] =>
  AUDITED_FIELDS.filter(
    ([, attribute]) => !isDeepStrictEqual(previous[attribute] ?? null, next[attribute] ?? null),
  ).map(([field]) => field);

export const linkCreatedEntry = (link: LinkRecord, origin: ChangeOrigin): AuditEntry =>
  newAuditEntry(
    link.workspaceId,
    origin,
    { action: `${resourceTypeOf(link)}.created`, resource: { type: resourceTypeOf(link), id: link.id } },
    link.createdAt,
  );

/**
 * A change of a link: `*.archived` when it archives, `*.restored` when it restores (whatever
 * else it sets), `*.updated` otherwise; `changedFields` names every field it set.
 */
export const linkChangedEntry = (previous: LinkRecord, next: LinkRecord, origin: ChangeOrigin): AuditEntry => {
  const type = resourceTypeOf(next);
  const verb =
    !previous.archived && next.archived ? 'archived' : previous.archived && !next.archived ? 'restored' : 'updated';
  return newAuditEntry(
    next.workspaceId,
    origin,
    { action: `${type}.${verb}`, resource: { type, id: next.id }, changedFields: changedLinkFields(previous, next) },
    next.updatedAt,
  );
};
