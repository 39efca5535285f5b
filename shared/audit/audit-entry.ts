import { prefixedId } from '@shared/util/ids';

/**
 * The audit log: one entry per state change, written in the same DynamoDB transaction as the
 * change (no change without its entry, no entry without its change). An entry names who
 * (`actor`), what (`action`, `resource`, the names of `changedFields`), when (`occurredAt`) and
 * from where (`requestId`, `ip`, `userAgent`). No value of any field ever enters it, so
 * passwords, secrets and keys cannot.
 */

/** Actions built so far: `<resource>.<verb>` in the past tense. */
export const auditActions = [
  'link.created',
  'link.updated',
  'link.archived',
  'link.restored',
  'deep_link.created',
  'deep_link.updated',
  'deep_link.archived',
  'deep_link.restored',
  'domain.added',
  'domain.verified',
  'domain.removed',
  'domain.updated',
  'key.created',
  'key.revoked',
  'key.rotated',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'rate_limits.updated',
  'workspace.exported',
] as const;
export type AuditAction = (typeof auditActions)[number];

export const auditResourceTypes = ['link', 'deep_link', 'domain', 'api_key', 'webhook_endpoint', 'workspace'] as const;
export type AuditResourceType = (typeof auditResourceTypes)[number];

/** Who made the change: an API key (by its public id and label) or an operator (the admin CLI). */
export type AuditActor = { type: 'api_key'; keyId: string; name: string | null } | { type: 'operator'; name: string };

/**
 * Where a change comes from: its actor and, when there is a request, its id, address and user
 * agent. Handlers build it from the request and pass it down to the domain function that
 * writes the change (no globals).
 */
export interface ChangeOrigin {
  actor: AuditActor;
  requestId: string | null;
  ip: string | null;
  userAgent: string | null;
}

export interface AuditEntry {
  id: string;
  workspaceId: string;
  occurredAt: string;
  actor: AuditActor;
  action: AuditAction;
  resource: { type: AuditResourceType; id: string };
  /**
   * When the change made or touched more than `resource` (a bulk chunk's links, a rotation's new
   * key): all their ids, `resource.id` first. Absent otherwise (it is then `[resource.id]`).
   */
  resourceIds?: string[];
  requestId: string | null;
  ip: string | null;
  userAgent: string | null;
  /** Updates: the names of the fields the change set (never their values); creates and archives: empty. */
  changedFields: string[];
}

/** The longest user agent kept (longer ones are cut): an entry stays a small item. */
const USER_AGENT_MAX = 512;

export const newAuditEntry = (
  workspaceId: string,
  origin: ChangeOrigin,
  change: { action: AuditAction; resource: AuditEntry['resource']; resourceIds?: string[]; changedFields?: string[] },
  occurredAt = new Date().toISOString(),
): AuditEntry => ({
  id: prefixedId('aud'),
  workspaceId,
  occurredAt,
  actor: origin.actor,
  action: change.action,
  resource: change.resource,
  ...(change.resourceIds ? { resourceIds: change.resourceIds } : {}),
  requestId: origin.requestId,
  ip: origin.ip,
  userAgent: origin.userAgent === null ? null : origin.userAgent.slice(0, USER_AGENT_MAX),
  changedFields: change.changedFields ?? [],
});

/** The public shape of an entry (the workspace is implied by the key that reads it). */
export const toAuditEntryResource = (entry: AuditEntry) => ({
  id: entry.id,
  occurredAt: entry.occurredAt,
  actor: entry.actor,
  action: entry.action,
  resource: entry.resource,
  resourceIds: entry.resourceIds ?? [entry.resource.id],
  requestId: entry.requestId,
  ip: entry.ip,
  userAgent: entry.userAgent,
  changedFields: entry.changedFields,
});
export type AuditEntryResource = ReturnType<typeof toAuditEntryResource>;
