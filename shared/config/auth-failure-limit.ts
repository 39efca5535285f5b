/**
 * The failed-key limit of a keyed function: failed API keys allowed per address per five-minute
 * window before further failing keys from that address answer 429 (shared/auth/failed-auth-limit.ts).
 * Kept out of config.ts on purpose: only functions that authenticate a key read it, so the
 * redirect's bundle and cold start do not carry it. Deployed, the CDK context value
 * `authFailureLimit` (lib/auth-settings.ts) sets the variable on every keyed function.
 */
export const AUTH_FAILURE_LIMIT_ENV = 'AUTH_FAILURE_LIMIT';
/** Failed API keys allowed per address per five-minute window when nothing is configured. */
export const DEFAULT_AUTH_FAILURE_LIMIT = 100;
/** The largest limit accepted (beyond it the limit would never slow a real attack). */
export const MAX_AUTH_FAILURE_LIMIT = 100_000;

/**
 * The limit from its text (environment variable or CDK context value): a whole number from 1 to
 * MAX_AUTH_FAILURE_LIMIT; unset (undefined or null) is the default. Returns the problem as a
 * phrase instead when the value is not one.
 */
export const parseAuthFailureLimit = (raw: unknown): { limit: number } | { problem: string } => {
  if (raw === undefined || raw === null) return { limit: DEFAULT_AUTH_FAILURE_LIMIT };
  const text = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : '';
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1 || value > MAX_AUTH_FAILURE_LIMIT)
    return {
      problem: `must be a whole number from 1 to ${MAX_AUTH_FAILURE_LIMIT} (failed API keys per address per 5 minutes), got ${JSON.stringify(raw)}`,
    };
  return { limit: value };
};

let cached: number | undefined;

/**
 * `AUTH_FAILURE_LIMIT`, read from the environment once per instance and validated; throws
 * `Invalid configuration: AUTH_FAILURE_LIMIT: ...` for a bad value. The keyed handlers call it
 * when they are built, so a bad value fails the cold start rather than some later request.
 */
export const authFailureLimit = (): number => {
  if (cached === undefined) {
    const parsed = parseAuthFailureLimit(process.env[AUTH_FAILURE_LIMIT_ENV]);
    if ('problem' in parsed) throw new Error(`Invalid configuration: ${AUTH_FAILURE_LIMIT_ENV}: ${parsed.problem}`);
    cached = parsed.limit;
  }
  return cached;
};

/** Read the environment again on next use (tests). */
export const resetAuthFailureLimit = (): void => {
  cached = undefined;
};
