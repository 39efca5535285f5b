import { setTimeout as delay } from 'node:timers/promises';
import { conversionSettingsRepository } from '@shared/conversions/conversion-settings';
import pLimit from 'p-limit';
import { newAuditEntry, type ChangeOrigin } from '@shared/audit/audit-entry';
import { AppError, isAppError, type ValidationIssue } from '@shared/errors/app-error';
import { toIssues } from '@shared/http/validation';
import { createLinkBodySchema, type CreateLinkBody } from '@shared/schemas/link-schemas';
import * as z from '@shared/schemas/zod-mini';
import { tagRepository, uniqueTagNames } from '@shared/tags/tag-repository';
import type { DomainRecord } from '@shared/tenancy/tenancy-types';
import { prefixedId, randomBase62 } from '@shared/util/ids';
import { hashPassword } from '@shared/util/password';
import { GENERATED_KEY_ATTEMPTS, GENERATED_KEY_LENGTH, getShortLinkDomainOrThrow, newLinkRecord } from './create-link';
import { destinationOf, keyOf } from './link-input';
import { shortLinkOf, type LinkRecord, type TagRef } from './link-record';
import { LinkChangedError, linkRepository, SlugTakenError } from './link-repository';
import { required } from '@shared/util/required';
import { uriOf } from '@shared/util/http-url';
import { retry } from '@shared/util/retry';

/** One bulk result's link: enough to use it (the full Link is one GET away), small enough that 100 always fit. */
export interface CompactLink {
  id: string;
  domain: string;
  key: string;
  shortLink: string;
  url: string;
  createdAt: string;
}

export type BulkItemResult =
  | { success: true; data: CompactLink }
  | { success: false; error: { code: string; message: string; details?: ValidationIssue[] } };

/** Per item error details are capped so that 100 failures always fit the stored idempotent replay. */
const MAX_DETAILS = 5;
const MAX_DETAIL_CHARS = 200;
/** DynamoDB: at most 100 actions and 4 MB per transaction; links are packed below both. */
const TRANSACT_MAX_ITEMS = 100;
const TRANSACT_MAX_BYTES = 3 * 1024 * 1024;
const GROUP_CONCURRENCY = 4;
const CONFLICT_ATTEMPTS = 6;

const clip = (s: string) => (s.length > MAX_DETAIL_CHARS ? `${s.slice(0, MAX_DETAIL_CHARS - 1)}…` : s);

export const failureOf = (error: AppError): BulkItemResult => {
  const details = Array.isArray(error.details)
    ? (error.details as ValidationIssue[])
        .slice(0, MAX_DETAILS)
        .map((d) => ({ path: clip(d.path), message: clip(d.message) }))
    : undefined;
  return { success: false, error: { code: error.code, message: clip(error.message), ...(details ? { details } : {}) } };
};

const compactOf = (link: LinkRecord): CompactLink => ({
  id: link.id,
  domain: link.domain,
  key: link.key,
  shortLink: shortLinkOf(link.domain, link.key),
  url: uriOf(link.url),
  createdAt: link.createdAt,
});

const slugId = (domain: string, key: string) => `${domain.toLowerCase()}#${key}`;
/**
 * A link's items in its chunk's transaction: its item, slug and list entries (3 + one per tag), and
 * one for the log: the chunk's audit entry for the first link, an index item for each other.
 */
const writeItems = (link: LinkRecord) => 3 + link.tags.length + 1;
const writeBytes = (link: LinkRecord) => 2 * Buffer.byteLength(JSON.stringify(link)) + 1024 * (1 + link.tags.length);

interface Pending {
  index: number;
  body: CreateLinkBody;
  domain: DomainRecord;
  customKey: string | undefined;
  link: LinkRecord;
  keyAttempts: number;
}

/** Runs `work` over `items`, at most `limit` at a time, in order (p-limit). */
const inParallel = async <T>(items: T[], limit: number, work: (item: T) => Promise<void>) => {
  const run = pLimit(limit);
  await Promise.all(items.map((item) => run(() => work(item))));
};

/** Packs links into transactions of at most 100 actions (their log's items included) and ~3 MB. */
const pack = (pending: Pending[]): Pending[][] => {
  const groups: Pending[][] = [];
  let group: Pending[] = [];
  let items = 0;
  let bytes = 0;
  for (const p of pending) {
    const n = writeItems(p.link);
    const b = writeBytes(p.link);
    if (group.length > 0 && (items + n > TRANSACT_MAX_ITEMS || bytes + b > TRANSACT_MAX_BYTES)) {
      groups.push(group);
      group = [];
      items = 0;
      bytes = 0;
    }
    group.push(p);
    items += n;
    bytes += b;
  }
  if (group.length) groups.push(group);
  return groups;
};

/**
 * POST /v1/links/bulk: each item is created as `POST /v1/links` would create it, independently
 * of the others, and answered in request order. Items are validated one by one; domains, tags and
 * passwords are resolved once for the batch; two items asking for the same domain + key: the
 * earlier wins. The writes are packed into a few DynamoDB transactions (each link's item, slug
 * reservation and list entries together); a slug found taken drops (or, for a generated key,
 * re-keys) that link and the rest of its transaction is written again. Each transaction carries
 * one `link.created` audit entry listing the links it creates (resource: the first of them;
 * resourceIds: all of them), built afresh for each attempt, and an index item per further link so
 * that `resourceId` finds the entry by any link it created.
 */
export const bulkCreateLinks = async (
  workspaceId: string,
  items: unknown[],
  origin: ChangeOrigin,
  options: {
    /** Per item: the original creation time of an imported link. */ createdAt?: Array<string | undefined>;
  } = {},
): Promise<BulkItemResult[]> => {
  const results = new Array<BulkItemResult | undefined>(items.length).fill(undefined);
  const fail = (index: number, error: AppError) => (results[index] = failureOf(error));

  const parsed: Array<{ index: number; body: CreateLinkBody }> = [];
  items.forEach((item, index) => {
    const out = z.safeParse(createLinkBodySchema, item);
    if (out.success) parsed.push({ index, body: out.data });
    else fail(index, new AppError('invalid_request', 'The body is invalid', toIssues(out.error)));
  });

  // Domains: once per hostname.
  const hostnames = [...new Set(parsed.map((p) => p.body.domain))];
  type DomainLookup = { domain: DomainRecord } | { error: AppError };
  const domains = new Map<string, DomainLookup>(
    await Promise.all(
      hostnames.map(async (h): Promise<[string, DomainLookup]> => {
        try {
          return [h, { domain: await getShortLinkDomainOrThrow(workspaceId, h) }];
        } catch (error) {
          if (!isAppError(error)) throw error;
          return [h, { error }];
        }
      }),
    ),
  );

  // The earlier item of two asking for the same domain + key wins.
  const claimed = new Set<string>();
  const accepted: Array<{ index: number; body: CreateLinkBody; domain: DomainRecord }> = [];
  for (const p of parsed) {
    const resolved = required(domains.get(p.body.domain), `the lookup of domain ${p.body.domain}`);
    if ('error' in resolved) {
      fail(p.index, resolved.error);
      continue;
    }
    const { domain } = resolved;
    const key = keyOf(p.body);
    if (key !== undefined) {
      if (claimed.has(slugId(domain.domain, key))) {
        fail(p.index, new SlugTakenError());
        continue;
      }
      claimed.add(slugId(domain.domain, key));
    }
    accepted.push({ ...p, domain });
  }

  // Tags once for the whole batch (unique ignoring case); passwords hashed in parallel.
  const tagNames = uniqueTagNames(accepted.flatMap((a) => a.body.tags ?? []));
  const tags = new Map((await tagRepository.ensureTags(workspaceId, tagNames)).map((t) => [t.name.toLowerCase(), t]));
  const tagsOf = (names: string[] = []): TagRef[] =>
    uniqueTagNames(names).map((n) => required(tags.get(n.toLowerCase()), `the ensured tag ${n}`));
  const hashed = await Promise.all(
    accepted.map(async (a) => ({ ...a, passwordHash: a.body.password ? await hashPassword(a.body.password) : null })),
  );

  const now = new Date().toISOString();
  /** A generated key no other item of the batch holds on this domain (claimed at once). */
  const freshKey = (domain: string) => {
    for (;;) {
      const key = randomBase62(GENERATED_KEY_LENGTH);
      if (claimed.has(slugId(domain, key))) continue;
      claimed.add(slugId(domain, key));
      return key;
    }
  };
  const pending: Pending[] = hashed.map((a) => {
    const customKey = keyOf(a.body);
    const key = customKey ?? freshKey(a.domain.domain);
    const placement = {
      workspaceId,
      linkType: 'SHORTLINK' as const,
      domain: a.domain,
      deepLinkAppId: null,
      url: required(destinationOf(a.body), 'the url of a link to create (the schema requires it)'),
    };
    return {
      index: a.index,
      body: a.body,
      domain: a.domain,
      customKey,
      keyAttempts: 1,
      link: newLinkRecord(
        placement,
        a.body,
        { tags: tagsOf(a.body.tags), passwordHash: a.passwordHash },
        key,
        now,
        options.createdAt?.[a.index] ?? now,
      ),
    };
  });

  // Tracking turned on: the workspace's click-token secret exists before the edge can need it.
  if (pending.some((p) => p.link.trackConversions === true))
    await conversionSettingsRepository.getOrCreate(workspaceId);
  await inParallel(pack(pending), GROUP_CONCURRENCY, async (group) => {
    let rest = group;
    while (rest.length > 0) {
      const chunk = rest;
      const ids = chunk.map((p) => p.link.id);
      const audit = newAuditEntry(workspaceId, origin, {
        action: 'link.created',
        resource: { type: 'link', id: required(ids[0], 'the first link of a chunk') },
        resourceIds: ids,
      });
      let outcome: { slugTaken: string[]; idTaken: string[] };
      try {
        // A chunk that met a concurrent change is sent again after a short jittered wait (the one
        // retry helper); past CONFLICT_ATTEMPTS its links fail, the rest of the batch unaffected.
        outcome = await retry(
          () =>
            linkRepository.createManyWithSlugs(
              chunk.map((p) => p.link),
              audit,
            ),
          {
            attempts: CONFLICT_ATTEMPTS,
            retryOn: (error) => error instanceof LinkChangedError,
            pause: (attempt) => delay(Math.random() * 25 * attempt),
          },
        );
      } catch (error) {
        if (!(error instanceof LinkChangedError)) throw error;
        for (const p of chunk)
          fail(p.index, new AppError('internal_error', 'The link could not be written (contention); try again'));
        return;
      }
      if (outcome.slugTaken.length === 0 && outcome.idTaken.length === 0) {
        for (const p of rest) results[p.index] = { success: true, data: compactOf(p.link) };
        return;
      }
      const slugTaken = new Set(outcome.slugTaken);
      const idTaken = new Set(outcome.idTaken);
      rest = rest.filter((p) => {
        if (idTaken.has(p.link.id)) p.link = { ...p.link, id: prefixedId('lnk') };
        if (!slugTaken.has(p.link.id)) return true;
        if (p.customKey !== undefined || p.keyAttempts >= GENERATED_KEY_ATTEMPTS) {
          fail(p.index, new SlugTakenError());
          return false;
        }
        p.keyAttempts++;
        const key = freshKey(p.domain.domain);
        const title = p.body.title ?? shortLinkOf(p.domain.domain, key);
        p.link = { ...p.link, key, title };
        return true;
      });
    }
  });

  return results.map((r, i) => required(r, `the result of item ${i}`));
};
