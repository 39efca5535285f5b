import { MutationCache, QueryCache, QueryClient, QueryClientProvider, usePrefetchQuery } from '@tanstack/react-query';
import { lazy, Suspense, useCallback, useMemo, useState, type ReactNode } from 'react';
import { Redirect, Route, Router, Switch, useLocation, useSearch } from 'wouter';
import { analyticsParamsOf } from './analytics-params';
import { isSessionEnded } from './api';
import { Shell } from './components/Shell';
import { DeepLinksPage } from './pages/DeepLinksPage';
import { LinksPage } from './pages/LinksPage';
import { NotFoundPage } from './pages/NotFoundPage';
import { SignInPage } from './pages/SignInPage';
import { canWriteLinks, storedSession, storeSession, type SessionInfo } from './session';
import { analyticsQuery, linkQuery, type LinkKind } from './queries';
import { SessionContext, type SessionState } from './session-context';

// The deep links share the links list's component, so they are in the first chunk with it. The
// other pages past the links list load when first opened: each is a chunk of its own (the chart
// library, the CSV parser...), so the first page's JavaScript stays small.
const LinkPage = lazy(async () => ({ default: (await import('./pages/LinkPage')).LinkPage }));
const DomainsPage = lazy(async () => ({ default: (await import('./pages/DomainsPage')).DomainsPage }));
const DomainPage = lazy(async () => ({ default: (await import('./pages/DomainsPage')).DomainPage }));
const ImportPage = lazy(async () => ({ default: (await import('./pages/ImportPage')).ImportPage }));
const EventsPage = lazy(async () => ({ default: (await import('./pages/EventsPage')).EventsPage }));

const Lazy = ({ children }: { children: ReactNode }) => (
  <Suspense
    fallback={
      <p role="status" className="skeleton-block">
        Loading the page…
      </p>
    }
  >
    {children}
  </Suspense>
);

/** A link's page: its data is asked for while its chunk loads. */
const LinkRoute = ({ id, kind }: { id: string; kind: LinkKind }) => {
  usePrefetchQuery(linkQuery(kind, id));
  usePrefetchQuery(analyticsQuery(id, analyticsParamsOf(useSearch())));
  return (
    <Lazy>
      <LinkPage id={id} kind={kind} />
    </Lazy>
  );
};

const SESSION_ENDED = 'Your session has ended: sign in again.';

export const App = () => {
  const [session, setSession] = useState<SessionInfo | undefined>(storedSession);
  const [notice, setNotice] = useState<string | undefined>();
  const [, navigate] = useLocation();

  const ended = useCallback(
    (message?: string) => {
      storeSession(undefined);
      setSession(undefined);
      setNotice(message);
      navigate('/sign-in');
    },
    [navigate],
  );

  // A 401 on any request means the session no longer works (expired, signed out elsewhere, key
  // revoked): back to sign-in, saying so.
  const queryClient = useMemo(() => {
    const onError = (error: unknown) => {
      if (isSessionEnded(error)) ended(SESSION_ENDED);
    };
    return new QueryClient({
      queryCache: new QueryCache({ onError }),
      mutationCache: new MutationCache({
        // A wrong key at sign-in is a 401 too: the sign-in page shows it, no session has ended.
        onError: (error, _variables, _context, mutation) => {
          if (mutation.meta?.signIn !== true) onError(error);
        },
      }),
      defaultOptions: {
        queries: { retry: false, refetchOnWindowFocus: false, staleTime: 10_000 },
      },
    });
  }, [ended]);

  const state = useMemo<SessionState | undefined>(
    () => (session ? { session, canWrite: canWriteLinks(session), ended } : undefined),
    [session, ended],
  );

  const signedIn = (info: SessionInfo) => {
    queryClient.clear();
    setNotice(undefined);
    setSession(info);
    navigate('/links');
  };

  return (
    <QueryClientProvider client={queryClient}>
      <Switch>
        <Route path="/sign-in">
          {state ? <Redirect to="/links" /> : <SignInPage notice={notice} onSignedIn={signedIn} />}
        </Route>
        <Route>
          {state ? (
            <SessionContext.Provider value={state}>
              <Shell>
                <Switch>
                  <Route path="/">
                    <Redirect to="/links" />
                  </Route>
                  <Route path="/links" component={LinksPage} />
                  <Route path="/links/:id">{(params) => <LinkRoute id={params.id} kind="link" />}</Route>
                  <Route path="/deep-links" component={DeepLinksPage} />
                  <Route path="/deep-links/:id">{(params) => <LinkRoute id={params.id} kind="deep-link" />}</Route>
                  <Route path="/domains">
                    <Lazy>
                      <DomainsPage />
                    </Lazy>
                  </Route>
                  <Route path="/domains/:id">
                    {(params) => (
                      <Lazy>
                        <DomainPage id={params.id} />
                      </Lazy>
                    )}
                  </Route>
                  <Route path="/import">
                    <Lazy>
                      <ImportPage />
                    </Lazy>
                  </Route>
                  <Route path="/events">
                    <Lazy>
                      <EventsPage />
                    </Lazy>
                  </Route>
                  <Route component={NotFoundPage} />
                </Switch>
              </Shell>
            </SessionContext.Provider>
          ) : (
            <Redirect to="/sign-in" />
          )}
        </Route>
      </Switch>
    </QueryClientProvider>
  );
};

/** The app under the console's base path. */
export const Root = () => (
  <Router base="/console">
    <App />
  </Router>
);
