/*
 * CloudFront real-time log records (AWS CloudFront Developer Guide, "Real-time logs",
 * https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/real-time-logs.html): one
 * record per viewer request, one record (a line) per Kinesis record, its values separated by tabs,
 * `-` for an empty value. The fields a configuration chooses appear in the order that guide lists
 * them, whatever order the configuration names them in; so the chosen fields are kept here in
 * that documented order (`REALTIME_LOG_DOCUMENTED_ORDER`, a unit test checks it), and the CDK log
 * configuration (lib/edge-click-logs.ts) and the parser both use this one list.
 */

/** Every real-time log field, in the order the guide lists them and records carry them. */
export const REALTIME_LOG_DOCUMENTED_ORDER = [
  'timestamp',
  'c-ip',
  'time-to-first-byte',
  'sc-status',
  'sc-bytes',
  'cs-method',
  'cs-protocol',
  'cs-host',
  'cs-uri-stem',
  'cs-bytes',
  'x-edge-location',
  'x-edge-request-id',
  'x-host-header',
  'time-taken',
  'cs-protocol-version',
  'c-ip-version',
  'cs-user-agent',
  'cs-referer',
  'cs-cookie',
  'cs-uri-query',
  'x-edge-response-result-type',
  'x-forwarded-for',
  'ssl-protocol',
  'ssl-cipher',
  'x-edge-result-type',
  'fle-encrypted-fields',
  'fle-status',
  'sc-content-type',
  'sc-content-len',
  'sc-range-start',
  'sc-range-end',
  'c-port',
  'x-edge-detailed-result-type',
  'c-country',
  'cs-accept-encoding',
  'cs-accept',
  'cache-behavior-path-pattern',
  'cs-headers',
  'cs-header-names',
  'cs-headers-count',
] as const;

/**
 * The fields the click converter needs, in the documented order:
 * - `timestamp`: when the edge server finished responding, epoch seconds with milliseconds
 *   (`1700000000.123`);
 * - `c-ip`: the viewer's address (as `CloudFront-Viewer-Address` gives the origin);
 * - `sc-status`: the status sent to the viewer;
 * - `cs-method`; `cs-uri-stem`: the request's path, **with** its query string when there is one
 *   (unlike standard logs); `cs-uri-query`: the query string alone;
 * - `cs-host`: the Host header the viewer sent (the customer domain); `x-host-header`: the
 *   distribution's domain name (kept for the record);
 * - `x-edge-request-id`: CloudFront's unique id of the request (`x-amz-cf-id`);
 * - `cs-user-agent`, `cs-referer`: the headers' values, URL-encoded;
 * - `x-edge-result-type`, `x-edge-detailed-result-type`: how the edge answered
 *   (`FunctionGeneratedResponse` when a CloudFront Function generated the response);
 * - `c-country`: the viewer's country (two letters), as `CloudFront-Viewer-Country`;
 * - `cache-behavior-path-pattern`: the behaviour that served it (`*`: the default one, the links).
 * No cookie is logged: the click needs none.
 */
export const REALTIME_LOG_FIELDS = [
  'timestamp',
  'c-ip',
  'sc-status',
  'cs-method',
  'cs-host',
  'cs-uri-stem',
  'x-edge-request-id',
  'x-host-header',
  'cs-user-agent',
  'cs-referer',
  'cs-uri-query',
  'x-edge-result-type',
  'x-edge-detailed-result-type',
  'c-country',
  'cache-behavior-path-pattern',
] as const satisfies readonly (typeof REALTIME_LOG_DOCUMENTED_ORDER)[number][];
export type RealtimeLogField = (typeof REALTIME_LOG_FIELDS)[number];

/** One record: every configured field, null where the log has `-` (or nothing). */
export type RealtimeLogRecord = Record<RealtimeLogField, string | null>;

/** The result type of a response a CloudFront Function generated (the hot-link function's redirect). */
export const FUNCTION_GENERATED_RESPONSE = 'FunctionGeneratedResponse';

/** The default behaviour's path pattern: the link paths, where the hot-link function runs. */
export const LINK_BEHAVIOR_PATH_PATTERN = '*';

/**
 * A URL-encoded value as text (CloudFront writes a space as `%20`; a `+` is kept as it is, so a
 * user agent's `+` reads back as sent); a malformed escape leaves the value as it is.
 */
const decoded = (value: string): string => {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
};

/** Fields whose values CloudFront URL-encodes. */
const ENCODED: ReadonlySet<RealtimeLogField> = new Set(['cs-user-agent', 'cs-referer']);

/** One log line (tab-separated, in `fields` order), or null when it has fewer values than fields. */
export const parseRealtimeLogLine = (
  line: string,
  fields: readonly RealtimeLogField[] = REALTIME_LOG_FIELDS,
): RealtimeLogRecord | null => {
  const values = line.replace(/\r?\n$/, '').split('\t');
  if (values.length < fields.length) return null;
  const record = Object.fromEntries(REALTIME_LOG_FIELDS.map((f) => [f, null])) as RealtimeLogRecord;
  fields.forEach((field, i) => {
    const raw = values[i];
    if (raw === undefined || raw === '' || raw === '-') return;
    record[field] = ENCODED.has(field) ? decoded(raw) : raw;
  });
  return record;
};

/** The lines of one Kinesis record's data (CloudFront puts one record per line; tolerates several). */
export const realtimeLogLines = (data: string): string[] => data.split('\n').filter((l) => l.trim() !== '');

/** A record's time (epoch seconds with milliseconds), or null when it is not a number. */
export const recordTime = (record: RealtimeLogRecord): Date | null => {
  const seconds = Number(record.timestamp);
  return record.timestamp !== null && Number.isFinite(seconds) && seconds > 0
    ? new Date(Math.round(seconds * 1000))
    : null;
};

/**
 * A request the hot-link function answered: a response the function generated (the result type,
 * or the detailed one, is `FunctionGeneratedResponse`), status 302, on the link behaviour. An
 * origin's redirect (a `Miss` with 302) and anything the plain viewer-request function answers on
 * other behaviours are not.
 */
export const isEdgeAnsweredClick = (record: RealtimeLogRecord): boolean =>
  (record['x-edge-result-type'] === FUNCTION_GENERATED_RESPONSE ||
    record['x-edge-detailed-result-type'] === FUNCTION_GENERATED_RESPONSE) &&
  record['sc-status'] === '302' &&
  record['cache-behavior-path-pattern'] === LINK_BEHAVIOR_PATH_PATTERN &&
  record['cs-method'] === 'GET';

/** URL-encodes a header value as CloudFront logs it (the local edge writes lines this way). */
const encoded = (value: string): string => encodeURIComponent(value);

/** One log line from field values (the local edge's stand-in of CloudFront's log record). */
export const formatRealtimeLogLine = (values: Partial<RealtimeLogRecord>): string =>
  REALTIME_LOG_FIELDS.map((field) => {
    const value = values[field];
    if (value === null || value === undefined || value === '') return '-';
    return ENCODED.has(field) ? encoded(value) : value.replace(/[\t\n]/g, ' ');
  }).join('\t');
