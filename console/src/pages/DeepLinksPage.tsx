import type { DeepLinkListQuery } from '@linkservice/sdk';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { api } from '../api';
import { CopyButton } from '../components/CopyButton';
import { ErrorNotice } from '../components/ErrorNotice';
import { formatDate, numberFormat, shortLinkText } from '../format';
import { Pager } from '../components/Pager';

interface Filters {
  search: string;
  archived: boolean;
}

const filtersOf = (search: string): Filters => {
  const params = new URLSearchParams(search);
  return { search: params.get('q') ?? '', archived: params.get('archived') === 'true' };
};

const searchOf = (filters: Filters): string => {
  const params = new URLSearchParams();
  if (filters.search) params.set('q', filters.search);
  if (filters.archived) params.set('archived', 'true');
  const text = params.toString();
  return text ? `?${text}` : '';
};

/**
 * Deep links: the links of the workspace's deep-link apps, newest first, each opening its page
 * (analytics with the launch view's metrics). They are created by the API, the CLI or an app.
 */
export const DeepLinksPage = () => {
  const [, navigate] = useLocation();
  const filters = filtersOf(useSearch());
  const [searchText, setSearchText] = useState(filters.search);
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const headingId = useId();
  const setFilters = (next: Partial<Filters>) => {
    setCursors([undefined]);
    navigate(`/deep-links${searchOf({ ...filters, ...next })}`, { replace: true });
  };
  useEffect(() => {
    document.title = 'Deep links · Link service console';
  }, []);
  useEffect(() => {
    if (searchText.trim() === filters.search) return;
    const timer = setTimeout(() => {
      setFilters({ search: searchText.trim() });
    }, 300);
    return () => {
      clearTimeout(timer);
    };
  });

  const cursor = cursors[cursors.length - 1];
  const query: DeepLinkListQuery = {
    limit: 25,
    ...(filters.search ? { search: filters.search } : {}),
    ...(filters.archived ? { archived: true } : {}),
    ...(cursor === undefined ? {} : { cursor }),
  };
  const links = useQuery({
    queryKey: ['deep-links', query],
    queryFn: async () => await api.deepLinks.list(query),
    placeholderData: keepPreviousData,
  });
  const rows = links.data?.data ?? [];

  return (
    <section className="page">
      <h1 id={headingId}>Deep links</h1>
      <form
        className="filters filters-short"
        role="search"
        aria-label="Filter deep links"
        onSubmit={(event) => {
          event.preventDefault();
          setFilters({ search: searchText.trim() });
        }}
      >
        <div className="field">
          <label htmlFor="deep-links-search">Search deep links</label>
          <input
            id="deep-links-search"
            type="search"
            value={searchText}
            onChange={(event) => {
              setSearchText(event.target.value);
            }}
          />
        </div>
        <div className="field checkbox">
          <input
            id="deep-links-archived"
            type="checkbox"
            checked={filters.archived}
            onChange={(event) => {
              setFilters({ archived: event.target.checked });
            }}
          />
          <label htmlFor="deep-links-archived">Show archived deep links</label>
        </div>
      </form>
      {links.error ? <ErrorNotice title="The deep links could not be loaded" error={links.error} /> : null}
      <p role="status" className="visually-hidden">
        {links.isPending ? 'Loading deep links…' : `${rows.length} deep links shown`}
      </p>
      {links.isSuccess && rows.length === 0 && cursors.length === 1 ? (
        <div className="empty">
          {filters.search || filters.archived ? (
            <p>No deep links match these filters.</p>
          ) : (
            <>
              <h2>No deep links yet</h2>
              <p>
                Deep links open your app where it is installed and a launch view where it is not. Create them with{' '}
                <code>POST /v1/deep-links</code> or the SDK; they show here with their launch-view metrics.
              </p>
            </>
          )}
        </div>
      ) : (
        <div className="table-wrap">
          <table aria-labelledby={headingId} aria-busy={links.isFetching}>
            <thead>
              <tr>
                <th scope="col">Short link</th>
                <th scope="col">Destination</th>
                <th scope="col">Title</th>
                <th scope="col" className="num">
                  Clicks
                </th>
                <th scope="col">Created</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((link) => (
                <tr key={link.id}>
                  <td>
                    <Link href={`/deep-links/${encodeURIComponent(link.id)}`} className="short">
                      {shortLinkText(link.shortLink)}
                    </Link>
                    {link.archived ? <span className="badge">Archived</span> : null}
                  </td>
                  <td className="destination">
                    <span title={link.url}>{link.url}</span>
                  </td>
                  <td>{link.title}</td>
                  <td className="num">{numberFormat.format(link.clicks)}</td>
                  <td>
                    <time dateTime={link.createdAt}>{formatDate(link.createdAt)}</time>
                  </td>
                  <td className="row-actions">
                    <CopyButton text={link.shortLink} label="Copy" name={`Copy ${link.shortLink}`} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager
        label="Pages of deep links"
        cursors={cursors}
        setCursors={setCursors}
        hasMore={links.data?.pagination.hasMore}
        nextCursor={links.data?.pagination.nextCursor}
        loading={links.isPlaceholderData}
      />
    </section>
  );
};
