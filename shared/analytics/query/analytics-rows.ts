import type { EventType } from '@shared/events/event-record';
import { shortLinkOf } from '@shared/links/link-record';
import { required } from '@shared/util/required';
import type { AnalyticsRow } from './analytics-engine';
import type {
  AnalyticsSummary,
  BreakdownRow,
  LaunchViewMetrics,
  RawAnalyticsEvent,
  RecentAnalyticsEvent,
  TimeseriesPoint,
  TopDeepLink,
} from './analytics-types';
import { breakdownDimensions, groupingColumns, type BreakdownName } from './analytics-sql';
import { bucketLabel, type AnalyticsWindow } from './analytics-window';

/** Rows of each breakdown kept (the largest); percentages are still of the whole. */
export const BREAKDOWN_ROWS_MAX = 50;

const int = (value: string | null | undefined): number => (value ? Number.parseInt(value, 10) : 0);
const iso = (value: string | null | undefined): string | null => (value ? new Date(value).toISOString() : null);

/** `percentage` = count / total * 100, rounded to 2 decimals. */
export const percentageOf = (count: number, total: number): number =>
  total === 0 ? 0 : Math.round((count * 10_000) / total) / 100;

const allGrouped = (1 << groupingColumns.length) - 1;
/** grouping_id of the set that groups by column `i` alone (bit set = column not grouped). */
const groupingIdOf = (column: (typeof groupingColumns)[number]) =>
  allGrouped - (1 << (groupingColumns.length - 1 - groupingColumns.indexOf(column)));

/**
 * Country names come from ICU, whose data loads when the first Intl.DisplayNames is built
 * (about 10 ms): built on first use, not at module init, so a cold start that is answered from
 * the analytics cache never pays for it.
 */
let regionNames: Intl.DisplayNames | undefined;
const countryLabel = (code: string): string => {
  try {
    regionNames ??= new Intl.DisplayNames(['en'], { type: 'region' });
    return regionNames.of(code) ?? code;
  } catch {
    return code;
  }
};
const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Key and label of a breakdown value; a missing value gets a named key of its own. */
const keyAndLabel: Record<BreakdownName, (value: string | null) => { key: string; label: string }> = {
  device: (v) => ({ key: v ?? 'unknown', label: capitalize(v ?? 'unknown') }),
  browser: (v) => ({ key: v ?? 'unknown', label: v ?? 'Unknown' }),
  os: (v) => ({ key: v ?? 'unknown', label: v ?? 'Unknown' }),
  geo: (v) => ({ key: v ?? 'unknown', label: v ? countryLabel(v) : 'Unknown' }),
  referrer: (v) => ({ key: v ?? 'direct', label: v ?? 'Direct' }),
  campaign: (v) => ({ key: v ?? 'none', label: v ?? 'No campaign' }),
  destination: (v) => ({ key: v ?? 'unknown', label: v ?? 'Unknown' }),
  customerEvent: (v) => ({ key: v ?? 'unnamed', label: v ?? 'Unnamed' }),
  // Clicks no rule (variant) decided are left out (`breakdownFrom`); the label is the id until
  // `withDestinationLabels` names the URL.
  rule: (v) => ({ key: v ?? '', label: v ?? '' }),
  variant: (v) => ({ key: v ?? '', label: v ?? '' }),
};

/** Breakdowns whose rows are only the clicks a value decided (no row for "none"). */
const DECIDED_ONLY: ReadonlySet<BreakdownName> = new Set(['rule', 'variant']);

const clicksOf = (row: AnalyticsRow) => int(row.human_clicks) + int(row.bot_clicks);

/** Breakdowns count click events; `customerEvent` counts customer_event events by name. */
export const breakdownFrom = (rows: AnalyticsRow[], name: BreakdownName): BreakdownRow[] => {
  const dimension = required(
    breakdownDimensions.find((d) => d.name === name),
    `the breakdown dimension ${name}`,
  );
  const id = groupingIdOf(dimension.column);
  const counts = new Map<string, { label: string; count: number }>();
  for (const row of rows) {
    if (int(row.grouping_id) !== id) continue;
    const count = name === 'customerEvent' ? int(row.customer_events) : clicksOf(row);
    if (count === 0) continue;
    if (DECIDED_ONLY.has(name) && !row[dimension.alias]) continue;
    const { key, label } = keyAndLabel[name](row[dimension.alias] ?? null);
    const entry = counts.get(key) ?? { label, count: 0 };
    entry.count += count;
    counts.set(key, entry);
  }
  const total = [...counts.values()].reduce((sum, e) => sum + e.count, 0);
  return [...counts]
    .map(([key, e]) => ({ key, label: e.label, count: e.count, percentage: percentageOf(e.count, total) }))
    .sort((a, b) => b.count - a.count || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .slice(0, BREAKDOWN_ROWS_MAX);
};

export const summaryFrom = (rows: AnalyticsRow[]): AnalyticsSummary => {
  const total = rows.find((r) => int(r.grouping_id) === allGrouped) ?? {};
  const humanClicks = int(total.human_clicks);
  const botClicks = int(total.bot_clicks);
  return {
    humanClicks,
    uniqueVisitors: int(total.unique_visitors),
    botClicks,
    totalClicks: humanClicks + botClicks,
    lastActivityAt: iso(total.last_activity_at),
    launchViewImpressions: int(total.launch_view_impressions),
    launchViewAutoOpenAttempts: int(total.launch_view_auto_open_attempts),
    launchViewPrimaryClicks: int(total.launch_view_primary_clicks),
    launchViewSecondaryClicks: int(total.launch_view_secondary_clicks),
    installs: int(total.installs),
    firstOpens: int(total.first_opens),
    customerEvents: int(total.customer_events),
  };
};

export const launchViewMetricsOf = (summary: AnalyticsSummary): LaunchViewMetrics => ({
  impressions: summary.launchViewImpressions,
  autoOpenAttempts: summary.launchViewAutoOpenAttempts,
  primaryClicks: summary.launchViewPrimaryClicks,
  secondaryClicks: summary.launchViewSecondaryClicks,
});

/** Every bucket of the window, oldest first, zero where no event fell. */
export const timeseriesFrom = (rows: AnalyticsRow[], window: AnalyticsWindow): TimeseriesPoint[] => {
  const id = groupingIdOf('bucket');
  const byBucket = new Map<string, AnalyticsRow>();
  for (const row of rows)
    if (int(row.grouping_id) === id && row.bucket_start) byBucket.set(new Date(row.bucket_start).toISOString(), row);
  return window.buckets.map((bucketStart) => {
    const row = byBucket.get(bucketStart) ?? {};
    const humanClicks = int(row.human_clicks);
    const botClicks = int(row.bot_clicks);
    return {
      bucketStart,
      label: bucketLabel(bucketStart, window.unit),
      humanClicks,
      botClicks,
      totalClicks: humanClicks + botClicks,
      uniqueVisitors: int(row.unique_visitors),
    };
  });
};

/** Drops the null and undefined fields of an object (string fields the contract does not let be null). */
const withoutNulls = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined)) as T;

export const recentEventFrom = (row: AnalyticsRow): RecentAnalyticsEvent =>
  withoutNulls({
    eventId: required(row.event_id, "an event row's event_id"),
    eventType: row.event_type as EventType,
    responseKind: row.response_kind ?? null,
    country: row.country ?? null,
    deviceType: row.device_type ?? null,
    platform: row.platform ?? null,
    sdkEventName: row.sdk_event_name ?? null,
    occurredAt: required(iso(row.occurred_at), "an event row's occurred_at"),
    isBot: row.traffic_type === 'bot',
  } as RecentAnalyticsEvent);

/** How an event came in, from its `responseKind`: the edge's answers, `api`, `browser` (RawAnalyticsEvent.source). */
const sourceOf = (responseKind: string | null | undefined): RawAnalyticsEvent['source'] | null =>
  responseKind === 'browser' || responseKind === 'api' ? responseKind : responseKind ? 'edge' : null;

export const rawEventFrom = (row: AnalyticsRow): RawAnalyticsEvent => ({
  ...withoutNulls({
    eventId: required(row.event_id, "an event row's event_id"),
    timestamp: required(row.occurred_at, "an event row's occurred_at"),
    eventType: row.event_type as EventType,
    trafficType: row.traffic_type === 'bot' ? 'bot' : 'human',
    country: row.country ?? null,
    deviceType: row.device_type ?? null,
    platform: row.platform ?? null,
    referrerHost: row.referrer_host ?? null,
    resolvedDestinationUrl: row.destination ?? null,
    sdkEventName: row.sdk_event_name ?? null,
    sessionId: row.session_id ?? null,
    clickId: row.click_id ?? null,
    attributionId: row.attribution_id ?? null,
    installId: row.install_id ?? null,
    linkId: row.link_id ?? null,
    deepLinkAppId: row.deep_link_app_id ?? null,
    source: sourceOf(row.response_kind),
  } as Omit<RawAnalyticsEvent, 'ruleId' | 'variantId'>),
  ruleId: row.rule_id ?? null,
  variantId: row.variant_id ?? null,
});

/**
 * Each variant row with the conversions of its clicks: `customerEvents` (their count) and
 * `customerEventBreakdown` (by event name), from `variantConversionsQuery` rows.
 */
export const withVariantConversions = (rows: BreakdownRow[], conversions: AnalyticsRow[]): BreakdownRow[] =>
  rows.map((row) => {
    const mine = conversions.filter((c) => c.variant_id === row.key);
    const total = mine.reduce((sum, c) => sum + int(c.customer_events), 0);
    return {
      ...row,
      customerEvents: total,
      customerEventBreakdown: mine.map((c) => {
        const count = int(c.customer_events);
        const { key, label } = keyAndLabel.customerEvent(c.sdk_event_name ?? null);
        return { key, label, count, percentage: percentageOf(count, total) };
      }),
    };
  });

/**
 * A rule or variant breakdown labelled with each id's destination URL on the link now (ids
 * survive edits and reordering); an id the link no longer has keeps the id as its label.
 */
export const withDestinationLabels = (
  rows: BreakdownRow[],
  items: ReadonlyArray<{ id: string; url: string }> | null | undefined,
): BreakdownRow[] =>
  rows.map((row) => ({ ...row, label: items?.find((item) => item.id === row.key)?.url ?? row.label }));

export const topLinkFrom = (row: AnalyticsRow): TopDeepLink => ({
  // The top-links query groups by link_id, so a real row always has one.
  linkId: row.link_id ?? '',
  domain: row.domain ?? '',
  linkKey: row.link_key ?? '',
  shortLink: shortLinkOf(row.domain ?? '', row.link_key ?? ''),
  humanClicks: int(row.human_clicks),
  uniqueVisitors: int(row.unique_visitors),
  launchViewImpressions: int(row.launch_view_impressions),
  lastActivityAt: iso(row.last_activity_at),
});
