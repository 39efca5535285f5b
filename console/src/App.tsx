import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useCallback, useMemo, useState } from 'react';
import { Redirect, Route, Router, Switch, useLocation } from 'wouter';
import { isSessionEnded } from './api';
import { Shell } from './components/Shell';
import { LinkPage } from './pages/LinkPage';
import { LinksPage } from './pages/LinksPage';
import { NotFoundPage, PlaceholderPage } from './pages/PlaceholderPage';
import { SignInPage } from './pages/SignInPage';
import { canWriteLinks, storedSession, storeSession, type SessionInfo } from './session';
import { SessionContext, type SessionState } from './session-context';

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
                  <Route path="/links/:id">{(params) => <LinkPage id={params.id} />}</Route>
                  <Route path="/deep-links">
                    <PlaceholderPage title="Deep links" />
                  </Route>
                  <Route path="/domains">
                    <PlaceholderPage title="Domains" />
                  </Route>
                  <Route path="/import">
                    <PlaceholderPage title="Import" />
                  </Route>
                  <Route path="/events">
                    <PlaceholderPage title="Events" />
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
