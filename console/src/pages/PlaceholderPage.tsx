import { useEffect } from 'react';
import { Link } from 'wouter';

const NEXT: Record<string, string> = {
  'Deep links': 'Deep links of your apps, with their platform destinations.',
  Domains: 'Your short-link domains and their settings.',
  Import: 'Importing links from another service or a CSV file.',
  Events: 'The event explorer: clicks, installs and customer events as they arrive.',
};

/** A page of the next part of the console: its place in the navigation, and what it will show. */
export const PlaceholderPage = ({ title }: { title: string }) => {
  useEffect(() => {
    document.title = `${title} · Link service console`;
  }, [title]);
  return (
    <section className="page">
      <h1>{title}</h1>
      <div className="empty">
        <p>{NEXT[title]}</p>
        <p>
          This page is not in the console yet: the API and the CLI do it today. <Link href="/links">Back to links</Link>
        </p>
      </div>
    </section>
  );
};

export const NotFoundPage = () => (
  <section className="page">
    <h1>Page not found</h1>
    <p>
      The console has no page at this address. <Link href="/links">Go to links</Link>
    </p>
  </section>
);
