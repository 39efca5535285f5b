import { eventRecordFields, type EventType } from '@shared/events/event-record';
import type { TrafficFilter } from './analytics-schemas';
import type { AnalyticsWindow } from './analytics-window';
import { shardOf } from '../lake/lake-layout';

/**
 * The analytics SQL: one text for both engines (Athena / Trino and DuckDB, which gets a few
 * macros for the Trino function names, see duckdb-engine.ts). Two relations: `events`, the raw
 * JSON lines (Glue table; a DuckDB view over the local lake's raw files) and `events_compacted`,
 * the Parquet of closed periods (see lake-layout.ts). Every value arrives as a `?` parameter,
 * and only in a WHERE clause (Athena's rule: "`?` parameters can be placed only in the WHERE
 * clause"; test/unit/athena-dialect.test.ts checks every text). The only text that varies is
 * chosen from fixed fragments here, plus validated integers.
 */
/** The raw relation: the Glue table's name, and the DuckDB view's. */
export const ANALYTICS_TABLE = 'events';
/** The compacted relation (Parquet, one folder per workspace and day): hourly files of days not merged yet. */
export const COMPACTED_TABLE = 'events_compacted';
/** Merged days (Parquet, one file per workspace-day, partitions per workspace and month: daily-merge.ts). */
export const DAILY_TABLE = 'events_daily';

export interface SqlQuery {
  sql: string;
  params: string[];
}

/** Which events a query is about: one link, one app's links, or the whole workspace. */
export type AnalyticsScope = { kind: 'link'; linkId: string } | { kind: 'app'; appId: string } | { kind: 'workspace' };

export interface ScopeFilter {
  workspaceId: string;
  scope: AnalyticsScope;
  window: Pick<AnalyticsWindow, 'start' | 'end' | 'firstDay' | 'lastDay'>;
  /** Omitted: every event (raw export). */
  traffic?: TrafficFilter;
  eventType?: EventType;
  /**
   * Read raw partitions only from this hour's start on (ISO): the compaction watermark, less the
   * late-read slack (raw-read.ts). Undefined: every raw partition of the window.
   */
  rawFrom?: string;
  /**
   * Days before this one (`YYYY-MM-DD`, exclusive) are read from the merged daily files, later
   * ones from the hourly compacted files (the watermark's `mergedBefore`, daily-merge.ts).
   * Undefined: no day is merged, every compacted day is read hourly.
   */
  mergedBefore?: string;
}

const DAY_MS = 86_400_000;
/** The day before a `YYYY-MM-DD` day. */
const dayBefore = (day: string) => new Date(Date.parse(`${day}T00:00:00.000Z`) - DAY_MS).toISOString().slice(0, 10);

const trafficTypes: Record<TrafficFilter, [string, string]> = {
  human: ['human', 'human'],
  bots: ['bot', 'bot'],
  all: ['human', 'bot'],
};

/** The event columns both relations share (the partition columns differ). */
const lakeColumns = eventRecordFields.map((name) => (name === 'timestamp' ? '"timestamp"' : name)).join(', ');

/**
 * Where the raw part of a query starts: the later of the window's start and `rawFrom` (the
 * compaction watermark less the late-read slack, raw-read.ts): every event of an earlier hour is
 * in the compacted layout.
 */
export const rawReadStart = (filter: Pick<ScopeFilter, 'window' | 'rawFrom'>): string =>
  filter.rawFrom !== undefined && filter.rawFrom > filter.window.start ? filter.rawFrom : filter.window.start;

/**
 * The raw shard-hour partitions a query's predicates admit (Athena's partition projection lists
 * each; the workspace's one shard): the hours from rawReadStart through the last day's end.
 */
export const plannedRawPartitions = (filter: Pick<ScopeFilter, 'window' | 'rawFrom'>): number => {
  const from = Math.floor(Date.parse(rawReadStart(filter)) / 3_600_000);
  const through = Date.parse(`${filter.window.lastDay}T23:00:00.000Z`) / 3_600_000;
  return Math.max(0, through - from + 1);
};

/**
 * `scoped`: the events of one workspace in the exact time span, scope and filters, each event
 * once. Merged days (before `mergedBefore`) come from `events_daily` (partitions workspace_id,
 * month), other compacted days from `events_compacted` (partitions workspace_id, dt); what is not
 * compacted yet (the open period, late arrivals) from the raw `events` (partitions shard, dt,
 * hour: the workspace's shard, the window's days, and for a window starting mid-day, its hours).
 * The two overlap while a compaction run is between writing Parquet and removing the raw
 * objects, and Firehose delivers at least once: the raw rows keep one row per eventId
 * (`row_number() OVER (PARTITION BY eventId)`) and none whose eventId is already compacted.
 */
const scopedCte = (filter: ScopeFilter): SqlQuery => {
  const { window } = filter;
  const common: string[] = ['"timestamp" >= ?', '"timestamp" < ?'];
  const commonParams: string[] = [window.start, window.end];
  if (filter.scope.kind === 'link') {
    common.push('linkId = ?');
    commonParams.push(filter.scope.linkId);
  } else if (filter.scope.kind === 'app') {
    common.push('deepLinkAppId = ?');
    commonParams.push(filter.scope.appId);
  }
  if (filter.traffic) {
    common.push('trafficType IN (?, ?)');
    commonParams.push(...trafficTypes[filter.traffic]);
  }
  if (filter.eventType) {
    common.push('eventType = ?');
    commonParams.push(filter.eventType);
  }
  // Merged days from the daily files, the others from the hourly files: split at mergedBefore,
  // the daily side by the events' own timestamps (< that day), the hourly side by their day
  // (>= it), so no event is read from both whichever files exist (daily-merge.ts).
  const merged = filter.mergedBefore;
  const dailyLastDay = merged === undefined ? undefined : merged <= window.lastDay ? dayBefore(merged) : window.lastDay;
  const readsDaily = dailyLastDay !== undefined && dailyLastDay >= window.firstDay;
  const hourlyFirstDay = merged !== undefined && merged > window.firstDay ? merged : window.firstDay;
  const dailySql = readsDaily
    ? `SELECT ${lakeColumns}
  FROM ${DAILY_TABLE}
  WHERE ${['workspace_id = ?', 'month >= ?', 'month <= ?', '"timestamp" < ?', ...common].join('\n    AND ')}
  UNION ALL
  `
    : '';
  const dailyParams = readsDaily
    ? [
        filter.workspaceId,
        window.firstDay.slice(0, 7),
        dailyLastDay.slice(0, 7),
        `${merged}T00:00:00.000Z`,
        ...commonParams,
      ]
    : [];
  const compactedWhere = ['workspace_id = ?', 'dt >= ?', 'dt <= ?', ...common];
  const compactedParams = [filter.workspaceId, hourlyFirstDay, window.lastDay, ...commonParams];
  const rawStart = rawReadStart(filter);
  const rawFirstDay = rawStart.slice(0, 10);
  const rawWhere = ['shard = ?', 'workspaceId = ?', 'dt >= ?', 'dt <= ?'];
  const rawParams = [shardOf(filter.workspaceId), filter.workspaceId, rawFirstDay, window.lastDay];
  const startHour = rawStart.slice(11, 13);
  if (startHour !== '00') {
    // Starting mid-day (a 24h window, or the watermark): only the hours of the first day it covers.
    rawWhere.push('(dt > ? OR hour >= ?)');
    rawParams.push(rawFirstDay, startHour);
  }
  rawWhere.push(...common);
  rawParams.push(...commonParams);
  // A raw event of a merged day (a late arrival) may be compacted into the daily files already.
  const rawMeetsDaily = dailyLastDay !== undefined && rawFirstDay <= dailyLastDay;
  const dailyNotExists = rawMeetsDaily
    ? `
    AND NOT EXISTS (
      SELECT 1
      FROM ${DAILY_TABLE} merged
      WHERE merged.workspace_id = ?
        AND merged.month >= ?
        AND merged.month <= ?
        AND merged.eventId = raw.eventId
    )`
    : '';
  const dailyNotExistsParams = rawMeetsDaily
    ? [filter.workspaceId, rawFirstDay.slice(0, 7), dailyLastDay.slice(0, 7)]
    : [];
  // Compacted rows are unique by eventId (compaction de-duplicates); raw rows are de-duplicated
  // among themselves, and dropped when their event is already compacted. Only the raw part (the
  // open period and late arrivals) is windowed, not the whole range.
  const sql = `scoped AS (
  ${dailySql}SELECT ${lakeColumns}
  FROM ${COMPACTED_TABLE}
  WHERE ${compactedWhere.join('\n    AND ')}
  UNION ALL
  SELECT ${lakeColumns}
  FROM (
    SELECT ${lakeColumns}, row_number() OVER (PARTITION BY eventId) AS copy_number
    FROM ${ANALYTICS_TABLE}
    WHERE ${rawWhere.join('\n      AND ')}
  ) raw
  WHERE copy_number = 1
    AND NOT EXISTS (
      SELECT 1
      FROM ${COMPACTED_TABLE} done
      WHERE done.workspace_id = ?
        AND done.dt >= ?
        AND done.dt <= ?
        AND done.eventId = raw.eventId
    )${dailyNotExists}
)`;
  // The compacted copy of a raw event is in its own timestamp's day, as its raw partition is: the
  // NOT EXISTS reads only the compacted days the raw part covers.
  return {
    sql,
    params: [
      ...dailyParams,
      ...compactedParams,
      ...rawParams,
      filter.workspaceId,
      rawFirstDay,
      window.lastDay,
      ...dailyNotExistsParams,
    ],
  };
};

/** The breakdown dimensions of the aggregate query, in GROUPING SETS order. */
export const breakdownDimensions = [
  { name: 'device', column: 'deviceType', alias: 'device_type' },
  { name: 'browser', column: 'browser', alias: 'browser' },
  { name: 'os', column: 'os', alias: 'os' },
  { name: 'geo', column: 'country', alias: 'country' },
  { name: 'referrer', column: 'referrerHost', alias: 'referrer_host' },
  { name: 'campaign', column: 'utmCampaign', alias: 'utm_campaign' },
  { name: 'destination', column: 'resolvedDestinationUrl', alias: 'destination' },
  { name: 'customerEvent', column: 'sdkEventName', alias: 'sdk_event_name' },
  { name: 'rule', column: 'ruleId', alias: 'rule_id' },
  { name: 'variant', column: 'variantId', alias: 'variant_id' },
] as const;
export type BreakdownName = (typeof breakdownDimensions)[number]['name'];

/** The grouping columns in `grouping(...)` order: the bucket first, then the breakdowns. */
export const groupingColumns = ['bucket', ...breakdownDimensions.map((d) => d.column)] as const;

/**
 * One scan for the summary, the timeseries and every breakdown: GROUPING SETS of () (the
 * summary), (bucket) and each dimension. `grouping_id` tells the sets apart (a bit per column,
 * 1 = not grouped, first column most significant; same in Trino and DuckDB).
 */
const bucketUnits = { hour: "'hour'", day: "'day'" } as const;

export const aggregateQuery = (filter: ScopeFilter & { unit: 'hour' | 'day' }): SqlQuery => {
  const cte = scopedCte(filter);
  // The unit is a fixed literal, not a `?`: Athena takes parameters only in WHERE.
  if (!Object.hasOwn(bucketUnits, filter.unit)) throw new Error(`Invalid bucket unit ${JSON.stringify(filter.unit)}`);
  const unit = bucketUnits[filter.unit];
  const dims = breakdownDimensions.map((d) => `${d.column} AS ${d.alias}`).join(',\n  ');
  const sets = ['()', '(bucket)', ...breakdownDimensions.map((d) => `(${d.column})`)].join(', ');
  const sql = `WITH ${cte.sql},
bucketed AS (
  SELECT scoped.*, to_iso8601(date_trunc(${unit}, from_iso8601_timestamp("timestamp"))) AS bucket
  FROM scoped
)
SELECT
  grouping(${groupingColumns.join(', ')}) AS grouping_id,
  bucket AS bucket_start,
  ${dims},
  count_if(eventType = 'click' AND trafficType = 'human') AS human_clicks,
  count_if(eventType = 'click' AND trafficType = 'bot') AS bot_clicks,
  count(DISTINCT CASE WHEN eventType = 'click' THEN visitorId END) AS unique_visitors,
  count_if(eventType = 'launch_view_impression') AS launch_view_impressions,
  count_if(eventType = 'launch_view_auto_open_attempt') AS launch_view_auto_open_attempts,
  count_if(eventType = 'launch_view_primary_click') AS launch_view_primary_clicks,
  count_if(eventType = 'launch_view_secondary_click') AS launch_view_secondary_clicks,
  count_if(eventType = 'install') AS installs,
  count_if(eventType = 'first_open') AS first_opens,
  count_if(eventType = 'customer_event') AS customer_events,
  max("timestamp") AS last_activity_at
FROM bucketed
GROUP BY GROUPING SETS (${sets})`;
  return { sql, params: cte.params };
};

/** Columns of RawAnalyticsEvent / RecentAnalyticsEvent, lower-case aliases (Athena lower-cases names). */
const eventColumns = `eventId AS event_id,
  "timestamp" AS occurred_at,
  eventType AS event_type,
  trafficType AS traffic_type,
  responseKind AS response_kind,
  country AS country,
  deviceType AS device_type,
  platform AS platform,
  referrerHost AS referrer_host,
  resolvedDestinationUrl AS destination,
  sdkEventName AS sdk_event_name,
  sessionId AS session_id,
  clickId AS click_id,
  attributionId AS attribution_id,
  installId AS install_id,
  linkId AS link_id,
  deepLinkAppId AS deep_link_app_id,
  ruleId AS rule_id,
  variantId AS variant_id`;

const positiveInt = (n: number, max: number): number => {
  if (!Number.isInteger(n) || n < 1 || n > max) throw new Error(`Invalid SQL limit ${n}`);
  return n;
};

/** The newest events, newest first (eventId breaks ties so the order is total). */
export const recentEventsQuery = (filter: ScopeFilter, limit: number): SqlQuery => {
  const cte = scopedCte(filter);
  return {
    sql: `WITH ${cte.sql}
SELECT
  ${eventColumns}
FROM scoped
ORDER BY "timestamp" DESC, eventId DESC
LIMIT ${positiveInt(limit, 1000)}`,
    params: cte.params,
  };
};

/** Position of the last event of a page: the next page starts strictly after it (in desc order). */
export interface ExportPosition {
  timestamp: string;
  eventId: string;
}

/** A page of the raw export: `limit` events after `after` in (timestamp desc, eventId desc) order. */
export const exportPageQuery = (filter: ScopeFilter, limit: number, after: ExportPosition | null): SqlQuery => {
  const cte = scopedCte(filter);
  const seek = after ? `WHERE "timestamp" < ? OR ("timestamp" = ? AND eventId < ?)\n` : '';
  return {
    sql: `WITH ${cte.sql}
SELECT
  ${eventColumns}
FROM scoped
${seek}ORDER BY "timestamp" DESC, eventId DESC
LIMIT ${positiveInt(limit, 1001)}`,
    params: after ? [...cte.params, after.timestamp, after.timestamp, after.eventId] : cte.params,
  };
};

/** The app's links by human clicks (then launch view impressions, then id). */
export const topLinksQuery = (filter: ScopeFilter, limit: number): SqlQuery => {
  const cte = scopedCte(filter);
  return {
    sql: `WITH ${cte.sql}
SELECT
  linkId AS link_id,
  max(domain) AS domain,
  max(linkKey) AS link_key,
  count_if(eventType = 'click' AND trafficType = 'human') AS human_clicks,
  count(DISTINCT CASE WHEN eventType = 'click' THEN visitorId END) AS unique_visitors,
  count_if(eventType = 'launch_view_impression') AS launch_view_impressions,
  max("timestamp") AS last_activity_at
FROM scoped
WHERE linkId IS NOT NULL
GROUP BY linkId
ORDER BY human_clicks DESC, launch_view_impressions DESC, link_id ASC
LIMIT ${positiveInt(limit, 1000)}`,
    params: cte.params,
  };
};

/**
 * Conversions per A/B-test variant: the scope's `customer_event` events whose click id is that of
 * a click a variant decided (both in the window), counted once each, by variant and event name.
 */
export const variantConversionsQuery = (filter: ScopeFilter): SqlQuery => {
  const cte = scopedCte(filter);
  return {
    sql: `WITH ${cte.sql},
decided AS (
  SELECT clickId, max(variantId) AS variantId
  FROM scoped
  WHERE eventType = 'click' AND variantId IS NOT NULL AND clickId IS NOT NULL
  GROUP BY clickId
)
SELECT
  decided.variantId AS variant_id,
  scoped.sdkEventName AS sdk_event_name,
  count(DISTINCT scoped.eventId) AS customer_events
FROM scoped
JOIN decided ON decided.clickId = scoped.clickId
WHERE scoped.eventType = 'customer_event'
GROUP BY decided.variantId, scoped.sdkEventName
ORDER BY variant_id, sdk_event_name`,
    params: cte.params,
  };
};

/**
 * The exact click counts of a workspace's links in a span (the closed hours of one day, for
 * settling the link counters: settle-click-counters.ts): each eventId once, compacted and raw
 * alike (the `scoped` rows), humans and bots apart.
 */
export const linkClickCountsQuery = (filter: Omit<ScopeFilter, 'scope' | 'eventType' | 'traffic'>): SqlQuery => {
  const cte = scopedCte({ ...filter, scope: { kind: 'workspace' }, eventType: 'click' });
  return {
    sql: `WITH ${cte.sql}
SELECT
  linkId AS link_id,
  count_if(trafficType = 'human') AS human_clicks,
  count_if(trafficType = 'bot') AS bot_clicks
FROM scoped
WHERE linkId IS NOT NULL
GROUP BY linkId
ORDER BY link_id`,
    params: cte.params,
  };
};
