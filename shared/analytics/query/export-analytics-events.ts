import type { Pagination } from '@shared/http/api-types';
import { decodeCursor, encodeCursor } from '@shared/pagination/cursor';
import { countWithinBudget } from '@shared/pagination/response-budget';
import { getAnalyticsEngine } from './analytics-backend';
import { analyticsDeadline } from './analytics-engine';
import { rawEventFrom } from './analytics-rows';
import type { AnalyticsEventsQuery } from './analytics-schemas';
import type { RawAnalyticsEvent } from './analytics-types';
import { exportPageQuery, type ExportPosition } from './analytics-sql';
import { analyticsWindow, type AnalyticsWindow } from './analytics-window';
import { lakeReadBounds } from './raw-read';

/** Cursor position: the window of the first page (so later pages see the same span) and the last event. */
interface ExportCursor {
  window: Pick<AnalyticsWindow, 'start' | 'end' | 'firstDay' | 'lastDay'>;
  after: ExportPosition;
}

export interface ExportPage {
  data: RawAnalyticsEvent[];
  pagination: Pagination;
}

/**
 * GET /v1/analytics/events: the workspace's raw events, newest first (timestamp desc, eventId
 * desc: a total order), `limit` per page, fewer when a page would not fit Lambda's response limit. The signed cursor carries the first page's window and
 * the last event returned, so walking every page yields each event exactly once.
 */
export const exportAnalyticsEvents = async (
  workspaceId: string,
  query: AnalyticsEventsQuery,
  now = new Date(),
): Promise<ExportPage> => {
  const deadline = analyticsDeadline();
  const cursorQuery = { route: 'analytics-events', workspaceId, range: query.range, eventType: query.eventType };
  const position = query.cursor ? await decodeCursor<ExportCursor>(query.cursor, cursorQuery) : null;
  const window = position?.window ?? analyticsWindow(query.range, now);
  const engine = getAnalyticsEngine();
  // Raw partitions only past the compaction watermark (raw-read.ts); pages of one walk may see
  // different watermarks, and each event is raw or compacted, counted once either way.
  const { rawFrom, mergedBefore } = await lakeReadBounds(engine, now);
  const filter = {
    workspaceId,
    scope: { kind: 'workspace' } as const,
    window,
    eventType: query.eventType === 'all' ? undefined : query.eventType,
    rawFrom,
    mergedBefore,
  };
  const rows = await engine.query(exportPageQuery(filter, query.limit + 1, position?.after ?? null), {
    workspaceId,
    firstDay: window.firstDay,
    lastDay: window.lastDay,
    rawFrom,
    mergedBefore,
    deadline,
  });
  const wanted = rows.slice(0, query.limit).map(rawEventFrom);
  // The page also ends before its response could pass Lambda's 6 MB limit (response-budget.ts).
  const data = wanted.slice(0, countWithinBudget(wanted));
  const hasMore = rows.length > data.length;
  const last = data.at(-1);
  const nextCursor =
    hasMore && last
      ? await encodeCursor(
          {
            window: { start: window.start, end: window.end, firstDay: window.firstDay, lastDay: window.lastDay },
            after: { timestamp: last.timestamp, eventId: last.eventId },
          } satisfies ExportCursor,
          cursorQuery,
        )
      : null;
  return { data, pagination: { limit: query.limit, nextCursor, hasMore } };
};
