import { auditLogListRoute } from '@shared/routes/audit-routes';
import { listAuditLog } from '@shared/audit/list-audit-log';
import { v1Handler } from '@shared/http/v1-handler';
import { auditRetentionDays } from '@shared/config/audit-retention';

// Read when the handler is built: a bad AUDIT_RETENTION_DAYS fails the cold start, not a request.
auditRetentionDays();

export const handler = v1Handler(auditLogListRoute, async ({ auth, query }) => ({
  status: 200,
  ...(await listAuditLog(auth.workspaceId, query)),
}));
