import { Logger } from '@aws-lambda-powertools/logger';
import { getConfig } from '@shared/config/config';
import { serviceName } from './telemetry-names';

/**
 * The one Powertools Logger of a function: JSON lines with level, message, timestamp, service,
 * the Lambda context (function name, request id, cold start; `injectLambdaContext` in
 * shared/http/middleware/observability.ts) and the keys the request-id middleware appends
 * (`requestId`, `route`).
 */
export const logger = new Logger({ serviceName });

type Level = 'debug' | 'info' | 'warn' | 'error';

/** Field names whose values never reach a log line. */
const SECRET_FIELDS = /^(api-key|authorization|x-publishable-key|password|cookie|set-cookie|key|secret|plainKey)$/i;

const redact = (value: unknown, depth = 0): unknown => {
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_FIELDS.test(k) ? '[redacted]' : redact(v, depth + 1);
  return out;
};

const configuredLevel = (): string => {
  if (process.env.LOG_LEVEL) return process.env.LOG_LEVEL;
  try {
    return getConfig().LOG_LEVEL;
  } catch {
    return 'info';
  }
};

/** LOG_LEVEL (debug, info, warn, error, silent) is read on each call, so tests and operators can change it. */
const syncLevel = () => {
  const wanted = configuredLevel().toUpperCase();
  if (wanted !== logger.getLevelName() && ['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT'].includes(wanted)) {
    logger.setLogLevel(wanted as 'DEBUG');
  }
};

/** One Powertools JSON line, secrets redacted by field name. */
export const log = (level: Level, message: string, fields: Record<string, unknown> = {}): void => {
  syncLevel();
  logger[level](message, redact(fields) as Record<string, unknown>);
};
