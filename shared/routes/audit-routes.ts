import type { AuditEntryResource } from '@shared/audit/audit-entry';
import { listAuditLogQuerySchema } from '@shared/audit/audit-schemas';
import type { V1Route } from './typed-route';
import { AUDIT_INDEX, type RouteDef } from './route-types';

export const auditLogListRoute: V1Route<{ query: typeof listAuditLogQuerySchema }, AuditEntryResource[]> = {
  request: { query: listAuditLogQuerySchema },
  handler: 'audit-log-list',
  method: 'GET',
  path: '/v1/audit-log',
  credential: 'server',
  scope: 'audit:read',
  api: 'service',
  // The entries (AUDIT#<ws>), the filter indexes' partitions (AUDIT#<ws>#...), the cursor's signing secret.
  grants: { table: 'read', reads: ['AUDIT#', 'SECRET'], indexes: AUDIT_INDEX },
  summary: 'List the audit log, newest first (one entry per change: who, what, when, from where)',
};

export const auditRoutes: RouteDef[] = [auditLogListRoute];
