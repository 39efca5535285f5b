import { useMutation } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link, useRoute } from 'wouter';
import { signOut } from '../session';
import { useSession } from '../session-context';
import { ErrorNotice } from './ErrorNotice';

const NAV = [
  { href: '/links', label: 'Links' },
  { href: '/deep-links', label: 'Deep links' },
  { href: '/domains', label: 'Domains' },
  { href: '/import', label: 'Import' },
  { href: '/events', label: 'Events' },
] as const;

const NavLink = ({ href, label }: { href: string; label: string }) => {
  const [exact] = useRoute(href);
  const [nested] = useRoute(`${href}/*`);
  const active = exact || nested;
  return (
    <Link href={href} className={active ? 'nav-link active' : 'nav-link'} aria-current={active ? 'page' : undefined}>
      {label}
    </Link>
  );
};

/** The signed-in app: a skip link, the header (workspace, navigation, sign-out) and the page. */
export const Shell = ({ children }: { children: ReactNode }) => {
  const { session, canWrite, ended } = useSession();
  const out = useMutation({
    mutationFn: signOut,
    onSuccess: () => {
      ended('You have signed out.');
    },
  });
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="app-header">
        <div className="brand">
          <span className="brand-name">Link service</span>
          <span className="workspace">
            Workspace <code>{session.workspaceId}</code>
            {canWrite ? null : <span className="badge">Read-only</span>}
          </span>
        </div>
        <nav aria-label="Main">
          <ul className="nav-list">
            {NAV.map((item) => (
              <li key={item.href}>
                <NavLink {...item} />
              </li>
            ))}
          </ul>
        </nav>
        <button
          type="button"
          className="secondary"
          onClick={() => {
            out.mutate();
          }}
          disabled={out.isPending}
        >
          Sign out
        </button>
      </header>
      {out.error ? <ErrorNotice error={out.error} /> : null}
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </>
  );
};
