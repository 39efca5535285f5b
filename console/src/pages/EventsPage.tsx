import type { AnalyticsEventsQuery, RawAnalyticsEvent } from '@linkservice/sdk';
import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { useLocation, useSearch } from 'wouter';
import { analyticsParamsOf, analyticsSearchOf, EVENT_TYPES, RANGES, type AnalyticsParams } from '../analytics-params';
import { api } from '../api';
import { ErrorNotice } from '../components/ErrorNotice';
import { RadioGroup } from '../components/RadioGroup';
import { saveCsv } from '../download';
import { formatDate } from '../format';
import { Pager } from '../components/Pager';

const PAGE_SIZE = 50;

/** The CSV export's first columns; any other field the API returns follows, by name. */
const LEADING_COLUMNS = [
  'eventId',
  'timestamp',
  'eventType',
  'trafficType',
  'linkId',
  'country',
  'deviceType',
  'platform',
  'referrerHost',
  'resolvedDestinationUrl',
  'sdkEventName',
] as const;

const cellOf = (value: unknown): string =>
  value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);

/** Events as CSV rows: a column for every field any of them has, a row per event, as the API gave it. */
export const eventRows = (events: readonly RawAnalyticsEvent[]): string[][] => {
  const seen = new Set<string>(events.flatMap((e) => Object.keys(e)));
  const columns = [
    ...LEADING_COLUMNS.filter((c) => seen.has(c)),
    ...[...seen].filter((c) => !(LEADING_COLUMNS as readonly string[]).includes(c)).sort(),
  ];
  return [columns, ...events.map((e) => columns.map((c) => cellOf(e[c])))];
};

/**
 * The raw event explorer: the workspace's events, newest first, with the API's filters (range and
 * event type, in the address), a page at a time, and the whole current query as CSV.
 */
export const EventsPage = () => {
  const [, navigate] = useLocation();
  const params = analyticsParamsOf(useSearch());
  // The pages opened so far belong to the filters of the address they were opened under: another
  // address (a filter changed, the navigation's link, a shared address) starts at the first page,
  // or its first request would carry a cursor of other filters.
  const address = analyticsSearchOf({ range: params.range, eventType: params.eventType });
  const [paging, setPaging] = useState<{ address: string; cursors: (string | undefined)[] }>({
    address,
    cursors: [undefined],
  });
  const cursors = paging.address === address ? paging.cursors : [undefined];
  const setCursors = (update: (old: (string | undefined)[]) => (string | undefined)[]) => {
    setPaging((old) => ({ address, cursors: update(old.address === address ? old.cursors : [undefined]) }));
  };
  const headingId = useId();
  useEffect(() => {
    document.title = 'Events · Link service console';
  }, []);
  const setParams = (next: Partial<AnalyticsParams>) => {
    setPaging({ address: '', cursors: [undefined] });
    const merged = { ...params, ...next };
    navigate(`/events${analyticsSearchOf({ range: merged.range, eventType: merged.eventType })}`, { replace: true });
  };
  const filter: AnalyticsEventsQuery = { range: params.range, eventType: params.eventType };
  const cursor = cursors[cursors.length - 1];
  const events = useQuery({
    queryKey: ['events', filter, cursor],
    queryFn: async () =>
      await api.analytics.events({ ...filter, limit: PAGE_SIZE, ...(cursor === undefined ? {} : { cursor }) }),
    placeholderData: keepPreviousData,
  });
  const exportCsv = useMutation({
    mutationFn: async () => {
      const all: RawAnalyticsEvent[] = [];
      for await (const event of api.analytics.events({ ...filter, limit: 100 })) all.push(event);
      saveCsv(eventRows(all), `events-${params.range}-${params.eventType}.csv`);
      return all.length;
    },
  });
  const rows = events.data?.data ?? [];

  return (
    <section className="page">
      <div className="page-head">
        <h1 id={headingId}>Events</h1>
        <button
          type="button"
          className="secondary"
          disabled={exportCsv.isPending}
          onClick={() => {
            exportCsv.mutate();
          }}
        >
          Export CSV
        </button>
      </div>
      <p className="help">
        Every event of the workspace as it was recorded: clicks, launch views, installs, first opens and customer
        events. The export holds every event of the current filters, not only this page.
      </p>
      <div className="view-controls">
        <RadioGroup
          label="Range"
          options={RANGES.map((r) => [r, r] as const)}
          value={params.range}
          onChange={(range) => {
            setParams({ range });
          }}
        />
        <div className="field">
          <label htmlFor="events-type">Event type</label>
          <select
            id="events-type"
            value={params.eventType}
            onChange={(event) => {
              const type = EVENT_TYPES.find(([t]) => t === event.target.value)?.[0];
              if (type) setParams({ eventType: type });
            }}
          >
            {EVENT_TYPES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
      </div>
      <p role="status" className="notice">
        {exportCsv.isPending
          ? 'Exporting…'
          : exportCsv.isSuccess
            ? `Exported ${String(exportCsv.data)} events.`
            : events.isPending
              ? 'Loading events…'
              : ''}
      </p>
      {events.error ? <ErrorNotice title="The events could not be loaded" error={events.error} /> : null}
      {exportCsv.error ? <ErrorNotice title="The export failed" error={exportCsv.error} /> : null}
      {events.isSuccess && rows.length === 0 && cursors.length === 1 ? (
        <div className="empty">
          <p>No events match these filters. Open one of your short links: its click shows here.</p>
        </div>
      ) : (
        <div className="table-wrap">
          <table aria-labelledby={headingId} aria-busy={events.isFetching}>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Event</th>
                <th scope="col">Traffic</th>
                <th scope="col">Country</th>
                <th scope="col">Device</th>
                <th scope="col">Platform</th>
                <th scope="col">Referrer</th>
                <th scope="col">Destination</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((e, i) => (
                <tr key={`${e.timestamp}-${String(i)}`}>
                  <td>
                    <time dateTime={e.timestamp}>{formatDate(e.timestamp)}</time>
                  </td>
                  <td>{e.sdkEventName ? `${e.eventType} (${e.sdkEventName})` : e.eventType}</td>
                  <td>{e.trafficType}</td>
                  <td>{e.country ?? '—'}</td>
                  <td>{e.deviceType ?? '—'}</td>
                  <td>{e.platform ?? '—'}</td>
                  <td>{e.referrerHost ?? '—'}</td>
                  <td className="destination">
                    <span title={e.resolvedDestinationUrl}>{e.resolvedDestinationUrl ?? '—'}</span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager
        label="Pages of events"
        cursors={cursors}
        setCursors={setCursors}
        hasMore={events.data?.pagination.hasMore}
        nextCursor={events.data?.pagination.nextCursor}
        loading={events.isPlaceholderData}
      />
    </section>
  );
};
