/**
 * How long audit-log entries are kept (shared/audit): their TTL, and the bound every read puts on
 * the log's time. Kept out of config.ts on purpose: only functions that write or read audit
 * entries (and the admin CLI) read it, so the redirect's bundle and cold start do not carry it.
 * Deployed, the CDK context value `auditRetentionDays` (lib/audit-settings.ts) sets the variable
 * on every function that writes or reads entries; the local stack and the admin CLI take it from
 * their environment.
 */
export const AUDIT_RETENTION_ENV = 'AUDIT_RETENTION_DAYS';
/** Days an entry is kept when nothing is configured. */
export const DEFAULT_AUDIT_RETENTION_DAYS = 400;
/** The longest retention accepted: ten years. */
export const MAX_AUDIT_RETENTION_DAYS = 3650;

/**
 * The retention from its text (environment variable or CDK context value): a whole number of days
 * from 1 to MAX_AUDIT_RETENTION_DAYS; unset (undefined or null) is the default. Returns the
 * problem as a phrase instead when the value is not one.
 */
export const parseAuditRetentionDays = (raw: unknown): { days: number } | { problem: string } => {
  if (raw === undefined || raw === null) return { days: DEFAULT_AUDIT_RETENTION_DAYS };
  const text = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : '';
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1 || value > MAX_AUDIT_RETENTION_DAYS)
    return {
      problem: `must be a whole number of days from 1 to ${MAX_AUDIT_RETENTION_DAYS}, got ${JSON.stringify(raw)}`,
    };
  return { days: value };
};

let cached: number | undefined;

/**
 * `AUDIT_RETENTION_DAYS`, read from the environment once per instance and validated; throws
 * `Invalid configuration: AUDIT_RETENTION_DAYS: ...` for a bad value. The handlers that write or
 * read entries call it when they are built, so a bad value fails the cold start rather than the
 * first change.
 */
export const auditRetentionDays = (): number => {
  if (cached === undefined) {
    const parsed = parseAuditRetentionDays(process.env[AUDIT_RETENTION_ENV]);
    if ('problem' in parsed) throw new Error(`Invalid configuration: ${AUDIT_RETENTION_ENV}: ${parsed.problem}`);
    cached = parsed.days;
  }
  return cached;
};

/** The retention in milliseconds. */
export const auditRetentionMs = (): number => auditRetentionDays() * 24 * 60 * 60 * 1000;

/** Read the environment again on next use (tests). */
export const resetAuditRetention = (): void => {
  cached = undefined;
};
