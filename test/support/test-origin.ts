import type { ChangeOrigin } from '@shared/audit/audit-entry';

/** The origin of the changes a test makes by calling the domain functions directly (no request). */
export const TEST_ORIGIN: ChangeOrigin = {
  actor: { type: 'operator', name: 'test' },
  requestId: null,
  ip: null,
  userAgent: null,
};
