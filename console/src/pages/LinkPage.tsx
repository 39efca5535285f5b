import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Link } from 'wouter';
import { api } from '../api';
import { CopyButton } from '../components/CopyButton';
import { ErrorNotice } from '../components/ErrorNotice';

/** One link's page: what it is now; its analytics and QR code join it in the next part. */
export const LinkPage = ({ id }: { id: string }) => {
  const link = useQuery({ queryKey: ['link', id], queryFn: () => api.links.get(id) });
  useEffect(() => {
    document.title = 'Link · Link service console';
  }, []);
  return (
    <section className="page">
      <p>
        <Link href="/links">← All links</Link>
      </p>
      <h1>{link.data ? link.data.shortLink.replace(/^https?:\/\//, '') : 'Link'}</h1>
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
            <dd>{link.data.url}</dd>
            <dt>Title</dt>
            <dd>{link.data.title || '—'}</dd>
            <dt>Clicks</dt>
            <dd>{link.data.clicks}</dd>
            <dt>Status</dt>
            <dd>{link.data.archived ? 'Archived' : 'Active'}</dd>
          </dl>
          <CopyButton text={link.data.shortLink} label="Copy short link" />
          <p className="help">Analytics and the QR code of this link come to this page in the next part.</p>
        </>
      ) : null}
    </section>
  );
};
