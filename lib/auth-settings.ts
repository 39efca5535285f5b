import type { Node } from 'constructs';
import { parseAuthFailureLimit } from '@shared/config/auth-failure-limit';

/** The CDK context value that sets the failed-key limit of the deployed keyed functions. */
export const AUTH_FAILURE_LIMIT_CONTEXT = 'authFailureLimit';

/**
 * Failed API keys allowed per address per five-minute window, from the CDK context value
 * `authFailureLimit` (`-c authFailureLimit=50` or cdk.json); unset: 100. Validated at synth with
 * the same rule the functions apply at cold start (a whole number from 1 to 100,000), so a bad
 * value fails `cdk synth` rather than every keyed function's init.
 */
export const authFailureLimitFromContext = (node: Node): number => {
  const raw: unknown = node.tryGetContext(AUTH_FAILURE_LIMIT_CONTEXT);
  const parsed = parseAuthFailureLimit(raw === '' ? undefined : raw);
  if ('problem' in parsed) throw new Error(`Context ${AUTH_FAILURE_LIMIT_CONTEXT} ${parsed.problem}`);
  return parsed.limit;
};
