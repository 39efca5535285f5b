import { blankEvent, eventTypes, type EventRecord, type EventType } from '@shared/events/event-record';

/**
 * A known set of events for analytics tests, generated deterministically (seeded) around a
 * fixed `now`, plus plain-TypeScript expectations computed from the events themselves (no SQL).
 */
export interface FixtureLink {
  workspaceId: string;
  linkId: string;
  linkType: 'SHORTLINK' | 'DEEPLINK';
  deepLinkAppId: string | null;
  domain: string;
  key: string;
  utmCampaign: string | null;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const seeded = (seed: number) => {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
};

const countries = ['US', 'DE', 'FR', 'JP', null];
const devices = ['mobile', 'desktop', 'tablet', null];
const browsers = ['Chrome', 'Safari', 'Firefox', null];
const oses = ['iOS', 'Android', 'Windows', 'macOS', null];
const referrers = ['google.com', 't.co', 'news.example.org', null];
const sdkNames = ['purchase', 'signup', 'add_to_cart'];
const weightedTypes: EventType[] = [
  'click',
  'click',
  'click',
  'click',
  'click',
  'click',
  ...eventTypes.filter((t) => t !== 'click'),
];

/** Range starts as the product defines them (re-derived here, independently of the service). */
export const rangeStart = (range: '24h' | '7d' | '30d' | '90d', now: Date): number => {
  if (range === '24h') return Math.floor(now.getTime() / HOUR) * HOUR - 23 * HOUR;
  const days = { '7d': 7, '30d': 30, '90d': 90 }[range];
  return Math.floor(now.getTime() / DAY) * DAY - (days - 1) * DAY;
};

export interface FixtureOptions {
  now: Date;
  links: FixtureLink[];
  perLink: number;
  seed?: number;
}

/** Events spread over 100 days before `now`, plus events exactly on and just before every range edge. */
export const generateFixtureEvents = ({ now, links, perLink, seed = 42 }: FixtureOptions): EventRecord[] => {
  const random = seeded(seed);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
  const events: EventRecord[] = [];
  let n = 0;
  const make = (link: FixtureLink, at: number, type: EventType = pick(weightedTypes), bot?: boolean): EventRecord => {
    const isBot = bot ?? (type === 'click' && random() < 0.25);
    n += 1;
    return {
      ...blankEvent({
        eventId: `evt-${String(n).padStart(5, '0')}-${Math.floor(random() * 1e6)}`,
        timestamp: new Date(at).toISOString(),
        eventType: type,
        workspaceId: link.workspaceId,
        trafficType: isBot ? 'bot' : 'human',
      }),
      linkId: link.linkId,
      deepLinkAppId: link.deepLinkAppId,
      domain: link.domain,
      linkKey: link.key,
      linkType: link.linkType,
      visitorId: `visitor-${Math.floor(random() * 12)}`,
      country: pick(countries),
      deviceType: isBot ? 'bot' : pick(devices),
      platform: pick(['ios', 'android', 'web', null]),
      browser: pick(browsers),
      os: pick(oses),
      referrerHost: pick(referrers),
      resolvedDestinationUrl:
        type === 'click' ? pick([`https://example.com/${link.key}`, `https://m.example.com/${link.key}`, null]) : null,
      responseKind:
        type === 'click'
          ? pick(['redirect', 'launch_view', 'preview'])
          : type.startsWith('launch_view')
            ? 'launch_view'
            : 'api',
      sdkEventName: type === 'customer_event' ? pick(sdkNames) : null,
      sessionId: `session-${Math.floor(random() * 50)}`,
      clickId: type === 'click' ? `click-${n}` : null,
      attributionId: type === 'click' || type === 'install' ? `attr-${n}` : null,
      installId: type === 'install' || type === 'first_open' ? `install-${n}` : null,
      utmCampaign: link.utmCampaign,
      properties: type === 'customer_event' ? JSON.stringify({ value: n }) : null,
    };
  };
  const nowMs = now.getTime();
  for (const link of links) {
    for (let i = 0; i < perLink; i++) events.push(make(link, nowMs - Math.floor(random() * 100 * DAY)));
    for (const range of ['24h', '7d', '30d', '90d'] as const) {
      const start = rangeStart(range, now);
      events.push(
        make(link, start, 'click'),
        make(link, start - 1, 'click'),
        make(link, start + 1, 'launch_view_impression'),
      );
    }
    events.push(
      make(link, nowMs, 'click', false),
      make(link, nowMs - 2 * HOUR, 'click', true),
      make(link, nowMs - 1, 'customer_event'),
    );
  }
  return events;
};

// ---------------------------------------------------------------- expectations, in plain TS

export type Range = '24h' | '7d' | '30d' | '90d';
export type Traffic = 'human' | 'all' | 'bots';

const inTraffic = (e: EventRecord, traffic: Traffic) =>
  traffic === 'all' || (traffic === 'human' ? e.trafficType === 'human' : e.trafficType === 'bot');

/** The events a request sees: unique by eventId, in the range, of the traffic, matching `where`. */
export const selectEvents = (
  events: EventRecord[],
  o: { now: Date; range: Range; traffic?: Traffic; where: (e: EventRecord) => boolean },
) => {
  const start = rangeStart(o.range, o.now);
  const seen = new Set<string>();
  return events.filter((e) => {
    if (seen.has(e.eventId)) return false;
    const t = Date.parse(e.timestamp);
    const keep =
      t >= start && t <= o.now.getTime() && o.where(e) && (o.traffic === undefined || inTraffic(e, o.traffic));
    if (keep) seen.add(e.eventId);
    return keep;
  });
};

const countWhere = (events: EventRecord[], f: (e: EventRecord) => boolean) => events.filter(f).length;
const distinct = (values: Array<string | null>) => new Set(values.filter((v) => v !== null)).size;
const clicks = (events: EventRecord[]) => events.filter((e) => e.eventType === 'click');

export const expectedSummary = (selected: EventRecord[]) => {
  const humanClicks = countWhere(selected, (e) => e.eventType === 'click' && e.trafficType === 'human');
  const botClicks = countWhere(selected, (e) => e.eventType === 'click' && e.trafficType === 'bot');
  const latest = selected
    .map((e) => e.timestamp)
    .sort()
    .at(-1);
  return {
    humanClicks,
    botClicks,
    totalClicks: humanClicks + botClicks,
    uniqueVisitors: distinct(clicks(selected).map((e) => e.visitorId)),
    lastActivityAt: latest ?? null,
    launchViewImpressions: countWhere(selected, (e) => e.eventType === 'launch_view_impression'),
    launchViewAutoOpenAttempts: countWhere(selected, (e) => e.eventType === 'launch_view_auto_open_attempt'),
    launchViewPrimaryClicks: countWhere(selected, (e) => e.eventType === 'launch_view_primary_click'),
    launchViewSecondaryClicks: countWhere(selected, (e) => e.eventType === 'launch_view_secondary_click'),
    installs: countWhere(selected, (e) => e.eventType === 'install'),
    firstOpens: countWhere(selected, (e) => e.eventType === 'first_open'),
    customerEvents: countWhere(selected, (e) => e.eventType === 'customer_event'),
  };
};

export const expectedTimeseries = (selected: EventRecord[], range: Range, now: Date) => {
  const size = range === '24h' ? HOUR : DAY;
  const count = { '24h': 24, '7d': 7, '30d': 30, '90d': 90 }[range];
  const first = rangeStart(range, now);
  return Array.from({ length: count }, (_, i) => {
    const from = first + i * size;
    const inBucket = clicks(selected).filter(
      (e) => Date.parse(e.timestamp) >= from && Date.parse(e.timestamp) < from + size,
    );
    const human = inBucket.filter((e) => e.trafficType === 'human').length;
    return {
      bucketStart: new Date(from).toISOString(),
      humanClicks: human,
      botClicks: inBucket.length - human,
      totalClicks: inBucket.length,
      uniqueVisitors: distinct(inBucket.map((e) => e.visitorId)),
    };
  });
};

/** key -> count, sorted by count desc then key; percentages of the breakdown's total. */
export const expectedBreakdown = (values: string[]) => {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  const total = values.length;
  return [...counts]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([key, count]) => ({ key, count, percentage: (count / total) * 100 }));
};

export const expectedBreakdowns = (selected: EventRecord[]) => {
  const c = clicks(selected);
  return {
    deviceBreakdown: expectedBreakdown(c.map((e) => e.deviceType ?? 'unknown')),
    browserBreakdown: expectedBreakdown(c.map((e) => e.browser ?? 'unknown')),
    osBreakdown: expectedBreakdown(c.map((e) => e.os ?? 'unknown')),
    geoBreakdown: expectedBreakdown(c.map((e) => e.country ?? 'unknown')),
    referrerBreakdown: expectedBreakdown(c.map((e) => e.referrerHost ?? 'direct')),
    campaignBreakdown: expectedBreakdown(c.map((e) => e.utmCampaign ?? 'none')),
    destinationBreakdown: expectedBreakdown(c.map((e) => e.resolvedDestinationUrl ?? 'unknown')),
    customerEvents: expectedBreakdown(
      selected.filter((e) => e.eventType === 'customer_event').map((e) => e.sdkEventName ?? 'unnamed'),
    ),
  };
};

export const newestFirst = (a: EventRecord, b: EventRecord) =>
  a.timestamp !== b.timestamp
    ? a.timestamp < b.timestamp
      ? 1
      : -1
    : a.eventId < b.eventId
      ? 1
      : a.eventId > b.eventId
        ? -1
        : 0;

/** The contract types these fields as strings: an event without one leaves it out (never null). */
const dropNulls = (value: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null));

export const expectedRecent = (selected: EventRecord[], limit: number) =>
  [...selected]
    .sort(newestFirst)
    .slice(0, limit)
    .map((e) =>
      dropNulls({
        eventId: e.eventId,
        eventType: e.eventType,
        responseKind: e.responseKind,
        country: e.country,
        deviceType: e.deviceType,
        platform: e.platform,
        sdkEventName: e.sdkEventName,
        occurredAt: e.timestamp,
        isBot: e.trafficType === 'bot',
      }),
    );

export { dropNulls };

export const expectedTopLinks = (selected: EventRecord[], limit: number) => {
  const byLink = new Map<string, EventRecord[]>();
  for (const e of selected) if (e.linkId) byLink.set(e.linkId, [...(byLink.get(e.linkId) ?? []), e]);
  return [...byLink]
    .map(([linkId, evs]) => {
      const s = expectedSummary(evs);
      return {
        linkId,
        domain: evs[0]!.domain,
        linkKey: evs[0]!.linkKey,
        shortLink: `https://${evs[0]!.domain}/${evs[0]!.linkKey}`,
        humanClicks: s.humanClicks,
        uniqueVisitors: s.uniqueVisitors,
        launchViewImpressions: s.launchViewImpressions,
        lastActivityAt: s.lastActivityAt,
      };
    })
    .sort(
      (a, b) =>
        b.humanClicks - a.humanClicks ||
        b.launchViewImpressions - a.launchViewImpressions ||
        (a.linkId < b.linkId ? -1 : 1),
    )
    .slice(0, limit);
};
