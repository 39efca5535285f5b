import { Link } from 'wouter';

export const NotFoundPage = () => (
  <section className="page">
    <h1>Page not found</h1>
    <p>
      The console has no page at this address. <Link href="/links">Go to links</Link>
    </p>
  </section>
);
