/**
 * The analytics views' state as the address holds it (`?range=30d&traffic=all&type=click`), so a
 * view can be shared: what the API's filters accept, with its defaults left out of the address.
 */
import type { AnalyticsEventsQuery, AnalyticsQuery } from '@linkservice/sdk';

export type Range = NonNullable<AnalyticsQuery['range']>;
export type Traffic = NonNullable<AnalyticsQuery['traffic']>;
export type EventType = NonNullable<AnalyticsEventsQuery['eventType']>;

export const RANGES: readonly Range[] = ['24h', '7d', '30d', '90d'];
export const TRAFFIC: readonly (readonly [Traffic, string])[] = [
  ['human', 'Human'],
  ['all', 'All'],
  ['bots', 'Bots'],
];
export const EVENT_TYPES: readonly (readonly [EventType, string])[] = [
  ['all', 'All events'],
  ['click', 'Clicks'],
  ['launch_view_impression', 'Launch view impressions'],
  ['launch_view_auto_open_attempt', 'Launch view auto-open attempts'],
  ['launch_view_primary_click', 'Launch view primary clicks'],
  ['launch_view_secondary_click', 'Launch view secondary clicks'],
  ['install', 'Installs'],
  ['first_open', 'First opens'],
  ['customer_event', 'Customer events'],
];

const DEFAULT_RANGE: Range = '7d';
const DEFAULT_TRAFFIC: Traffic = 'human';
const DEFAULT_EVENT_TYPE: EventType = 'all';

export interface AnalyticsParams {
  range: Range;
  traffic: Traffic;
  eventType: EventType;
}

export const analyticsParamsOf = (search: string): AnalyticsParams => {
  const params = new URLSearchParams(search);
  const range = params.get('range');
  const traffic = params.get('traffic');
  const type = params.get('type');
  return {
    range: RANGES.find((r) => r === range) ?? DEFAULT_RANGE,
    traffic: TRAFFIC.find(([t]) => t === traffic)?.[0] ?? DEFAULT_TRAFFIC,
    eventType: EVENT_TYPES.find(([t]) => t === type)?.[0] ?? DEFAULT_EVENT_TYPE,
  };
};

/** The query string of a view (`?range=30d`), defaults left out; '' for the default view. */
export const analyticsSearchOf = (p: Partial<AnalyticsParams>): string => {
  const params = new URLSearchParams();
  if (p.range && p.range !== DEFAULT_RANGE) params.set('range', p.range);
  if (p.traffic && p.traffic !== DEFAULT_TRAFFIC) params.set('traffic', p.traffic);
  if (p.eventType && p.eventType !== DEFAULT_EVENT_TYPE) params.set('type', p.eventType);
  const text = params.toString();
  return text ? `?${text}` : '';
};
