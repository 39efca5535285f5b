import type { AuthContext } from '@shared/auth/credential';
import { auditRetentionDays } from '@shared/config/audit-retention';
import { header, type ApiEvent } from '@shared/http/api-types';
import { viewerIp } from '@shared/http/trusted-viewer';
import type { ChangeOrigin } from './audit-entry';

/** The origin of a change made through the API: the authenticated key, the request's id, address and user agent. */
export const requestOrigin = (input: { auth: AuthContext; requestId: string; event: ApiEvent }): ChangeOrigin => ({
  actor: { type: 'api_key', keyId: input.auth.keyId, name: input.auth.keyName },
  requestId: input.requestId,
  ip: viewerIp(input.event),
  userAgent: header(input.event, 'user-agent') ?? null,
});

// Every handler that writes audit entries builds its origin here, so it reads the retention when
// it is built: a bad AUDIT_RETENTION_DAYS fails the cold start, not the first change.
auditRetentionDays();
