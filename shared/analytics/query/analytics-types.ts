import type { EventType } from '@shared/events/event-record';

/** Analytics response structures. */
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
  /** Extra keys (allowed by the contract): app events in the selection. */
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
  /** Variant rows of a link with an A/B test: the customer events whose click this variant decided. */
  customerEvents?: number;
  customerEventBreakdown?: BreakdownRow[];
}

/**
 * The contract types these event fields as strings (not "or null"): a field the event does not
 * have is left out rather than sent as null.
 */
export interface RecentAnalyticsEvent {
  eventId: string;
  eventType: EventType;
  responseKind?: string;
  country?: string;
  deviceType?: string;
  platform?: string;
  sdkEventName?: string;
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

/** A link's analytics: also the clicks each of its redirect rules and A/B-test variants decided (key: the id). */
export interface LinkAnalyticsData extends AnalyticsData {
  ruleBreakdown: BreakdownRow[];
  variantBreakdown: BreakdownRow[];
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
  country?: string;
  deviceType?: string;
  platform?: string;
  referrerHost?: string;
  resolvedDestinationUrl?: string;
  sdkEventName?: string;
  sessionId?: string;
  clickId?: string;
  attributionId?: string;
  installId?: string;
  /** Extra keys: which link / app the event belongs to. */
  linkId?: string;
  deepLinkAppId?: string;
  /** The redirect rule / A/B-test variant that decided a click; null when none did. */
  ruleId: string | null;
  variantId: string | null;
  /**
   * Extra key: how the event came in: `edge` (a click and the launch view's events), `api` (the
   * client API with an app's key), `browser` (the client API with a browser's publishable key:
   * anyone can send those).
   */
  source?: 'edge' | 'api' | 'browser';
}
