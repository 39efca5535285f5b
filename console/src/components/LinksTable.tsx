import type { Link as ApiLink, LinkListQuery } from '@linkservice/sdk';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { formatDate, numberFormat, shortLinkText } from '../format';
import { listKeyOf, resourceOf, type LinkKind } from '../queries';
import { useSession } from '../session-context';
import { CopyButton } from './CopyButton';
import { ErrorNotice } from './ErrorNotice';
import { CreateLinkDialog, EditLinkDialog } from './LinkDialogs';
import { Pager } from './Pager';

type Sort = NonNullable<LinkListQuery['sort']>;
const SORTS: readonly (readonly [Sort, string])[] = [
  ['created_at_desc', 'Newest first'],
  ['created_at_asc', 'Oldest first'],
  ['updated_at_desc', 'Recently updated'],
  ['updated_at_asc', 'Least recently updated'],
  ['clicks_desc', 'Most clicks'],
  ['clicks_asc', 'Fewest clicks'],
];
const isSort = (value: string | null): value is Sort => SORTS.some(([s]) => s === value);
const PAGE_SIZES = [25, 50, 100] as const;
type PageSize = (typeof PAGE_SIZES)[number];
const pageSizeOf = (value: string | null): PageSize => PAGE_SIZES.find((n) => String(n) === value) ?? 25;

/** The list's filters, kept in the address so a view can be shared. */
interface Filters {
  search: string;
  tag: string;
  sort: Sort;
  archived: boolean;
  limit: PageSize;
}

const filtersOf = (search: string): Filters => {
  const params = new URLSearchParams(search);
  const sort = params.get('sort');
  return {
    search: params.get('q') ?? '',
    tag: params.get('tag') ?? '',
    sort: isSort(sort) ? sort : 'created_at_desc',
    archived: params.get('archived') === 'true',
    limit: pageSizeOf(params.get('limit')),
  };
};

const searchOf = (filters: Filters): string => {
  const params = new URLSearchParams();
  if (filters.search) params.set('q', filters.search);
  if (filters.tag) params.set('tag', filters.tag);
  if (filters.sort !== 'created_at_desc') params.set('sort', filters.sort);
  if (filters.archived) params.set('archived', 'true');
  if (filters.limit !== 25) params.set('limit', String(filters.limit));
  const text = params.toString();
  return text ? `?${text}` : '';
};

/** What differs between the two lists: their words, their address and their routes. */
const KINDS = {
  link: { title: 'Links', noun: 'link', path: '/links', idPrefix: 'links' },
  'deep-link': { title: 'Deep links', noun: 'deep link', path: '/deep-links', idPrefix: 'deep-links' },
} as const satisfies Record<LinkKind, { title: string; noun: string; path: string; idPrefix: string }>;

const SkeletonRows = ({ columns }: { columns: number }) => (
  <>
    {Array.from({ length: 5 }, (_, row) => (
      <tr key={row} className="skeleton-row" aria-hidden="true">
        {Array.from({ length: columns }, (_, cell) => (
          <td key={cell}>
            <span className="skeleton" />
          </td>
        ))}
      </tr>
    ))}
  </>
);

const EmptyList = ({ kind, canWrite }: { kind: LinkKind; canWrite: boolean }) =>
  kind === 'link' ? (
    <>
      <h2>No links yet</h2>
      {canWrite ? (
        <p>
          Create your first short link with <strong>New link</strong>: paste the destination, pick a domain, and share
          the short link it gives you. Clicks show up in this table.
        </p>
      ) : (
        <p>This workspace has no links yet; a key with the links:write scope can create them.</p>
      )}
    </>
  ) : (
    <>
      <h2>No deep links yet</h2>
      <p>
        Deep links open your app where it is installed and a launch view where it is not. Create them with{' '}
        {canWrite ? (
          <>
            <strong>New deep link</strong> (with your app&apos;s id),{' '}
          </>
        ) : null}
        <code>POST /v1/deep-links</code> or an app&apos;s SDK; they show here, and each one&apos;s page has its
        launch-view metrics.
      </p>
    </>
  );

/**
 * The list of links or of deep links, one component for both: the table with its filters (search,
 * tag, sort, rows per page, archived; all in the address), its pages, and the create, edit,
 * archive and restore actions, each through the kind's own routes (`/v1/links` or
 * `/v1/deep-links`). A row's short link opens the link's page.
 */
export const LinksTable = ({ kind }: { kind: LinkKind }) => {
  const words = KINDS[kind];
  const { canWrite } = useSession();
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const filters = filtersOf(useSearch());
  const [searchText, setSearchText] = useState(filters.search);
  const [tagText, setTagText] = useState(filters.tag);
  // The cursors of the pages before this one (the first page's is undefined) and this page's.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<ApiLink | undefined>();
  const headingId = useId();
  const tagListId = useId();

  // The address changed without the fields (the navigation's link, a shared address, Back): the
  // fields and the pages follow it, or the next pause in typing would put the old text back. The
  // address the fields themselves made (their text trimmed) leaves them as typed.
  const address = searchOf(filters);
  const [shown, setShown] = useState(address);
  if (shown !== address) {
    setShown(address);
    setCursors([undefined]);
    if (searchText.trim() !== filters.search) setSearchText(filters.search);
    if (tagText.trim() !== filters.tag) setTagText(filters.tag);
  }

  // Any change of the filters takes the text typed so far with it.
  const setFilters = (next: Partial<Filters>) => {
    setCursors([undefined]);
    const typed = { search: searchText.trim(), tag: tagText.trim() };
    navigate(`${words.path}${searchOf({ ...filters, ...typed, ...next })}`, { replace: true });
  };

  useEffect(() => {
    document.title = `${words.title} · Link service console`;
  }, [words.title]);

  // Typing searches once the typing pauses, without a request per key.
  useEffect(() => {
    if (searchText.trim() === filters.search && tagText.trim() === filters.tag) return;
    const timer = setTimeout(() => {
      setFilters({ search: searchText.trim(), tag: tagText.trim() });
    }, 300);
    return () => {
      clearTimeout(timer);
    };
  });

  const cursor = cursors[cursors.length - 1];
  const query: LinkListQuery = {
    limit: filters.limit,
    sort: filters.sort,
    ...(filters.search ? { search: filters.search } : {}),
    ...(filters.tag ? { tag: filters.tag } : {}),
    ...(filters.archived ? { archived: true } : {}),
    ...(cursor === undefined ? {} : { cursor }),
  };
  const listKey = listKeyOf(kind);
  const links = useQuery({
    queryKey: [listKey, query],
    queryFn: async () => await resourceOf(kind).list(query),
    placeholderData: keepPreviousData,
  });

  const refresh = () => queryClient.invalidateQueries({ queryKey: [listKey] });
  const archive = useMutation({ mutationFn: (id: string) => resourceOf(kind).archive(id), onSuccess: refresh });
  const restore = useMutation({
    mutationFn: (id: string) => resourceOf(kind).update(id, { archived: false }),
    onSuccess: refresh,
  });
  const actionError = archive.error ?? restore.error;

  const rows = links.data?.data ?? [];
  const tagsSeen = [...new Set(rows.flatMap((l) => l.tags.map((t) => t.name)))].sort();
  const appsSeen = [...new Set(rows.flatMap((l) => (l.deepLinkAppId ? [l.deepLinkAppId] : [])))].sort();
  const filtered = Boolean(filters.search || filters.tag);
  const columns = 7;

  return (
    <section className="page">
      <div className="page-head">
        <h1 id={headingId}>{words.title}</h1>
        {canWrite ? (
          <button
            type="button"
            onClick={() => {
              setCreating(true);
            }}
          >
            New {words.noun}
          </button>
        ) : (
          <p className="notice">Your key can read {words.noun}s but not change them.</p>
        )}
      </div>

      <form
        className="filters"
        role="search"
        aria-label={`Filter ${words.noun}s`}
        onSubmit={(event) => {
          event.preventDefault();
          setFilters({ search: searchText.trim(), tag: tagText.trim() });
        }}
      >
        <div className="field">
          <label htmlFor={`${words.idPrefix}-search`}>Search {words.noun}s</label>
          <input
            id={`${words.idPrefix}-search`}
            type="search"
            value={searchText}
            placeholder="Title, destination, key, tag…"
            onChange={(event) => {
              setSearchText(event.target.value);
            }}
          />
        </div>
        <div className="field">
          <label htmlFor={`${words.idPrefix}-tag`}>Tag</label>
          <input
            id={`${words.idPrefix}-tag`}
            type="text"
            list={tagListId}
            value={tagText}
            onChange={(event) => {
              setTagText(event.target.value);
            }}
          />
          <datalist id={tagListId}>
            {tagsSeen.map((name) => (
              <option key={name} value={name} />
            ))}
          </datalist>
        </div>
        <div className="field">
          <label htmlFor={`${words.idPrefix}-sort`}>Sort by</label>
          <select
            id={`${words.idPrefix}-sort`}
            value={filters.sort}
            onChange={(event) => {
              if (isSort(event.target.value)) setFilters({ sort: event.target.value });
            }}
          >
            {SORTS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${words.idPrefix}-limit`}>Rows per page</label>
          <select
            id={`${words.idPrefix}-limit`}
            value={filters.limit}
            onChange={(event) => {
              setFilters({ limit: pageSizeOf(event.target.value) });
            }}
          >
            {PAGE_SIZES.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </div>
        <div className="field checkbox">
          <input
            id={`${words.idPrefix}-archived`}
            type="checkbox"
            checked={filters.archived}
            onChange={(event) => {
              setFilters({ archived: event.target.checked });
            }}
          />
          <label htmlFor={`${words.idPrefix}-archived`}>Show archived {words.noun}s</label>
        </div>
      </form>

      {links.error ? <ErrorNotice title={`The ${words.noun}s could not be loaded`} error={links.error} /> : null}
      {actionError ? <ErrorNotice title="The change was not made" error={actionError} /> : null}

      <p role="status" className="visually-hidden">
        {links.isPending
          ? `Loading ${words.noun}s…`
          : links.isFetching
            ? 'Updating…'
            : `${String(rows.length)} ${words.noun}s shown`}
      </p>

      {links.isSuccess && rows.length === 0 && cursors.length === 1 ? (
        <div className="empty">
          {filtered ? (
            <p>No {words.noun}s match these filters.</p>
          ) : filters.archived ? (
            <p>
              No archived {words.noun}s. Archived {words.noun}s stop redirecting and keep their short key; they show
              here.
            </p>
          ) : (
            <EmptyList kind={kind} canWrite={canWrite} />
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
                <th scope="col">Tags</th>
                <th scope="col" className="num">
                  Clicks
                </th>
                <th scope="col">Created</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {links.isPending ? (
                <SkeletonRows columns={columns} />
              ) : (
                rows.map((link) => (
                  <tr key={link.id}>
                    <td>
                      <Link href={`${words.path}/${encodeURIComponent(link.id)}`} className="short">
                        {shortLinkText(link.shortLink)}
                      </Link>
                      {link.archived ? <span className="badge">Archived</span> : null}
                    </td>
                    <td className="destination">
                      <span title={link.url}>{link.url}</span>
                    </td>
                    <td>{link.title}</td>
                    <td>
                      <ul className="tags" aria-label="Tags">
                        {link.tags.map((tag) => (
                          <li key={tag.id} className="tag">
                            {tag.name}
                          </li>
                        ))}
                      </ul>
                    </td>
                    <td className="num">{numberFormat.format(link.clicks)}</td>
                    <td>
                      <time dateTime={link.createdAt}>{formatDate(link.createdAt)}</time>
                    </td>
                    <td className="row-actions">
                      <CopyButton text={link.shortLink} label="Copy" name={`Copy ${link.shortLink}`} />
                      {canWrite ? (
                        <>
                          <button
                            type="button"
                            className="secondary"
                            aria-label={`Edit ${link.shortLink}`}
                            onClick={() => {
                              setEditing(link);
                            }}
                          >
                            Edit
                          </button>
                          {link.archived ? (
                            <button
                              type="button"
                              className="secondary"
                              aria-label={`Restore ${link.shortLink}`}
                              disabled={restore.isPending}
                              onClick={() => {
                                restore.mutate(link.id);
                              }}
                            >
                              Restore
                            </button>
                          ) : (
                            <button
                              type="button"
                              className="secondary"
                              aria-label={`Archive ${link.shortLink}`}
                              disabled={archive.isPending}
                              onClick={() => {
                                archive.mutate(link.id);
                              }}
                            >
                              Archive
                            </button>
                          )}
                        </>
                      ) : null}
                    </td>
                  </tr>
                ))
              )}
            </tbody>
          </table>
        </div>
      )}

      <Pager
        label={`Pages of ${words.noun}s`}
        cursors={cursors}
        setCursors={setCursors}
        hasMore={links.data?.pagination.hasMore}
        nextCursor={links.data?.pagination.nextCursor}
        loading={links.isPlaceholderData}
      />

      {creating ? (
        <CreateLinkDialog
          kind={kind}
          apps={appsSeen}
          onClose={() => {
            setCreating(false);
          }}
        />
      ) : null}
      {editing ? (
        <EditLinkDialog
          link={editing}
          kind={kind}
          onClose={() => {
            setEditing(undefined);
          }}
        />
      ) : null}
    </section>
  );
};
