import type { Node } from 'constructs';
import { parseAuditRetentionDays } from '@shared/config/audit-retention';
import { handlerGrants } from '@shared/routes/route-table';
import type { RouteDef } from '@shared/routes/route-types';

/** The CDK context value that sets how long audit-log entries are kept. */
export const AUDIT_RETENTION_CONTEXT = 'auditRetentionDays';

/**
 * Days audit-log entries are kept, from the CDK context value `auditRetentionDays`
 * (`-c auditRetentionDays=730` or cdk.json); unset: 400. Validated at synth with the same rule the
 * functions apply at cold start (a whole number from 1 to 3,650), so a bad value fails
 * `cdk synth` rather than every audited function's init.
 */
export const auditRetentionDaysFromContext = (node: Node): number => {
  const raw: unknown = node.tryGetContext(AUDIT_RETENTION_CONTEXT);
  const parsed = parseAuditRetentionDays(raw === '' ? undefined : raw);
  if ('problem' in parsed) throw new Error(`Context ${AUDIT_RETENTION_CONTEXT} ${parsed.problem}`);
  return parsed.days;
};

/** Whether a route's function writes or reads audit entries (its grants name `AUDIT#`). */
export const touchesAuditLog = (route: RouteDef): boolean => {
  const grants = handlerGrants(route);
  return [...(grants.writes ?? []), ...(grants.reads ?? [])].includes('AUDIT#');
};
