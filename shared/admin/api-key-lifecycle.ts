/**
 * The life of an API key, for the admin `keys` commands: create (scoped, named, optionally
 * expiring), list, revoke by public id, rotate with an overlap, and the one-off backfill of ids
 * for keys stored before ids existed. The plain key is returned once by
 * create and rotate and never stored, logged or listed; neither is its hash.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { apiKeyRepository } from '@shared/auth/api-key-repository';
import { apiKeyMaintenance } from './api-key-maintenance';
import { generateApiKey, hashApiKey, isExpired } from '@shared/auth/api-keys';
import type { ApiKeyRecord, KeyKind, PublishableRestrictions } from '@shared/auth/credential';
import { isKeyScope, keyScopes, scopesOf, type KeyScope } from '@shared/auth/scopes';
import { derivedKeyId } from '@shared/auth/key-id';
import { prefixedId } from '@shared/util/ids';
import type { ChangeOrigin } from '@shared/audit/audit-entry';
import { auditPutsFor } from '@shared/audit/audit-repository';
import { AdminError, invalidInput, notFound } from './admin-error';

/** What `keys list` shows of a key (and `create` / `rotate`, with the plain key). */
export interface KeyView {
  id: string;
  name: string;
  kind: KeyKind;
  /** Server keys' scopes; other kinds have none (their routes are fixed by their kind). */
  scopes: KeyScope[];
  createdAt: string;
  expiresAt: string | null;
}

export interface ListedKey extends KeyView {
  /** The UTC day the key was last used, as `YYYY-MM-DD` (day precision); null when never. */
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** Two years, as 730 days. */
const MAX_LIFETIME_MS = 730 * 86_400_000;
const DURATION = /^(\d+)([smhdw])$/;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

/** `90d`, `24h`, `30m`, `2w`, `45s` in milliseconds; an AdminError for anything else. */
export const parseDuration = (text: string, what: string): number => {
  const match = DURATION.exec(text.trim());
  if (!match)
    throw invalidInput(`${what} must be a number and a unit (s, m, h, d or w), like 90d or 24h: got "${text}"`);
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
};

/** The scopes of `--scope a,b`: each known, at least one, no duplicates. */
export const parseScopes = (text: string): KeyScope[] => {
  const parts = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (parts.length === 0) throw invalidInput(`Give at least one scope (${keyScopes.join(', ')})`);
  const unknown = parts.filter((s) => !isKeyScope(s));
  if (unknown.length > 0)
    throw invalidInput(`Unknown scope ${unknown.join(', ')}: the scopes are ${keyScopes.join(', ')}`);
  return [...new Set(parts)] as KeyScope[];
};

/** The end of a key created at `now` that lives `expiresInMs`: in the future and at most 2 years away. */
export const expiryFrom = (now: number, expiresInMs: number): string => {
  if (expiresInMs <= 0) throw invalidInput('--expires-in must be in the future (more than 0)');
  if (expiresInMs > MAX_LIFETIME_MS) throw invalidInput('--expires-in must be at most 2 years (730d)');
  return new Date(now + expiresInMs).toISOString();
};

const viewOf = (record: ApiKeyRecord & { keyId: string }): KeyView => ({
  id: record.keyId,
  name: record.name ?? '',
  kind: record.kind,
  scopes: record.kind === 'server' ? [...scopesOf(record)] : [],
  createdAt: record.createdAt,
  expiresAt: record.expiresAt ?? null,
});

const listedOf = (record: ApiKeyRecord & { keyId: string }): ListedKey => ({
  ...viewOf(record),
  lastUsedAt: record.lastUsedOn ?? null,
  revokedAt: record.revokedAt ?? (record.revoked ? 'unknown' : null),
});

export interface NewKeyOptions {
  workspaceId: string;
  kind: KeyKind;
  name: string;
  /** Server keys only. */
  scopes?: KeyScope[];
  expiresAt?: string | null;
  appId?: string | null;
  publishable?: PublishableRestrictions | null;
  now?: number;
  /** Who creates the key: given, its `key.created` audit entry is written in the key's transaction. */
  origin?: ChangeOrigin;
}

/** A new key's record (with a public id) and its plain value, not yet stored. */
const newKeyRecord = (options: NewKeyOptions): { record: ApiKeyRecord & { keyId: string }; key: string } => {
  const plain = generateApiKey(options.kind);
  return {
    key: plain,
    record: {
      keyHash: hashApiKey(plain),
      keyId: prefixedId('key'),
      name: options.name,
      kind: options.kind,
      workspaceId: options.workspaceId,
      appId: options.appId ?? null,
      revoked: false,
      createdAt: new Date(options.now ?? Date.now()).toISOString(),
      publishable: options.publishable ?? null,
      expiresAt: options.expiresAt ?? null,
      ...(options.kind === 'server' ? { scopes: options.scopes ?? ['all'] } : {}),
    },
  };
};

/** Stores a new key with a public id; returns the plain key (shown once) and its view. */
export const issueKey = async (options: NewKeyOptions): Promise<KeyView & { key: string }> => {
  const { record, key } = newKeyRecord(options);
  const audit = auditPutsFor(record.workspaceId, options.origin, {
    action: 'key.created',
    resource: { type: 'api_key', id: record.keyId },
  });
  await apiKeyRepository.put(record, audit);
  return { ...viewOf(record), key };
};

export const listKeys = async (workspaceId: string): Promise<ListedKey[]> =>
  (await apiKeyRepository.listByWorkspace(workspaceId))
    .filter((r): r is ApiKeyRecord & { keyId: string } => typeof r.keyId === 'string')
    .map(listedOf);

const keyById = async (keyId: string): Promise<ApiKeyRecord & { keyId: string }> => {
  const record = await apiKeyRepository.findById(keyId.trim());
  if (!record?.keyId)
    throw notFound(
      `No key has the id ${keyId}: nothing was changed (keys list shows the ids; keys made before ids get theirs from keys backfill-ids)`,
    );
  return record as ApiKeyRecord & { keyId: string };
};

/** The revocation's transaction was cancelled by the key's own condition (its first item). */
const isConditionCancelled = (error: unknown): boolean =>
  error instanceof TransactionCanceledException && error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed';

/**
 * Revokes a key by its public id; refuses an unknown or already revoked id. With an origin, its
 * `key.revoked` audit entry is written in the revocation's transaction.
 */
export const revokeKeyById = async (keyId: string, now = Date.now(), origin?: ChangeOrigin): Promise<ListedKey> => {
  const record = await keyById(keyId);
  if (record.revoked) throw new AdminError('conflict', `Key ${record.keyId} is already revoked (nothing was changed)`);
  const revokedAt = new Date(now).toISOString();
  const audit = auditPutsFor(record.workspaceId, origin, {
    action: 'key.revoked',
    resource: { type: 'api_key', id: record.keyId },
    changedFields: ['revoked'],
  });
  await apiKeyRepository.revoke(record.keyHash, revokedAt, audit).catch((error: unknown) => {
    // Another run revoked it between our read and our write: it wrote the one entry.
    if (audit.length && isConditionCancelled(error))
      throw new AdminError('conflict', `Key ${record.keyId} was revoked meanwhile (nothing was changed)`);
    throw error;
  });
  return listedOf({ ...record, revoked: true, revokedAt });
};

export interface Rotation extends KeyView {
  key: string;
  previousKeyId: string;
  previousExpiresAt: string;
}

/**
 * A new key with the old one's name, kind, workspace, app, restrictions and scopes; the old key
 * keeps working until `overlapMs` from now (or its own earlier end), then stops. Refuses a revoked
 * or expired key. The new key and the old key's new end are one DynamoDB transaction, conditional
 * on the old key still existing, not revoked and unchanged since it was read: a key revoked (or
 * rotated) meanwhile fails the rotation with nothing written, no new key included. With an origin,
 * the `key.rotated` audit entry (resource: the old key; resourceIds: the old and the new key) is
 * in the same transaction.
 */
export const rotateKey = async (
  keyId: string,
  overlapMs: number,
  now = Date.now(),
  origin?: ChangeOrigin,
): Promise<Rotation> => {
  if (overlapMs < 0) throw invalidInput('--overlap must not be negative');
  if (overlapMs > MAX_LIFETIME_MS) throw invalidInput('--overlap must be at most 2 years (730d)');
  const old = await keyById(keyId);
  if (old.revoked) throw new AdminError('conflict', `Key ${old.keyId} is revoked: it cannot be rotated`);
  if (isExpired(old, now)) throw new AdminError('conflict', `Key ${old.keyId} has expired: it cannot be rotated`);
  const overlapEnd = new Date(now + overlapMs).toISOString();
  const previousExpiresAt =
    old.expiresAt && Date.parse(old.expiresAt) < Date.parse(overlapEnd) ? old.expiresAt : overlapEnd;
  const { record, key } = newKeyRecord({
    workspaceId: old.workspaceId,
    kind: old.kind,
    name: old.name ?? '',
    scopes: old.kind === 'server' ? [...scopesOf(old)] : undefined,
    expiresAt: null,
    appId: old.appId,
    publishable: old.publishable,
    now,
  });
  // The entry and its index item for the new key (resourceId finds the rotation by either key).
  const audit = auditPutsFor(old.workspaceId, origin, {
    action: 'key.rotated',
    resource: { type: 'api_key', id: old.keyId },
    resourceIds: [old.keyId, record.keyId],
    changedFields: ['expiresAt'],
  });
  const outcome = await apiKeyMaintenance.rotate(
    record,
    { keyHash: old.keyHash, readExpiresAt: old.expiresAt ?? null },
    previousExpiresAt,
    audit,
  );
  if (outcome === 'old-key-changed') {
    const current = await apiKeyRepository.findByHash(old.keyHash);
    if (!current) throw notFound(`Key ${old.keyId} was deleted while it was being rotated: nothing was written`);
    if (current.revoked)
      throw new AdminError(
        'conflict',
        `Key ${old.keyId} was revoked while it was being rotated: nothing was written (no new key was made)`,
      );
    throw new AdminError(
      'conflict',
      `Key ${old.keyId} changed while it was being rotated (another rotation?): nothing was written; check keys list and run the command again`,
    );
  }
  if (outcome === 'new-key-exists')
    throw new AdminError(
      'conflict',
      'The new key collided with a stored one: nothing was written; run the command again',
    );
  return { ...viewOf(record), key, previousKeyId: old.keyId, previousExpiresAt };
};

export interface BackfillReport {
  /** Table items the Scan read (the whole table: keys without an id are in no index). */
  scanned: number;
  /** Keys found without an id (of the workspace, with `workspaceId`). */
  withoutId: number;
  /** Keys given an id by this run. */
  assigned: number;
  /** Keys that had an id by the time this run wrote (another run got there first). */
  alreadyHadId: number;
  /** The ids given, oldest key first. */
  keyIds: string[];
}

/**
 * Gives every key stored before public ids (no `keyId`) its id, once, so `keys list`, `revoke`
 * and `rotate` see it: the id is derived from the key's hash and creation time (key-id.ts), the
 * same one its log lines already carry, and written with `attribute_not_exists(keyId)`, so
 * running it again, or twice at once, changes nothing. Finding such keys takes a Scan of the whole
 * table (they are in no index): an operator runs it once after upgrading, not on every list.
 */
export const backfillKeyIds = async (
  options: {
    workspaceId?: string;
    onScanned?: (items: number) => void;
    onFound?: (keys: number) => void;
    onAssigned?: () => void;
  } = {},
): Promise<BackfillReport> => {
  const { records, scanned } = await apiKeyMaintenance.listWithoutId({
    workspaceId: options.workspaceId,
    onPage: options.onScanned,
  });
  options.onFound?.(records.length);
  const report: BackfillReport = { scanned, withoutId: records.length, assigned: 0, alreadyHadId: 0, keyIds: [] };
  for (const record of records) {
    const keyId = derivedKeyId(record.keyHash, record.createdAt);
    if (await apiKeyMaintenance.assignId(record, keyId)) {
      report.assigned += 1;
      report.keyIds.push(keyId);
    } else report.alreadyHadId += 1;
    options.onAssigned?.();
  }
  return report;
};
