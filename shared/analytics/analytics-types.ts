import type { EventType } from '@shared/events/event-record';

/** Response structures of spec 2.8. */
export interface AnalyticsSummary {
  humanClicks: number;
  uniqueVisitors: number;
  botClicks: number;
  totalClicks: number;
  lastActivityAt: string | null;
  launchViewImpressions: number;
  launchViewAutoOpenAttempts: number;
  launchViewPrimaryClicks: number;
  launchViewSecondaryClicks: number;
  /** Extra keys (allowed by spec 2.8): app events in the selection. */
  installs: number;
  firstOpens: number;
  customerEvents: number;
}

export interface TimeseriesPoint {
  bucketStart: string;
  label: string;
  humanClicks: number;
  botClicks: number;
  totalClicks: number;
  uniqueVisitors: number;
}

export interface BreakdownRow {
  key: string;
  label: string;
  count: number;
  percentage: number;
}

export interface RecentAnalyticsEvent {
  eventId: string;
  eventType: EventType;
  responseKind: string | null;
  country: string | null;
  deviceType: string | null;
  platform: string | null;
  sdkEventName: string | null;
  occurredAt: string;
  isBot: boolean;
}

export interface LaunchViewMetrics {
  impressions: number;
  autoOpenAttempts: number;
  primaryClicks: number;
  secondaryClicks: number;
}

export interface AnalyticsData {
  summary: AnalyticsSummary;
  timeseries: TimeseriesPoint[];
  recentEvents: RecentAnalyticsEvent[];
  launchViewMetrics: LaunchViewMetrics;
  customerEvents: BreakdownRow[];
  deviceBreakdown: BreakdownRow[];
  browserBreakdown: BreakdownRow[];
  osBreakdown: BreakdownRow[];
  geoBreakdown: BreakdownRow[];
  referrerBreakdown: BreakdownRow[];
  campaignBreakdown: BreakdownRow[];
  destinationBreakdown: BreakdownRow[];
}

export interface TopDeepLink {
  linkId: string;
  domain: string;
  linkKey: string;
  shortLink: string;
  humanClicks: number;
  uniqueVisitors: number;
  launchViewImpressions: number;
  lastActivityAt: string | null;
}

export interface DeepLinkAppAnalyticsData extends AnalyticsData {
  topLinks: TopDeepLink[];
}

export interface RawAnalyticsEvent {
  /** Extra key: the event's id, stable across pages. */
  eventId: string;
  timestamp: string;
  eventType: EventType;
  trafficType: 'human' | 'bot';
  country: string | null;
  deviceType: string | null;
  platform: string | null;
  referrerHost: string | null;
  resolvedDestinationUrl: string | null;
  sdkEventName: string | null;
  sessionId: string | null;
  clickId: string | null;
  attributionId: string | null;
  installId: string | null;
  /** Extra keys: which link / app the event belongs to. */
  linkId: string | null;
  deepLinkAppId: string | null;
}
