import { auditLogListRoute } from '@shared/routes/audit-routes';
import { listAuditLog } from '@shared/audit/list-audit-log';
import { v1Handler } from '@shared/http/v1-handler';

export const handler = v1Handler(auditLogListRoute, async ({ auth, query }) => ({
  status: 200,
  ...(await listAuditLog(auth.workspaceId, query)),
}));
