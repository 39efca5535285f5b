import type { Link as ApiLink } from '@linkservice/sdk';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { analyticsParamsOf, analyticsSearchOf, RANGES, TRAFFIC, type AnalyticsParams } from '../analytics-params';
import { Breakdown } from '../components/Breakdown';
import { ClicksChart } from '../components/ClicksChart';
import { CopyButton } from '../components/CopyButton';
import { ErrorNotice } from '../components/ErrorNotice';
import { RadioGroup } from '../components/RadioGroup';
import { saveBlob } from '../download';
import { formatDate, numberFormat, shortLinkText } from '../format';
import { analyticsQuery, linkQuery, listKeyOf, resourceOf, type LinkKind } from '../queries';
import { useSession } from '../session-context';

const Stat = ({ label, value }: { label: string; value: string }) => (
  <div className="stat">
    <dt>{label}</dt>
    <dd>{value}</dd>
  </div>
);

/** The QR code's downloads (PNG and SVG, fetched through the API's QR route) and archive or restore. */
const LinkActions = ({ link, kind }: { link: ApiLink; kind: LinkKind }) => {
  const { canWrite } = useSession();
  const queryClient = useQueryClient();
  const qr = useMutation({
    mutationFn: async (format: 'png' | 'svg') => {
      saveBlob(await resourceOf(kind).qr(link.id, { format }), `${link.key}-qr.${format}`);
    },
  });
  const archive = useMutation({
    mutationFn: () =>
      link.archived ? resourceOf(kind).update(link.id, { archived: false }) : resourceOf(kind).archive(link.id),
    onSuccess: (updated) => {
      queryClient.setQueryData([kind, link.id], updated);
      void queryClient.invalidateQueries({ queryKey: [listKeyOf(kind)] });
    },
  });
  return (
    <div className="panel">
      <h2 className="panel-title">QR code and actions</h2>
      <div className="button-row">
        <button
          type="button"
          className="secondary"
          disabled={qr.isPending}
          onClick={() => {
            qr.mutate('png');
          }}
        >
          Download QR code (PNG)
        </button>
        <button
          type="button"
          className="secondary"
          disabled={qr.isPending}
          onClick={() => {
            qr.mutate('svg');
          }}
        >
          Download QR code (SVG)
        </button>
        <CopyButton text={link.shortLink} label="Copy short link" />
        {canWrite ? (
          <button
            type="button"
            className={link.archived ? 'secondary' : 'danger'}
            disabled={archive.isPending}
            onClick={() => {
              archive.mutate();
            }}
          >
            {link.archived ? 'Restore link' : 'Archive link'}
          </button>
        ) : null}
      </div>
      {qr.error ? <ErrorNotice title="The QR code could not be downloaded" error={qr.error} /> : null}
      {archive.error ? <ErrorNotice title="The change was not made" error={archive.error} /> : null}
    </div>
  );
};

const Analytics = ({ id, kind, params }: { id: string; kind: LinkKind; params: AnalyticsParams }) => {
  const analytics = useQuery({ ...analyticsQuery(id, params), placeholderData: keepPreviousData });
  const launchId = useId();
  if (analytics.error) return <ErrorNotice title="The analytics could not be loaded" error={analytics.error} />;
  const data = analytics.data;
  if (!data)
    return (
      <p role="status" className="skeleton-block">
        Loading the analytics…
      </p>
    );
  const { summary } = data;
  return (
    <div aria-busy={analytics.isFetching}>
      <p role="status" className="visually-hidden">
        {analytics.isFetching ? 'Updating the analytics…' : `Analytics for ${params.range} shown`}
      </p>
      <dl className="stats" aria-label="Summary">
        <Stat label="Human clicks" value={numberFormat.format(summary.humanClicks)} />
        <Stat label="Unique visitors" value={numberFormat.format(summary.uniqueVisitors)} />
        <Stat label="Bot clicks" value={numberFormat.format(summary.botClicks)} />
        <Stat label="Total clicks" value={numberFormat.format(summary.totalClicks)} />
        <Stat label="Last activity" value={formatDate(summary.lastActivityAt)} />
      </dl>
      <ClicksChart points={data.timeseries} hourly={params.range === '24h'} />
      {kind === 'deep-link' ? (
        <section className="panel" aria-labelledby={launchId}>
          <h2 className="panel-title" id={launchId}>
            Launch view
          </h2>
          <dl className="stats">
            <Stat label="Impressions" value={numberFormat.format(data.launchViewMetrics.impressions)} />
            <Stat label="Auto-open attempts" value={numberFormat.format(data.launchViewMetrics.autoOpenAttempts)} />
            <Stat label="Primary button clicks" value={numberFormat.format(data.launchViewMetrics.primaryClicks)} />
            <Stat label="Secondary button clicks" value={numberFormat.format(data.launchViewMetrics.secondaryClicks)} />
          </dl>
        </section>
      ) : null}
      <div className="breakdowns">
        <Breakdown title="Countries" column="Country" rows={data.geoBreakdown} />
        <Breakdown title="Devices" column="Device" rows={data.deviceBreakdown} />
        <Breakdown title="Browsers" column="Browser" rows={data.browserBreakdown} />
        <Breakdown title="Operating systems" column="Operating system" rows={data.osBreakdown} />
        <Breakdown title="Referrers" column="Referrer" rows={data.referrerBreakdown} />
        <Breakdown title="Campaigns" column="Campaign" rows={data.campaignBreakdown} />
        <Breakdown title="Destinations" column="Destination" rows={data.destinationBreakdown} />
        {data.ruleBreakdown && data.ruleBreakdown.length > 0 ? (
          <Breakdown title="Rules" column="Rule destination" rows={data.ruleBreakdown} />
        ) : null}
        {data.variantBreakdown && data.variantBreakdown.length > 0 ? (
          <Breakdown title="Variants" column="Variant destination" rows={data.variantBreakdown} />
        ) : null}
        {data.customerEvents && data.customerEvents.length > 0 ? (
          <Breakdown title="Conversions" column="Customer event" countLabel="Events" rows={data.customerEvents} />
        ) : null}
      </div>
      <div className="panel">
        <div className="table-wrap">
          <table>
            <caption className="panel-title">Recent events</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Event</th>
                <th scope="col">Country</th>
                <th scope="col">Device</th>
                <th scope="col">Platform</th>
                <th scope="col">Traffic</th>
              </tr>
            </thead>
            <tbody>
              {data.recentEvents.length === 0 ? (
                <tr>
                  <td colSpan={6} className="notice">
                    No events in this range yet. Open the short link to see a click here.
                  </td>
                </tr>
              ) : (
                data.recentEvents.map((e) => (
                  <tr key={e.eventId}>
                    <td>
                      <time dateTime={e.occurredAt}>{formatDate(e.occurredAt)}</time>
                    </td>
                    <td>{e.sdkEventName ? `${e.eventType} (${e.sdkEventName})` : e.eventType}</td>
                    <td>{e.country ?? '—'}</td>
                    <td>{e.deviceType ?? '—'}</td>
                    <td>{e.platform ?? '—'}</td>
                    <td>{e.isBot ? 'Bot' : 'Human'}</td>
                  </tr>
                ))
              )}
            </tbody>
          </table>
        </div>
      </div>
    </div>
  );
};

/**
 * A link's (or deep link's) page: what it is, its QR code and actions, and its analytics over the
 * range and traffic the address names (`?range=30d&traffic=all`).
 */
export const LinkPage = ({ id, kind = 'link' }: { id: string; kind?: LinkKind }) => {
  const [, navigate] = useLocation();
  const params = analyticsParamsOf(useSearch());
  const link = useQuery(linkQuery(kind, id));
  const base = kind === 'link' ? '/links' : '/deep-links';
  useEffect(() => {
    document.title = `${link.data ? shortLinkText(link.data.shortLink) : kind === 'link' ? 'Link' : 'Deep link'} · Link service console`;
  }, [link.data, kind]);
  const setParams = (next: Partial<AnalyticsParams>) => {
    navigate(`${base}/${encodeURIComponent(id)}${analyticsSearchOf({ ...params, ...next })}`, { replace: true });
  };
  return (
    <section className="page">
      <p>
        <Link href={base}>{kind === 'link' ? '← All links' : '← All deep links'}</Link>
      </p>
      <h1>{link.data ? shortLinkText(link.data.shortLink) : kind === 'link' ? 'Link' : 'Deep link'}</h1>
      {link.error ? <ErrorNotice title="The link could not be loaded" error={link.error} /> : null}
      {link.isPending ? (
        <p role="status" className="skeleton-block">
          Loading the link…
        </p>
      ) : null}
      {link.data ? (
        <>
          <dl className="details">
            <dt>Destination</dt>
            <dd className="break">{link.data.url}</dd>
            <dt>Title</dt>
            <dd>{link.data.title || '—'}</dd>
            {link.data.deepLinkAppId ? (
              <>
                <dt>App</dt>
                <dd>{link.data.deepLinkAppId}</dd>
              </>
            ) : null}
            <dt>Status</dt>
            <dd>{link.data.archived ? 'Archived' : 'Active'}</dd>
            <dt>Created</dt>
            <dd>{formatDate(link.data.createdAt)}</dd>
            {link.data.tags.length > 0 ? (
              <>
                <dt>Tags</dt>
                <dd>{link.data.tags.map((t) => t.name).join(', ')}</dd>
              </>
            ) : null}
          </dl>
          <LinkActions link={link.data} kind={kind} />
        </>
      ) : null}
      <h2>Analytics</h2>
      <div className="view-controls">
        <RadioGroup
          label="Range"
          options={RANGES.map((r) => [r, r] as const)}
          value={params.range}
          onChange={(range) => {
            setParams({ range });
          }}
        />
        <RadioGroup
          label="Traffic"
          options={TRAFFIC}
          value={params.traffic}
          onChange={(traffic) => {
            setParams({ traffic });
          }}
        />
      </div>
      <Analytics id={id} kind={kind} params={params} />
    </section>
  );
};
