import { useQuery } from '@tanstack/react-query';
import { useEffect, useId } from 'react';
import { Link } from 'wouter';
import { api } from '../api';
import { ErrorNotice } from '../components/ErrorNotice';
import { formatDate } from '../format';

const yesNo = (value: boolean) => (value ? 'Yes' : 'No');

/** The workspace's short-link domains, read-only as the API is (an operator adds and changes them). */
export const DomainsPage = () => {
  const headingId = useId();
  const domains = useQuery({
    queryKey: ['domains', 'all'],
    queryFn: async () => {
      const all = [];
      for await (const domain of api.domains.list({ limit: 100 })) all.push(domain);
      return all;
    },
  });
  useEffect(() => {
    document.title = 'Domains · Link service console';
  }, []);
  const rows = domains.data ?? [];
  return (
    <section className="page">
      <h1 id={headingId}>Domains</h1>
      <p className="help">
        The short-link domains of this workspace. They are added and changed by an operator (<code>admin domains</code>
        ); the console shows them as the API answers.
      </p>
      {domains.error ? <ErrorNotice title="The domains could not be loaded" error={domains.error} /> : null}
      {domains.isPending ? (
        <p role="status" className="skeleton-block">
          Loading the domains…
        </p>
      ) : rows.length === 0 ? (
        <div className="empty">
          <p>This workspace has no domains yet: an operator adds them with the admin CLI.</p>
        </div>
      ) : (
        <div className="table-wrap">
          <table aria-labelledby={headingId}>
            <thead>
              <tr>
                <th scope="col">Domain</th>
                <th scope="col">Primary</th>
                <th scope="col">Verified</th>
                <th scope="col">Archived</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((d) => (
                <tr key={d.id}>
                  <td>
                    <Link href={`/domains/${encodeURIComponent(d.id)}`}>{d.domain}</Link>
                  </td>
                  <td>{yesNo(d.primary)}</td>
                  <td>{yesNo(d.verified)}</td>
                  <td>{yesNo(d.archived)}</td>
                  <td>
                    <time dateTime={d.createdAt}>{formatDate(d.createdAt)}</time>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
};

/** One domain, every field as the API returns it. */
export const DomainPage = ({ id }: { id: string }) => {
  const domain = useQuery({ queryKey: ['domain', id], queryFn: () => api.domains.get(id) });
  useEffect(() => {
    document.title = `${domain.data?.domain ?? 'Domain'} · Link service console`;
  }, [domain.data]);
  const d = domain.data;
  return (
    <section className="page">
      <p>
        <Link href="/domains">← All domains</Link>
      </p>
      <h1>{d?.domain ?? 'Domain'}</h1>
      {domain.error ? <ErrorNotice title="The domain could not be loaded" error={domain.error} /> : null}
      {domain.isPending ? (
        <p role="status" className="skeleton-block">
          Loading the domain…
        </p>
      ) : null}
      {d ? (
        <dl className="details">
          <dt>Id</dt>
          <dd>
            <code>{d.id}</code>
          </dd>
          <dt>Primary</dt>
          <dd>{yesNo(d.primary)}</dd>
          <dt>Verified</dt>
          <dd>{yesNo(d.verified)}</dd>
          <dt>Archived</dt>
          <dd>{yesNo(d.archived)}</dd>
          <dt>Root page (placeholder)</dt>
          <dd className="break">{d.placeholder ?? '—'}</dd>
          <dt>Expired-link page</dt>
          <dd className="break">{d.expiredUrl ?? '—'}</dd>
          <dt>Not-found page</dt>
          <dd className="break">{d.notFoundUrl ?? '—'}</dd>
          <dt>Created</dt>
          <dd>{formatDate(d.createdAt)}</dd>
          <dt>Updated</dt>
          <dd>{formatDate(d.updatedAt)}</dd>
        </dl>
      ) : null}
      {d ? (
        <p>
          <Link href={`/links?q=${encodeURIComponent(d.domain)}`}>Links on {d.domain}</Link>
        </p>
      ) : null}
    </section>
  );
};
