import { userInfo } from 'node:os';
import type { ChangeOrigin } from './audit-entry';

/**
 * The origin of a change made by an operator tool (the admin CLI): the operator's name, from
 * `--actor` or else the OS user. There is no request, so no request id, address or user agent.
 */
export const operatorOrigin = (actor?: string): ChangeOrigin => {
  const name = (actor ?? userInfo().username).trim();
  return { actor: { type: 'operator', name: name || 'unknown' }, requestId: null, ip: null, userAgent: null };
};
