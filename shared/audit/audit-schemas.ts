import { limitQuerySchema } from '@shared/schemas/list-schemas';
import * as z from '@shared/schemas/zod-mini';
import { auditActions, auditResourceTypes } from './audit-entry';

/** A schema with its OpenAPI description. */
const described = <S extends z.ZodMiniType>(schema: S, description: string): S => {
  z.globalRegistry.add(schema, { description });
  return schema;
};

/** An ISO 8601 time with a zone, normalized to UTC milliseconds (what entries store). */
const timeQuerySchema = (description: string) =>
  described(
    z.optional(
      z.pipe(
        z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time with a zone' }),
        z.transform((v: string) => new Date(v).toISOString()),
      ),
    ),
    description,
  );

const idQuerySchema = (description: string) =>
  described(
    z.optional(z.string().check(z.minLength(1), z.maxLength(200, 'must be at most 200 characters'))),
    description,
  );

/** GET /v1/audit-log: filters match entries, they never look anything up. */
export const listAuditLogQuerySchema = z.object({
  limit: limitQuerySchema,
  cursor: described(
    z.optional(z.string().check(z.maxLength(4096))),
    'pagination.nextCursor of the previous page; valid only with the same filters',
  ),
  action: described(z.optional(z.enum(auditActions)), 'Only entries of this action'),
  resourceId: idQuerySchema('Only entries about this resource id'),
  keyId: idQuerySchema('Only entries made with this API key id (key_...)'),
  from: timeQuerySchema('Only entries at or after this time (ISO 8601)'),
  to: timeQuerySchema('Only entries at or before this time (ISO 8601)'),
});
export type ListAuditLogQuery = z.infer<typeof listAuditLogQuerySchema>;

const actorSchema = z.union([
  z.object({ type: z.literal('api_key'), keyId: z.string(), name: z.nullable(z.string()) }),
  z.object({ type: z.literal('operator'), name: z.string() }),
]);

/** The AuditEntry resource. */
export const auditEntryResourceSchema = z.object({
  id: z.string(),
  occurredAt: z.string(),
  actor: actorSchema,
  action: z.enum(auditActions),
  resource: z.object({ type: z.enum(auditResourceTypes), id: z.string() }),
  resourceIds: described(
    z.array(z.string()),
    'Every resource the change made or touched, resource.id first (a bulk chunk lists its links; a rotation the old key and the new one)',
  ),
  requestId: z.nullable(z.string()),
  ip: z.nullable(z.string()),
  userAgent: z.nullable(z.string()),
  changedFields: z.array(z.string()),
});
