import { listAuditLog } from '@shared/audit/list-audit-log';
import { listAuditLogQuerySchema } from '@shared/audit/audit-schemas';
import { v1Handler } from '@shared/http/v1-handler';
import { auditRetentionDays } from '@shared/config/audit-retention';

// Read when the handler is built: a bad AUDIT_RETENTION_DAYS fails the cold start, not a request.
auditRetentionDays();

export const handler = v1Handler(
  { route: 'audit-log-list', query: listAuditLogQuerySchema },
  async ({ auth, query }) => ({
    status: 200,
    ...(await listAuditLog(auth.workspaceId, query)),
  }),
);
