import { eventTypes } from '@shared/events/event-record';
import * as z from '@shared/schemas/zod-mini';

export const analyticsRanges = ['24h', '7d', '30d', '90d'] as const;
export type AnalyticsRange = (typeof analyticsRanges)[number];
export const trafficFilters = ['human', 'all', 'bots'] as const;
export type TrafficFilter = (typeof trafficFilters)[number];

const rangeSchema = z._default(z.enum(analyticsRanges), '7d');

/** `range` and `traffic`: defaults 7d / human; anything else is 400. */
export const analyticsQuerySchema = z.object({
  range: rangeSchema,
  traffic: z._default(z.enum(trafficFilters), 'human'),
});
export type AnalyticsQuery = z.infer<typeof analyticsQuerySchema>;

export const PAGE_LIMIT_MAX = 100;
export const PAGE_LIMIT_DEFAULT = 25;

/** `limit`: integer, 1 to 100, default 25, larger values capped to 100. */
export const pageLimitSchema = z._default(
  z.pipe(
    z
      .pipe(z.string().check(z.regex(/^\d{1,9}$/, 'must be an integer from 1 to 100')), z.transform(Number))
      .check(z.refine((n) => n >= 1, 'must be at least 1')),
    z.transform((n: number) => Math.min(n, PAGE_LIMIT_MAX)),
  ),
  PAGE_LIMIT_DEFAULT,
);

export const eventTypeFilters = ['all', ...eventTypes] as const;
export type EventTypeFilter = (typeof eventTypeFilters)[number];

/** GET /v1/analytics/events: limit, cursor, range, eventType. */
export const analyticsEventsQuerySchema = z.object({
  limit: pageLimitSchema,
  /** Empty is the first page, as on the lists. */
  cursor: z.optional(z.string().check(z.maxLength(4096))),
  range: rangeSchema,
  eventType: z._default(z.enum(eventTypeFilters), 'all'),
});
export type AnalyticsEventsQuery = z.infer<typeof analyticsEventsQuerySchema>;
