import { AUDIT_INDEX, type RouteDef } from './route-types';

export const auditRoutes: RouteDef[] = [
  {
    handler: 'audit-log-list',
    method: 'GET',
    path: '/v1/audit-log',
    credential: 'server',
    scope: 'audit:read',
    api: 'service',
    // The entries (AUDIT#<ws>), the filter indexes' partitions (AUDIT#<ws>#...), the cursor's signing secret.
    grants: { table: 'read', reads: ['AUDIT#', 'SECRET'], indexes: AUDIT_INDEX },
    summary: 'List the audit log, newest first (one entry per change: who, what, when, from where)',
  },
];
