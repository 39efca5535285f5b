import { getConfig } from '@shared/config/config';

type Level = 'debug' | 'info' | 'warn' | 'error';
const order: Record<Level | 'silent', number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** Field names whose values never reach a log line. */
const SECRET_FIELDS = /^(api-key|authorization|x-publishable-key|password|cookie|set-cookie|key|secret|plainKey)$/i;

const redact = (value: unknown, depth = 0): unknown => {
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_FIELDS.test(k) ? '[redacted]' : redact(v, depth + 1);
  return out;
};

const levelEnabled = (level: Level): boolean => {
  const configured = process.env.LOG_LEVEL ?? safeConfigLevel();
  return order[level] >= order[(configured as Level) in order ? (configured as Level) : 'info'];
};

const safeConfigLevel = (): string => {
  try {
    return getConfig().LOG_LEVEL;
  } catch {
    return 'info';
  }
};

/** One JSON line per entry, secrets redacted by field name. */
export const log = (level: Level, message: string, fields: Record<string, unknown> = {}): void => {
  if (!levelEnabled(level)) return;
  const line = JSON.stringify({ level, message, time: new Date().toISOString(), ...(redact(fields) as object) });
  if (level === 'error' || level === 'warn') console.error(line);
  else console.log(line);
};
