/**
 * `npm start`'s logging, for people at a terminal: imported first by scripts/start.ts, before any
 * module builds the Powertools Logger or Metrics, which read these settings when they are built.
 * Deployed functions never load this module: their logging is Powertools' default, unchanged.
 *
 * - The local server prints one line per request (method, path, status, time, request id).
 * - LOG_LEVEL defaults to `warn`: warnings and errors show, the INFO lines do not
 *   (`LOG_LEVEL=info` or `debug` brings them back).
 * - Log lines are condensed (LOCAL_LOG_FORMAT=short): level, message and the line's own keys,
 *   without the Lambda context; `LOCAL_LOG_FORMAT=json` prints them as deployed.
 * - The metrics records (CloudWatch EMF lines) are written only with `LOG_LEVEL=debug`, or with
 *   `POWERTOOLS_METRICS_DISABLED=false`.
 */
process.env.LOG_LEVEL ??= 'warn';
process.env.LOCAL_LOG_FORMAT ??= 'short';
process.env.POWERTOOLS_METRICS_DISABLED ??= process.env.LOG_LEVEL.toLowerCase() === 'debug' ? 'false' : 'true';

export {};
