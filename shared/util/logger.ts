import { LogFormatter, Logger, LogItem } from '@aws-lambda-powertools/logger';
import type { LogAttributes, UnformattedAttributes } from '@aws-lambda-powertools/logger/types';
import { getConfig } from '@shared/config/config';
import { serviceName } from './telemetry-names';

/**
 * The local stack's condensed lines (`npm start` sets LOCAL_LOG_FORMAT=short, see
 * shared/local/local-logging.ts): level, message and the line's own keys (request id, route,
 * fields, error), without the service name, timestamp and Lambda context keys that every deployed
 * line carries. Deployed functions never set it: their lines keep Powertools' default format.
 */
export class ShortLogFormatter extends LogFormatter {
  formatAttributes(attributes: UnformattedAttributes, additionalLogAttributes: LogAttributes): LogItem {
    return new LogItem({ attributes: { level: attributes.logLevel, message: attributes.message } }).addAttributes(
      additionalLogAttributes,
    );
  }
}

/**
 * The one Powertools Logger of a function: JSON lines with level, message, timestamp, service,
 * the Lambda context (function name, request id, cold start; `injectLambdaContext` in
 * shared/http/middleware/observability.ts) and the keys the request-id middleware appends
 * (`requestId`, `route`).
 */
export const logger = new Logger({
  serviceName,
  ...(process.env.LOCAL_LOG_FORMAT === 'short' ? { logFormatter: new ShortLogFormatter() } : {}),
});

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
